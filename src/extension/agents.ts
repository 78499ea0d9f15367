// Agent profiles: how to start an AI coding agent in a session, and how to resume its
// conversation after the process is gone. Pure (no vscode import), unit-tested.
//
// What each built-in agent supports (also in the README):
//   Claude Code  starts with a generated `--session-id <uuid>`; resumes that conversation (`--resume <uuid>`).
//   Codex CLI    cannot be given an id at start; resumes the latest conversation of its directory (`codex resume --last`).
//   Gemini CLI   likewise; `gemini --resume latest` resumes the latest conversation of its project.
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AGENT_ID_PLACEHOLDER, AgentMetadata } from '../protocol/recovery';

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
  /** "generate": Holdfast makes a UUID and passes it in argv; "none": the agent picks its own. */
  sessionId: 'generate' | 'none';
}

export const BUILTIN_AGENTS: readonly AgentProfile[] = [
  { id: 'claude', name: 'Claude Code', icon: 'sparkle', argv: ['claude', '--session-id', AGENT_ID_PLACEHOLDER], resumeArgv: ['claude', '--resume', AGENT_ID_PLACEHOLDER], sessionId: 'generate' },
  { id: 'codex', name: 'Codex CLI', icon: 'hubot', argv: ['codex'], resumeArgv: ['codex', 'resume', '--last'], sessionId: 'none' },
  { id: 'gemini', name: 'Gemini CLI', icon: 'star-empty', argv: ['gemini'], resumeArgv: ['gemini', '--resume', 'latest'], sessionId: 'none' },
];

/** The `holdfast.agents` setting: custom profiles, or built-ins overridden by id (e.g. another `claude` path). */
export function readAgentProfiles(setting: unknown): { profiles: AgentProfile[]; errors: string[] } {
  const profiles = BUILTIN_AGENTS.map((p) => ({ ...p, argv: [...p.argv], resumeArgv: [...p.resumeArgv] }));
  const errors: string[] = [];
  if (setting === undefined || setting === null) return { profiles, errors };
  if (!Array.isArray(setting)) return { profiles, errors: ['holdfast.agents must be a list of agent profiles'] };
  setting.forEach((raw, index) => {
    const problem = (why: string) => errors.push(`holdfast.agents[${index}]: ${why}`);
    if (!raw || typeof raw !== 'object') return problem('must be an object');
    const entry = raw as Record<string, unknown>;
    const name = typeof entry.name === 'string' ? entry.name.trim() : '';
    if (!name) return problem('needs a "name"');
    const id = typeof entry.id === 'string' && entry.id.trim() ? entry.id.trim() : slug(name);
    const base = profiles.find((p) => p.id === id);
    const argv = entry.argv === undefined ? base?.argv : stringList(entry.argv);
    if (!argv || argv.length === 0) return problem(`"${name}" needs "argv", a non-empty list of strings such as ["my-agent", "--flag"]`);
    const resumeArgv = entry.resumeArgv === undefined ? (base?.resumeArgv ?? []) : stringList(entry.resumeArgv);
    if (!resumeArgv) return problem(`"${name}": "resumeArgv" must be a list of strings`);
    const sessionId = entry.sessionId === 'generate' || entry.sessionId === 'none' ? entry.sessionId : (base?.sessionId ?? ([...argv, ...resumeArgv].some((a) => a.includes(AGENT_ID_PLACEHOLDER)) ? 'generate' : 'none'));
    if (sessionId === 'none' && resumeArgv.some((a) => a.includes(AGENT_ID_PLACEHOLDER))) return problem(`"${name}": "resumeArgv" uses {id} but "sessionId" is "none", so no id would be known`);
    const profile: AgentProfile = { id, name, icon: typeof entry.icon === 'string' && entry.icon.trim() ? entry.icon.trim() : (base?.icon ?? 'terminal'), argv, resumeArgv, sessionId };
    if (base) profiles[profiles.indexOf(base)] = profile;
    else profiles.push(profile);
  });
  return { profiles, errors };
}

export interface AgentLaunch {
  argv: string[];
  /** Goes into the session's metadata as `agent`. */
  agent: AgentMetadata & { name: string; icon: string };
}

/** The command line and metadata of a new run of `profile`. */
export function agentLaunch(profile: AgentProfile, newId: () => string = randomUUID): AgentLaunch {
  const sessionId = profile.sessionId === 'generate' ? newId() : undefined;
  const argv = profile.argv.map((a) => (sessionId === undefined ? a : a.split(AGENT_ID_PLACEHOLDER).join(sessionId)));
  const agent: AgentLaunch['agent'] = { profile: profile.id, name: profile.name, icon: profile.icon, resumeArgv: [...profile.resumeArgv] };
  if (sessionId !== undefined) agent.sessionId = sessionId;
  return { argv, agent };
}

/** Where `command` would be found on `searchPath`, or undefined. A command with a slash is checked as it is. */
export function findExecutable(command: string, searchPath: string | undefined, cwd: string): string | undefined {
  const candidates = command.includes('/') ? [path.resolve(cwd, command)] : (searchPath ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, command));
  for (const candidate of candidates) {
    try {
      const stat = fs.statSync(candidate);
      if (stat.isFile()) {
        fs.accessSync(candidate, fs.constants.X_OK);
        return candidate;
      }
    } catch {
      // not here
    }
  }
  return undefined;
}

/** One line naming the binary and the setting, for an agent whose command is not installed. */
export function missingAgentMessage(profile: AgentProfile): string {
  return `Holdfast: ${profile.name} needs \`${profile.argv[0]}\`, which is not on PATH. Install it, or set its command in the setting holdfast.agents (e.g. {"id": "${profile.id}", "name": "${profile.name}", "argv": ["/path/to/${path.basename(profile.argv[0])}"${profile.argv.length > 1 ? ', …' : ''}]}).`;
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((a) => typeof a === 'string') ? [...value] : undefined;
}

function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'agent';
}
