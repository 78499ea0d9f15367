// The `wait` tool of `holdfast mcp`: until a session exits, goes quiet, shows text, or needs input.
// exit / idle / text are the daemon's own waits (`holdfast wait`); needs-input follows the daemon's
// bell events (BEL, OSC 9, OSC 777) with the rule the VS Code sidebar uses for "waiting".
import { z } from 'zod';
import { HoldfastClient } from '../protocol/client';
import { DaemonEvent, SessionInfo, WaitCondition } from '../protocol/messages';
import { SessionStateTracker } from '../extension/sessionState';
import { DEFAULT_IDLE_MS } from './commands/io';
import {
  defineTool,
  patternOf,
  resolveSession,
  sessionRef,
  summarize,
  summaryLine,
  summarySchema,
  withDaemon,
} from './mcpTool';

/** Short of the 60 s many MCP clients give a tool call before they give up on it. */
const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_TIMEOUT_MS = 600_000;

type Outcome = 'met' | 'timeout' | 'exited';

/** Resolves once `id` is waiting for input, exits, or `timeoutMs` pass. */
export function waitNeedsInput(client: HoldfastClient, id: string, timeoutMs: number): Promise<[Outcome, SessionInfo]> {
  return new Promise((resolve, reject) => {
    const tracker = new SessionStateTracker();
    let info: SessionInfo | undefined;
    // Events that arrive with the subscribe answer, before the tracker starts from its list.
    let early: DaemonEvent[] | undefined = [];
    let done = false;
    const finish = (outcome: Outcome | Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      events.dispose();
      closed.dispose();
      if (outcome instanceof Error) reject(outcome);
      else resolve([outcome, info!]);
    };
    const check = () => {
      if (!info) return finish(new Error(`session ${id} was removed`));
      if (info.state === 'exited') return finish('exited');
      if (tracker.status(info, Date.now()).phase === 'waiting') finish('met');
    };
    const apply = (event: DaemonEvent) => {
      if (done) return;
      if (event.type === 'session' && event.session.id === id) info = event.session;
      else if (event.type === 'removed' && event.id === id) info = undefined;
      else if (!('id' in event) || event.id !== id) return;
      tracker.apply(event, Date.now());
      check();
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    const events = client.onEvent((event) => (early ? early.push(event) : apply(event)));
    const closed = client.onClose((err) => finish(err ?? new Error('the daemon closed the connection')));
    client.request('subscribe', {}).then(({ sessions }) => {
      info = sessions.find((s) => s.id === id);
      tracker.reset(sessions, Date.now());
      const pending = early ?? [];
      early = undefined;
      check();
      for (const event of pending) apply(event);
    }, finish);
  });
}

const FOR = ['idle', 'text', 'exit', 'needs-input'] as const;

function condition(args: {
  for: (typeof FOR)[number];
  pattern?: string;
  flags?: string;
  history?: boolean;
  idleMs?: number;
}): WaitCondition | 'needs-input' {
  if (args.for === 'exit') return { kind: 'exit' };
  if (args.for === 'idle') return { kind: 'idle', ms: args.idleMs ?? DEFAULT_IDLE_MS };
  if (args.for === 'needs-input') return 'needs-input';
  if (args.pattern === undefined) throw new Error('for "text" needs a pattern');
  patternOf(args.pattern, args.flags);
  return { kind: 'text', pattern: args.pattern, flags: args.flags, history: args.history || undefined };
}

const WHY: Record<Outcome, string> = {
  met: 'condition met',
  timeout: 'timed out',
  exited: 'the session exited first',
};

export const waitTool = defineTool({
  name: 'wait',
  title: 'Wait for a session',
  description:
    'Waits until the session exits, goes quiet (idle: no output for idleMs, default 2000), shows text ' +
    '(a screen line matches an RE2 pattern; with history, a scrollback line too), or needs input (the program ' +
    'rang the bell or sent a desktop notification, OSC 9 / 777, as Claude Code and Codex can, ' +
    'and nothing came after). ' +
    `Gives up after timeoutMs (default ${DEFAULT_TIMEOUT_MS}); met says whether the condition held.`,
  readOnly: true,
  input: {
    session: sessionRef,
    for: z.enum(FOR),
    pattern: z.string().min(1).optional().describe('for "text": RE2 regular expression'),
    flags: z
      .string()
      .regex(/^[ims]*$/)
      .optional()
      .describe('for "text": i, m, s'),
    history: z.boolean().optional().describe('for "text": also match the lines above the screen'),
    idleMs: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional().describe('for "idle": quiet spell in ms'),
    timeoutMs: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional(),
  },
  output: { met: z.boolean(), outcome: z.enum(['met', 'timeout', 'exited']), session: summarySchema },
  async run(args, ctx) {
    const cond = condition(args);
    const timeoutMs = args.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const [outcome, info] = await withDaemon(ctx, async (client): Promise<[Outcome, SessionInfo]> => {
      const { id } = await resolveSession(ctx, client, args.session);
      if (cond === 'needs-input') {
        const [outcome] = await waitNeedsInput(client, id, timeoutMs);
        // The events' copy of the info has no bellAt of the bell that ended the wait: ask for it.
        return [outcome, (await client.request('show', { session: id })).session];
      }
      const result = await client.request('wait', { session: id, condition: cond, timeoutMs });
      if (result.met) return ['met', result.session];
      return [result.session.state === 'exited' ? 'exited' : 'timeout', result.session];
    });
    const session = summarize(info);
    return { data: { met: outcome === 'met', outcome, session }, text: `${WHY[outcome]}: ${summaryLine(session)}` };
  },
});
