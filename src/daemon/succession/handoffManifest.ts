// What a daemon hands its successor, on the successor's stdin: for each session either its PTY (the
// master fd's index among the successor's fds, the program, the size, what was read and not delivered,
// what was written and not taken) or its exit, plus the session's state (opaque here). And the one
// line the successor answers on its stdout. Both checked here: the other side is outside input.
import { z } from 'zod';
import { InputLimit, SizeLimit } from '../../protocol/limits';

export const HANDOFF_VERSION = 1;

export enum HandoffLimit {
  /** The manifest, bytes: each session's held input is bounded (InputLimit), its state is not yet. */
  ManifestBytes = 256 * 1024 * 1024,
  Sessions = 10_000,
  /** Output read and not delivered: what node-pty's stream keeps while paused is one read, 64 KiB. */
  OutputBytes = 1024 * 1024,
  /** The successor's answer line, bytes. */
  AnswerBytes = 64 * 1024,
}

/** A base64 string decoding to at most `bytes`. */
function base64(bytes: number) {
  return z
    .string()
    .max(Math.ceil(bytes / 3) * 4)
    .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'not base64');
}

const id = z.string().min(1).max(256);
const pid = z
  .number()
  .int()
  .min(2)
  .max(2 ** 31 - 1);

const liveSession = z
  .object({
    kind: z.literal('live'),
    id,
    pid,
    pgid: pid,
    /** Where the master is in the successor: its stdio index (0 to 2 are the manifest, the answer, the log). */
    fd: z.number().int().min(3).max(65_535),
    cols: z.number().int().min(1).max(SizeLimit.MaxCols),
    rows: z.number().int().min(1).max(SizeLimit.MaxRows),
    output: base64(HandoffLimit.OutputBytes),
    input: base64(InputLimit.QueuedBytes),
    state: z.unknown().optional(),
  })
  .strict();

const exitedSession = z
  .object({
    kind: z.literal('exited'),
    id,
    exit: z.object({ code: z.number().int().nullable(), signal: z.string().max(32).nullable() }).strict(),
    state: z.unknown().optional(),
  })
  .strict();

export const handoffManifestSchema = z
  .object({
    version: z.literal(HANDOFF_VERSION),
    /**
     * The masters' fd numbers in the daemon that handed them over. node-pty does not mark its masters
     * close-on-exec, so the successor inherits a copy at each of these too: it closes them (a copy left
     * open keeps a terminal from hanging up when its session ends).
     */
    copies: z.array(z.number().int().min(3).max(65_535)).max(HandoffLimit.Sessions),
    sessions: z.array(z.discriminatedUnion('kind', [liveSession, exitedSession])).max(HandoffLimit.Sessions),
    /** The handing process's own state (opaque here). */
    own: z.unknown().optional(),
  })
  .strict()
  .superRefine((manifest, ctx) => {
    const ids = new Set<string>();
    const fds = new Set<number>();
    manifest.sessions.forEach((session, index) => {
      if (ids.has(session.id)) ctx.addIssue({ code: 'custom', path: ['sessions', index, 'id'], message: 'repeated' });
      ids.add(session.id);
      if (session.kind !== 'live') return;
      if (fds.has(session.fd)) ctx.addIssue({ code: 'custom', path: ['sessions', index, 'fd'], message: 'repeated' });
      fds.add(session.fd);
    });
  });

export type HandoffManifest = z.infer<typeof handoffManifestSchema>;
export type HandedSession = HandoffManifest['sessions'][number];
export type LiveHandedSession = z.infer<typeof liveSession>;

/** The successor's one line: it took every session (from then on it reads them), or why it did not. */
export const handoffAnswerSchema = z.union([
  z.object({ adopted: z.number().int().min(0) }).strict(),
  z.object({ error: z.string().max(4096) }).strict(),
]);

export type HandoffAnswer = z.infer<typeof handoffAnswerSchema>;

/** Parses `text` with `schema`, or throws one line naming the first wrong field. */
export function parseHandoff<T>(schema: z.ZodType<T>, text: string, what: string): T {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new Error(`${what} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  const checked = schema.safeParse(data);
  if (checked.success) return checked.data;
  const issue = checked.error.issues[0];
  throw new Error(`${what}: ${issue.path.join('.') || 'the whole'}: ${issue.message}`);
}
