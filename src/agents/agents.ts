// Agent profiles shared by the extension, the daemon and the CLI: the built-in ones, and the one
// rule that turns a session's recorded agent metadata into the command `resume` runs. The command
// is never read from the checkpoint file: it is the built-in profile's (found by the recorded
// profile name) or the one a client gives for its own profile; only the conversation id is read,
// and it must look like one.
import {
  AGENT_ID_PLACEHOLDER,
  agentOf,
  archivedFrom,
  type InspectedSession,
  type SavedSession,
} from '../protocol/recovery';
import { shellQuote } from '../text/shellQuote';

export interface AgentProfile {
  /** Stable key recorded in the session (metadata.agent.profile). */
  id: string;
  name: string;
  /** A codicon name. */
  icon: string;
  /** The command line; "{id}" is replaced by the agent session id. */
  argv: string[];
  /** The command line that continues the conversation; "{id}" as above. */
  resumeArgv: string[];
  /**
   * "generate": Holdfast makes a UUID and passes it in argv; "reported": the agent picks its own
   * and its hook tells it (`holdfast notify`); "none": the agent picks its own and never tells.
   */
  sessionId: 'generate' | 'reported' | 'none';
  /** With "reported", before the agent has told its id: resume its latest conversation instead. */
  resumeLatestArgv?: string[];
  /** How the agent is told, per run, to report its state to Holdfast (see agentHookArgs). */
  hooks?: 'claude-settings' | 'codex-notify';
}

// What each built-in agent supports (also in docs/agents.md):
//   Claude Code  starts with a generated `--session-id <uuid>` and resumes it (`--resume <uuid>`);
//                hooks passed with `--settings`: UserPromptSubmit → running, Notification → waiting, Stop → done,
//                PermissionRequest → running, its payload saying it asks (the prompt it draws is its own).
//   Codex CLI    picks its own id; its `notify` program (set per run with `-c notify=[...]`) reports
//                each finished turn with the thread id, which `codex resume <id>` continues. Until a
//                turn has finished, resume falls back to `codex resume --last`.
//   Gemini CLI   starts with a generated `--session-id <uuid>` and resumes it (`--resume <uuid>`). Its
//                hooks live only in settings files (a per-run override would replace the system
//                settings, administrators' policy included), so BEL / OSC 9 are its signal.
export const BUILTIN_AGENTS: readonly AgentProfile[] = [
  {
    id: 'claude',
    name: 'Claude Code',
    icon: 'sparkle',
    argv: ['claude', '--session-id', AGENT_ID_PLACEHOLDER],
    resumeArgv: ['claude', '--resume', AGENT_ID_PLACEHOLDER],
    sessionId: 'generate',
    hooks: 'claude-settings',
  },
  {
    id: 'codex',
    name: 'Codex CLI',
    icon: 'hubot',
    argv: ['codex'],
    resumeArgv: ['codex', 'resume', AGENT_ID_PLACEHOLDER],
    sessionId: 'reported',
    resumeLatestArgv: ['codex', 'resume', '--last'],
    hooks: 'codex-notify',
  },
  {
    id: 'gemini',
    name: 'Gemini CLI',
    icon: 'star-empty',
    argv: ['gemini', '--session-id', AGENT_ID_PLACEHOLDER],
    resumeArgv: ['gemini', '--resume', AGENT_ID_PLACEHOLDER],
    sessionId: 'generate',
  },
];

/**
 * Claude Code's hook events and the state each one means. PermissionRequest comes just before its prompt is
 * drawn (the screen says it waits, once it is); its payload tells `notify` the prompt is the agent's own.
 */
const CLAUDE_HOOK_STATES = {
  UserPromptSubmit: 'running',
  PermissionRequest: 'running',
  Notification: 'waiting',
  Stop: 'done',
} as const;

/**
 * The options that make an agent report its state through `notify` (the argv that runs
 * `holdfast notify`, e.g. [node, cli.js, "notify"]), inserted right after the program's name.
 * Profiles without hooks get none.
 */
export function agentHookArgs(profile: Pick<AgentProfile, 'hooks'>, notify: readonly string[]): string[] {
  switch (profile.hooks) {
    case 'claude-settings': {
      const hooks: Record<string, unknown> = {};
      for (const [event, state] of Object.entries(CLAUDE_HOOK_STATES)) {
        const command = [...notify, '--from', 'claude', '--state', state].map(shellQuote).join(' ');
        hooks[event] = [{ hooks: [{ type: 'command', command }] }];
      }
      return ['--settings', JSON.stringify({ hooks })];
    }
    case 'codex-notify':
      // The value is TOML; a JSON array of strings is a valid TOML array. Codex appends its JSON payload.
      return ['-c', `notify=${JSON.stringify([...notify, '--from', 'codex'])}`];
    default:
      return [];
  }
}

/** `argv` with the hook options after its program name. */
export function withAgentHooks(
  argv: readonly string[],
  profile: Pick<AgentProfile, 'hooks'>,
  notify?: readonly string[],
): string[] {
  if (!notify || argv.length === 0) return [...argv];
  return [argv[0], ...agentHookArgs(profile, notify), ...argv.slice(1)];
}

/** A profile by id, from a list: an exact match on an own string, so "__proto__" or "constructor" finds nothing. */
export function findProfile<P extends { id: string }>(profiles: readonly P[], id: unknown): P | undefined {
  return typeof id === 'string'
    ? profiles.find((p) => Object.prototype.hasOwnProperty.call(p, 'id') && p.id === id)
    : undefined;
}

export function builtinAgent(id: unknown): AgentProfile | undefined {
  return findProfile(BUILTIN_AGENTS, id);
}

/** A conversation id as agents make them (UUIDs, slugs): it goes into a command line, so nothing else. */
export const CONVERSATION_ID = /^[A-Za-z0-9._-]+$/;
export const MAX_CONVERSATION_ID_LENGTH = 256;

/** Why a recorded conversation id is refused, or undefined when it is fine. */
export function conversationIdProblem(id: unknown): string | undefined {
  if (typeof id !== 'string' || id === '') return 'no agent session id was recorded';
  if (id.length > MAX_CONVERSATION_ID_LENGTH)
    return `its agent session id is longer than ${MAX_CONVERSATION_ID_LENGTH} characters`;
  if (!CONVERSATION_ID.test(id))
    return 'its agent session id has characters other than letters, digits, ".", "_" and "-"';
  // "." and ".." name directories: an agent that keeps its conversations as files would look outside them.
  if (/^\.+$/.test(id)) return 'its agent session id is only dots';
  // "-x" would be read as an option of the agent, not as an id.
  if (id.startsWith('-')) return 'its agent session id starts with "-"';
  return undefined;
}

/**
 * The resume command line, or why there is none. `template` is the client's resume command for
 * its own profile (the extension's holdfast.agents, the CLI's `resume ID -- CMD`); without one,
 * the built-in profile named by metadata.agent.profile gives it.
 */
export function resumeArgv(metadata: Record<string, unknown>, template?: readonly string[]): string[] | string {
  const agent = agentOf(metadata);
  if (!agent) return 'it is not an agent session (no metadata.agent)';
  const profile = builtinAgent(agent.profile);
  const command = template ?? profile?.resumeArgv;
  if (!command) {
    const name = typeof agent.profile === 'string' ? `"${agent.profile}"` : '(none recorded)';
    const builtins = BUILTIN_AGENTS.map((p) => p.id).join(', ');
    return (
      `its agent profile ${name} is not built-in (${builtins}), and the checkpoint's command is not trusted: ` +
      `give the resume command (holdfast resume ID -- CMD ARGS..., "${AGENT_ID_PLACEHOLDER}" for the ` +
      'conversation id; VS Code sends its holdfast.agents profile)'
    );
  }
  if (command.length === 0) return 'its agent profile has no resume command';
  // Some agents resume "the latest conversation here" (codex resume --last): no id needed.
  if (!command.some((a) => a.includes(AGENT_ID_PLACEHOLDER))) return [...command];
  // An agent that reports its id had not yet done so (no turn finished): its latest conversation.
  if (agent.sessionId === undefined && !template && profile?.resumeLatestArgv) return [...profile.resumeLatestArgv];
  const problem = conversationIdProblem(agent.sessionId);
  if (problem) return problem;
  return command.map((a) => a.split(AGENT_ID_PLACEHOLDER).join(agent.sessionId));
}

/**
 * Whether resume is offered: its command can be built, or it is a profile of the client's own
 * (not built-in) whose command the client will give, with no bad id recorded.
 */
export function resumeOffered(metadata: Record<string, unknown>): boolean {
  if (typeof resumeArgv(metadata) !== 'string') return true;
  const agent = agentOf(metadata);
  if (typeof agent?.profile !== 'string' || builtinAgent(agent.profile)) return false;
  return agent.sessionId === undefined || conversationIdProblem(agent.sessionId) === undefined;
}

/** A saved session as `recovery inspect` shows it: no screen text; whether resume is offered, and the exact command. */
export function inspectSaved(saved: SavedSession): InspectedSession {
  const { screen, ...rest } = saved;
  // An archive restored from an earlier checkpoint and never relaunched keeps its original's state.
  const running = saved.running || archivedFrom(saved.metadata)?.running === true;
  const inspected: InspectedSession = {
    ...rest,
    screenBytes: screen ? Buffer.byteLength(screen) : 0,
    resumable: running && resumeOffered(saved.metadata),
  };
  if (!agentOf(saved.metadata)) return inspected;
  const command = resumeArgv(saved.metadata);
  if (!running) inspected.resumeNote = 'it had exited before the checkpoint was written (relaunch starts a new run)';
  else if (typeof command !== 'string') inspected.resumeCommand = command;
  else if (inspected.resumable && !builtinAgent(agentOf(saved.metadata)?.profile))
    inspected.resumeNote =
      "a custom agent profile: the command comes from the client (VS Code's holdfast.agents, or " +
      'holdfast resume ID -- CMD ARGS...)';
  else inspected.resumeNote = command;
  return inspected;
}
