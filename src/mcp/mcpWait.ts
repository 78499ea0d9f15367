// The `wait` tool of `holdfast mcp`: until a session exits, goes quiet, shows text, needs input or
// is done. All are the daemon's own waits (`holdfast wait`); needs-input and done are the
// session's attention (src/daemon/sessions/attention.ts: an agent's hooks, a bell or OSC 9 / 777, prompt marks).
import { z } from 'zod';
import type { SessionInfo, WaitCondition } from '../protocol/messages';
import { DEFAULT_IDLE_MS } from '../protocol/limits';
import { placeOf } from './mcpHosts';
import {
  checked,
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

const FOR = ['idle', 'text', 'exit', 'needs-input', 'done'] as const;

function condition(args: {
  for: (typeof FOR)[number];
  pattern?: string;
  flags?: string;
  history?: boolean;
  idleMs?: number;
}): WaitCondition {
  if (args.for === 'exit') return { kind: 'exit' };
  if (args.for === 'idle') return { kind: 'idle', ms: args.idleMs ?? DEFAULT_IDLE_MS };
  if (args.for === 'needs-input') return { kind: 'attention', states: ['waiting'] };
  if (args.for === 'done') return { kind: 'attention', states: ['done'] };
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
    "(a screen line matches an RE2 pattern; with history, a scrollback line too), needs input (its agent's " +
    'hook said so, or it rang the bell or sent a desktop notification, OSC 9 / 777, and nothing answered it ' +
    "yet), or is done (its agent finished its turn, or its shell's command ended). " +
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
  async run(args, tool) {
    const cond = condition(args);
    const timeoutMs = args.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const { place, ref } = placeOf(tool, args.session);
    const { ctx } = place;
    const [outcome, info] = await withDaemon(ctx, async (client): Promise<[Outcome, SessionInfo]> => {
      const { id } = await resolveSession(ctx, client, ref);
      const result = await client.request('wait', { session: id, condition: cond, timeoutMs });
      if (result.met) return ['met', result.session];
      return [result.session.state === 'exited' ? 'exited' : 'timeout', result.session];
    });
    const session = summarize(checked(ctx, info), undefined, place.host);
    return { data: { met: outcome === 'met', outcome, session }, text: `${WHY[outcome]}: ${summaryLine(session)}` };
  },
});
