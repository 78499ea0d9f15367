// `holdfast notify`: what an agent's hook runs inside its session to say it is running, waiting
// for you, or done, and which conversation it is in. The hooks are set per run by the agent
// profiles (src/agents/agents.ts): Claude Code passes its hook event as JSON on stdin, Codex
// appends its notify payload as the last argument.
import type { AttentionState } from '../../protocol/messages';
import { expectPositionals, stringOpt } from '../args';
import type { Command } from '../command';
import { withClient } from '../connect';
import { usageError } from '../errors';

const STATES: readonly AttentionState[] = ['running', 'waiting', 'done', 'idle'];
const AGENTS = ['claude', 'codex'] as const;
type Reporter = (typeof AGENTS)[number];

/** A hook's payload is small; more than this is not one. */
const MAX_PAYLOAD_BYTES = 64 * 1024;
/** A hook must never hold its agent up: stdin that does not end by then is left unread. */
const STDIN_WAIT_MS = 1000;

export interface Report {
  state: AttentionState | undefined;
  conversationId: string | undefined;
  /** The agent asks for a permission: Claude Code's PermissionRequest, or its permission_prompt notification. */
  permission: boolean;
}

/** What a payload says, or nothing when it is not one (a hook's report must not fail on it). */
export function readPayload(from: Reporter | undefined, payload: string | undefined): Report {
  const report: Report = { state: undefined, conversationId: undefined, permission: false };
  if (!from || !payload) return report;
  let data: unknown;
  try {
    data = JSON.parse(payload);
  } catch {
    return report; // not JSON: the state given with --state still counts
  }
  if (typeof data !== 'object' || data === null) return report;
  const fields = data as Record<string, unknown>;
  if (from === 'claude') {
    if (typeof fields.session_id === 'string') report.conversationId = fields.session_id;
    const event = fields.hook_event_name;
    report.permission =
      event === 'PermissionRequest' || (event === 'Notification' && fields.notification_type === 'permission_prompt');
  } else {
    if (fields.type === 'agent-turn-complete') report.state = 'done';
    if (typeof fields['thread-id'] === 'string') report.conversationId = fields['thread-id'];
  }
  return report;
}

async function readStdin(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (text: string | undefined) => {
      clearTimeout(timer);
      process.stdin.removeAllListeners('data').removeAllListeners('end').removeAllListeners('error');
      process.stdin.destroy();
      resolve(text);
    };
    const timer = setTimeout(() => finish(undefined), STDIN_WAIT_MS);
    process.stdin.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_PAYLOAD_BYTES) finish(undefined);
      else chunks.push(chunk);
    });
    process.stdin.on('end', () => finish(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', () => finish(undefined));
  });
}

export const notifyCommand: Command = {
  name: 'notify',
  summary: "report a session's state from inside it (for agents' hooks)",
  usage: 'notify [--session ID] --state running|waiting|done|idle [--from claude|codex] [PAYLOAD]',
  options: {
    session: { type: 'string', value: 'ID', help: 'the session (default: $HOLDFAST_SESSION, the one it runs in)' },
    state: { type: 'string', value: 'S', help: `${STATES.join(', ')} (Codex's payload says done by itself)` },
    from: { type: 'string', value: 'AGENT', help: `the hook's agent, whose payload is read: ${AGENTS.join(', ')}` },
  },
  here: "is an agent's hook, run inside its session",
  details: [
    "Claude Code's payload is read from stdin, Codex's is the last argument. The conversation id in " +
      'it is recorded, so resume continues that conversation.',
    'Example (Claude Code hook): holdfast notify --from claude --state waiting',
  ],
  async run(ctx) {
    expectPositionals(ctx.args, 0, 1, 'payload');
    const session = stringOpt(ctx.args, 'session') ?? ctx.env.HOLDFAST_SESSION;
    if (!session) throw usageError('no session: run it inside a Holdfast session or give --session ID');
    const from = stringOpt(ctx.args, 'from');
    if (from !== undefined && !(AGENTS as readonly string[]).includes(from))
      throw usageError(`--from must be one of ${AGENTS.join(', ')}`);
    const given = stringOpt(ctx.args, 'state');
    if (given !== undefined && !(STATES as readonly string[]).includes(given))
      throw usageError(`--state must be one of ${STATES.join(', ')}`);
    const payload = from === 'claude' ? await readStdin() : ctx.args.positionals[0];
    const report = readPayload(from as Reporter | undefined, payload);
    const state = (given as AttentionState | undefined) ?? report.state;
    if (!state) throw usageError('--state is needed (the payload did not say one)');
    const result = await withClient(ctx, (client) =>
      client.request('notify', {
        session,
        state,
        conversationId: report.conversationId,
        credential: ctx.env.HOLDFAST_NOTIFY_TOKEN,
        ...(report.permission ? { permission: true } : {}),
      }),
    );
    return { data: { session: result.session.id, attention: result.session.attention } };
  },
};
