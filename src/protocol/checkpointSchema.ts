// What a checkpoint file must be to be read (src/daemon/sessions/checkpoint.ts writes them; anyone who can
// write the user's files can edit them), and the one rule for a session's metadata, whether a client
// sends it or a checkpoint brings it back. The types of saved sessions are derived from here.
import { z } from 'zod';
import { TextLimit } from './limits';
import { CHECKPOINT_VERSION } from './recovery';

/** How deep a session's metadata may nest: tab layouts and agent records need a few levels. */
export const MAX_METADATA_DEPTH = 32;

/** How deep `value` nests, counted without recursion (a 5,000-level value must not exhaust the stack). */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (!item || typeof item !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (depth > MAX_METADATA_DEPTH) return depth;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** A session's metadata: a JSON object, nested at most MAX_METADATA_DEPTH deep, at most 64 KiB as JSON. */
export const metadataSchema = z
  .record(z.string(), z.unknown())
  .refine((m) => depthOf(m) <= MAX_METADATA_DEPTH, `metadata must nest at most ${MAX_METADATA_DEPTH} levels`)
  .refine(
    (m) => Buffer.byteLength(JSON.stringify(m)) <= TextLimit.Metadata,
    `metadata must be at most ${TextLimit.Metadata} bytes of JSON`,
  );

const exitStatus = z.object({ code: z.number().int().nullable(), signal: z.string().nullable(), at: z.number() });

export const savedSessionSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  cwd: z.string(),
  /** Where its client started it (SessionInfo.startCwd); absent from older files: `cwd` stands for both. */
  startCwd: z.string().optional(),
  cols: z.number(),
  rows: z.number(),
  /** Only when `recovery.screenText` is on: shells put the running command (and its secrets) there. */
  title: z.string().optional(),
  createdAt: z.number(),
  /** The program was running when the checkpoint was written (only those can be resumed). */
  running: z.boolean(),
  exit: exitStatus.nullable(),
  /** The extension's workspace/tab layout, the agent profile and agent session id, ... (none: {}). */
  metadata: metadataSchema.default({}),
  /** Only when `recovery.argv` is on: a command line can hold secrets. */
  argv: z.array(z.string()).max(4096).optional(),
  /** Only when `recovery.screenText` is on: VT bytes rebuilding the screen and (bounded) scrollback. */
  screen: z.string().optional(),
});

export const checkpointFileSchema = z.object({
  version: z.literal(CHECKPOINT_VERSION),
  id: z.string().min(1),
  writtenAt: z.number(),
  daemonPid: z.number(),
  daemonStartedAt: z.number(),
  socket: z.string(),
  sessions: z.array(savedSessionSchema),
});
