// The parameters of every request, checked in one place before any handler runs: a wrong type, an
// unknown key name in config.set, a NUL, a control character in a name or an oversized field is a
// `bad-request` naming the field. The schemas are checked against messages.ts's types at compile time.
import { z } from 'zod';
import { metadataSchema } from '../../protocol/checkpointSchema';
import { InputLimit, TextLimit } from '../../protocol/limits';
import { ErrorCode, type Method, type Params } from '../../protocol/messages';
import { RunLimit } from '../../protocol/shell';
import { hasControl } from '../../text/printable';
import { DaemonError } from '../daemonError';

const NUL = /\u0000/;

const sessionRef = z
  .string()
  .min(1, 'a session id or name is required')
  .max(TextLimit.Name + 64);
const noNul = (what: string) => z.string().refine((s) => !NUL.test(s), `${what} must not contain NUL`);
const name = z
  .string()
  .max(TextLimit.Name, `name must be at most ${TextLimit.Name} characters`)
  .refine((s) => !hasControl(s), 'name must not contain control characters (newlines, escapes)')
  .refine((s) => s.trim() !== '', 'name must not be empty');
const argv = z.array(noNul('an argv entry')).min(1, 'argv must not be empty').max(4096);
const env = z.record(z.string(), noNul('an environment value')).superRefine((vars, ctx) => {
  for (const key of Object.keys(vars)) {
    // "NODE_OPTIONS=x" as a name slipped past the blocked-variable list and set NODE_OPTIONS.
    if (key === '' || key.includes('=') || NUL.test(key))
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: 'an environment variable name must be non-empty, without "=" or NUL',
      });
  }
});
// Sizes are integers here; their bounds (cells, budget) are checked where the session is sized.
const dimension = z.number().int();
const channel = z
  .number()
  .int()
  .min(0)
  .max(2 ** 32 - 1);
const none = z.object({});
const shellIntegration = z
  .object({
    scripts: noNul('shellIntegration.scripts')
      .max(4096)
      .refine((s) => s.startsWith('/'), 'an absolute path')
      .optional(),
    // What the shell prints back in its command lines: letters, digits and dashes (a UUID).
    nonce: z
      .string()
      .regex(/^[A-Za-z0-9-]{16,128}$/, '16 to 128 letters, digits or dashes')
      .optional(),
  })
  .strict();

const attentionState = z.enum(['running', 'waiting', 'done', 'idle']);
const waitCondition = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('exit') }),
  z.object({ kind: z.literal('idle'), ms: z.number().min(0) }),
  z.object({
    kind: z.literal('text'),
    pattern: z.string(),
    flags: z.string().optional(),
    history: z.boolean().optional(),
  }),
  z.object({ kind: z.literal('attention'), states: z.array(attentionState).min(1).max(4) }),
]);

export const PARAMS = {
  list: none,
  show: z.object({ session: sessionRef }),
  create: z.object({
    name: name.optional(),
    argv: argv.optional(),
    cwd: noNul('cwd').optional(),
    env: env.optional(),
    cols: dimension.optional(),
    rows: dimension.optional(),
    scrollback: z.number().int().min(0).optional(),
    metadata: metadataSchema.optional(),
    shellIntegration: shellIntegration.optional(),
  }),
  attach: z.object({
    session: sessionRef,
    channel,
    role: z.enum(['owner', 'watcher']),
    cols: dimension.optional(),
    rows: dimension.optional(),
    screenFirst: z.boolean().optional(),
    historyLater: z.boolean().optional(),
    view: z.enum(['live', 'hidden', 'screens']).optional(),
  }),
  detach: z.object({ channel }),
  history: z.object({ channel }),
  view: z.object({ channel, view: z.enum(['live', 'hidden', 'redraw', 'screens']) }),
  claim: z.object({ channel, cols: dimension.optional(), rows: dimension.optional() }),
  resize: z.object({ session: sessionRef, cols: dimension, rows: dimension }),
  send: z.object({
    session: sessionRef,
    data: z.string().max(InputLimit.SendChars, `data must be at most ${InputLimit.SendChars} characters`),
  }),
  answer: z.object({
    session: sessionRef,
    choice: z.enum(['approve', 'deny']),
    shown: z.string().max(64).optional(), // promptAreaDigest of the block the client showed
  }),
  run: z.object({
    session: sessionRef,
    command: z
      .string()
      .min(1, 'a command is required')
      .max(RunLimit.CommandChars, `command must be at most ${RunLimit.CommandChars} characters`)
      .refine((c) => !hasControl(c), 'command must be one line of text, without control characters (tab, ESC)'),
    timeoutMs: z.number().min(0).optional(),
  }),
  read: z.object({ session: sessionRef, scrollback: z.number().int().min(0).optional() }),
  wait: z.object({ session: sessionRef, condition: waitCondition, timeoutMs: z.number().min(0).optional() }),
  kill: z.object({
    session: sessionRef,
    signal: z.string().max(16).optional(),
    graceMs: z.number().min(0).optional(),
    remove: z.boolean().optional(),
  }),
  remove: z.object({ session: sessionRef }),
  update: z.object({ session: sessionRef, name: name.optional(), metadata: metadataSchema.optional() }),
  notify: z.object({
    session: sessionRef,
    state: attentionState,
    conversationId: z.string().optional(), // checked by conversationIdProblem (agents/agents.ts)
    credential: z.string().max(256).optional(), // the session's HOLDFAST_NOTIFY_TOKEN, checked by the handler
    permission: z.boolean().optional(),
  }),
  subscribe: none,
  status: none,
  stop: none,
  'recovery.list': none,
  'recovery.inspect': z.object({ id: z.string().min(1) }),
  'recovery.restore': z.object({ id: z.string().min(1) }),
  'recovery.forget': z.object({ id: z.string().min(1) }),
  'recovery.checkpoint': none,
  'config.get': z.object({ key: z.string().optional() }),
  'config.set': z.object({ key: z.string(), value: z.unknown() }),
  'config.reload': none,
  relaunch: z.object({
    session: sessionRef,
    argv: argv.optional(),
    env: env.optional(),
    shellIntegration: shellIntegration.optional(),
  }),
  resume: z.object({ session: sessionRef, env: env.optional(), resumeArgv: argv.optional() }),
  search: z.object({
    pattern: z.string().min(1, 'a pattern is required'), // compiled by searchSessions (textPattern.ts)
    flags: z.string().optional(),
    session: sessionRef.optional(),
    context: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).optional(),
  }),
  handoff: z.object({
    script: z
      .string()
      .min(1)
      .max(4096)
      .refine((s) => s.startsWith('/'), 'an absolute path')
      .optional(),
  }),
  grant: z.object({ sessions: z.array(sessionRef).max(4096).optional(), readOnly: z.boolean().optional() }),
} satisfies Record<Method, z.ZodType>;

// Compile-time: each schema's type and the protocol's Params<M> accept the same values.
type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Drift = { [M in Method]: Mutual<z.infer<(typeof PARAMS)[M]>, Params<M>> extends true ? never : M }[Method];
const noDrift: [Drift] extends [never] ? true : Drift = true;
void noDrift;

export function isMethod(method: string): method is Method {
  return Object.hasOwn(PARAMS, method);
}

/** The request's params, or a bad-request that names the first wrong field. */
export function parseParams<M extends Method>(method: M, raw: unknown): Params<M> {
  const result = PARAMS[method].safeParse(raw ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue.path.length > 0 ? issue.path.join('.') : 'params';
  throw new DaemonError(ErrorCode.BadRequest, `${method}: ${where}: ${issue.message}`);
}
