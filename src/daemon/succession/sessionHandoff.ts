// A session's state across a succession: taken at the handoff's cut (once its emulator has parsed all
// it was given: nothing more comes, the PTY is cut), and the session rebuilt from it in the successor
// with the same id, screen, history, modes, metadata and attention. One schema: the successor checks it.
import { z } from 'zod';
import { MAX_SCROLLBACK_LINES, SizeLimit, TextLimit } from '../../protocol/limits';
import type { SessionAttention } from '../../protocol/messages';
import { metadataSchema } from '../../protocol/checkpointSchema';
import { AdoptedPty } from '../pty/adoptedPty';
import { ArchivedProcess } from '../pty/archivedProcess';
import type { RebuildScreen } from '../sessions/emulatorRebuild';
import type { ReceivedSession } from './handoffReceive';
import { Session, type SessionOptions } from '../sessions/session';
import type { SessionEmulator } from '../sessions/sessionEmulator';

export enum SessionHandoffLimit {
  /** All the screens of a handoff, characters (their history is trimmed to fit, never the handoff failed). */
  ScreensChars = 128 * 1024 * 1024,
  /** One screen at most, characters. */
  ScreenChars = 32 * 1024 * 1024,
  /** Output held back mid-sequence (sequenceBoundary.ts holds at most 1 MiB). */
  PendingBytes = 1024 * 1024,
  /** How long the emulator has to parse what it was given before the cut. */
  ParseMs = 10_000,
}

/** What a session was, as the successor rebuilds it. */
export interface ResumedSession {
  createdAt: number;
  base: { screen: RebuildScreen; title: string };
  attention: SessionAttention;
  lastOutputAt: number;
  bellAt: number;
  exitAt?: number;
}

const time = z.number().int().min(0);
const size = {
  cols: z.number().int().min(1).max(SizeLimit.MaxCols),
  rows: z.number().int().min(1).max(SizeLimit.MaxRows),
};

export const handedStateSchema = z
  .object({
    pid: z.number().int().min(0),
    name: z.string().min(1).max(TextLimit.Name),
    argv: z.array(z.string()).max(4096),
    cwd: z.string().max(4096),
    /** Absent from a daemon older than it: `cwd` stands for both then. */
    startCwd: z.string().max(4096).optional(),
    metadata: metadataSchema,
    createdAt: time,
    scrollback: z.number().int().min(0).max(MAX_SCROLLBACK_LINES),
    ...size,
    title: z.string().max(TextLimit.Title),
    /** VT text rebuilding the screen, its history and modes, rendered at screenCols x screenRows. */
    screen: z.string().max(SessionHandoffLimit.ScreenChars),
    screenCols: size.cols,
    screenRows: size.rows,
    pending: z
      .string()
      .max(Math.ceil(SessionHandoffLimit.PendingBytes / 3) * 4)
      .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'not base64'),
    attention: z
      .object({
        state: z.enum(['running', 'waiting', 'done', 'idle']),
        since: time,
        source: z.enum(['hook', 'prompt', 'bell', 'output', 'input', 'screen']),
        reason: z.string().max(1024).optional(),
        reasonFrom: z.enum(['transcript', 'screen']).optional(),
      })
      .strict(),
    lastOutputAt: time,
    bellAt: time,
    exitAt: time.optional(),
    /** Its shell's VSCODE_NONCE: the successor trusts the command lines it signs (shellMarks.ts). */
    shellNonce: z
      .string()
      .regex(/^[A-Za-z0-9-]{16,128}$/)
      .optional(),
  })
  .strict();

export type HandedState = z.infer<typeof handedStateSchema>;

/** Resolves once `emulator` has parsed everything written to it. */
function parsedAll(emulator: SessionEmulator, id: string): Promise<void> {
  if (emulator.backlog === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      listener.dispose();
      reject(
        new Error(`session ${id}: its emulator did not parse its output within ${SessionHandoffLimit.ParseMs} ms`),
      );
    }, SessionHandoffLimit.ParseMs);
    const listener = emulator.onParsed(() => {
      if (emulator.backlog > 0) return;
      clearTimeout(timer);
      listener.dispose();
      resolve();
    });
  });
}

/** The screen with as much history as fits in `budget` characters (the oldest lines trimmed, with a log line). */
async function screenWithin(
  session: Session,
  budget: number,
  log: (line: string) => void,
): Promise<{ text: string; cols: number; rows: number }> {
  let text = await session.snapshotText(undefined, 'signed');
  let lines = [...text.matchAll(/\n/g)].length;
  while (text.length > budget && lines > 0) {
    const kept = Math.floor((lines * budget) / text.length / 2);
    log(`session ${session.id}: its screen is ${text.length} characters, over ${budget}: handed with ${kept} lines`);
    text = await session.snapshotText(kept, 'signed');
    lines = kept;
  }
  const info = session.info();
  return { text, cols: info.cols, rows: info.rows };
}

/** The state of `session`, at the cut (called in the cut's turn: its output stops there). */
export async function sessionStateAtCut(
  session: Session,
  budget: number,
  log: (line: string) => void,
): Promise<HandedState> {
  const { pending, emulator, scrollback } = session.handover;
  await parsedAll(emulator, session.id);
  const screen = await screenWithin(session, budget, log);
  const info = session.info();
  const { state, since, source, reason, reasonFrom } = info.attention;
  return {
    pid: info.pid,
    name: info.name,
    argv: info.argv,
    cwd: info.cwd,
    startCwd: info.startCwd,
    metadata: info.metadata,
    createdAt: info.createdAt,
    scrollback,
    cols: info.cols,
    rows: info.rows,
    title: info.title,
    screen: screen.text,
    screenCols: screen.cols,
    screenRows: screen.rows,
    pending: pending.toString('base64'),
    attention: { state, since, source, reason, reasonFrom },
    lastOutputAt: info.lastOutputAt,
    bellAt: info.bellAt,
    ...(info.exit ? { exitAt: info.exit.at } : {}),
    ...(session.shellNonce ? { shellNonce: session.shellNonce } : {}),
  };
}

/**
 * The state as handed, or (it fails its schema: the successor has taken the PTY already) a bare one:
 * the program carries on, without its screen.
 */
function checkedState(received: ReceivedSession, log: (line: string) => void): HandedState {
  const checked = handedStateSchema.safeParse(received.state);
  if (checked.success) return checked.data;
  const issue = checked.error.issues[0];
  const where = issue.path.join('.') || 'the whole';
  log(`session ${received.id}: its state is refused (${where}: ${issue.message}): its program kept, not its screen`);
  const now = Date.now();
  const [cols, rows] = received.kind === 'live' ? [received.pty.cols, received.pty.rows] : [80, 24];
  return {
    pid: received.kind === 'live' ? received.pty.pid : 0,
    name: received.id,
    argv: [],
    cwd: '/',
    metadata: {},
    createdAt: now,
    scrollback: 0,
    cols,
    rows,
    title: '',
    screen: '',
    screenCols: cols,
    screenRows: rows,
    pending: '',
    attention: { state: 'idle', since: now, source: 'output' },
    lastOutputAt: now,
    bellAt: 0,
  };
}

/** The session a previous daemon handed over, rebuilt: its adopted PTY, or its exit. */
export function resumeSession(
  received: ReceivedSession,
  /** What every session of the daemon shares. */
  shared: Pick<SessionOptions, 'emulators' | 'typing'>,
  log: (line: string) => void,
): Session {
  const state = checkedState(received, log);
  const pending = Buffer.from(state.pending, 'base64');
  const id = received.id;
  const program =
    received.kind === 'live'
      ? new AdoptedPty({
          ...received.pty,
          output: Buffer.concat([pending, received.pty.output ?? Buffer.alloc(0)]),
          log: (line) => log(`session ${id}: ${line}`),
        })
      : new ArchivedProcess(pending.length > 0 ? pending.toString('utf8') : undefined, received.exit, state.pid);
  const screen = { vt: Buffer.from(state.screen, 'utf8'), cols: state.screenCols, rows: state.screenRows };
  return new Session({
    id,
    name: state.name,
    argv: state.argv,
    cwd: state.startCwd ?? state.cwd,
    ...(state.startCwd !== undefined && state.cwd !== state.startCwd ? { reportedCwd: state.cwd } : {}),
    env: {},
    cols: received.kind === 'live' ? received.pty.cols : state.cols,
    rows: received.kind === 'live' ? received.pty.rows : state.rows,
    scrollback: state.scrollback,
    metadata: state.metadata,
    emulators: shared.emulators,
    typing: shared.typing,
    process: program,
    shellNonce: state.shellNonce,
    onEmulatorError: (err) => log(`session ${id}: emulator: ${err.message}`),
    resumed: {
      createdAt: state.createdAt,
      base: { screen, title: state.title },
      attention: state.attention,
      lastOutputAt: state.lastOutputAt,
      bellAt: state.bellAt,
      exitAt: state.exitAt,
    },
  });
}
