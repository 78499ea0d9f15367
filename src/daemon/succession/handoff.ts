// Hands a daemon's PTYs to a successor process: cut every PTY in one turn (nothing read after it),
// spawn the successor with the master fds as its fds 3, 4, ... and the manifest on its stdin, and
// wait for its one-line answer. Taken: this process lets go of its copies (the programs keep their
// terminal: the successor holds the master, so no hangup). Not taken (the successor failed, exited
// or was too slow and is killed): every PTY is uncut and carries on here, nothing lost.
import { type ChildProcess, spawn } from 'node:child_process';
import type { ExitInfo, HandablePty, PtyCut } from '../pty/programPty';
import {
  HANDOFF_VERSION,
  type HandedSession,
  type HandoffAnswer,
  handoffAnswerSchema,
  HandoffLimit,
  type HandoffManifest,
  parseHandoff,
} from './handoffManifest';

export interface HandoffSession {
  id: string;
  pty: HandablePty;
}

export interface SuccessorCommand {
  file: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** The successor's stderr: its log (default: none). */
  stderr?: 'inherit' | 'ignore' | number;
}

export interface HandoffOptions {
  sessions: HandoffSession[];
  successor: SuccessorCommand;
  /**
   * Each session's state, asked in the turn of its cut (a promise: settled after it, nothing is read
   * meanwhile): the manifest carries it as it is. One that fails uncuts every PTY.
   */
  stateAtCut?: (id: string) => unknown;
  /** The handing process's own state (asked once every state is in): the manifest carries it as it is. */
  ownState?: () => unknown;
  /** How long the successor has to answer (default 10 s). */
  answerTimeoutMs?: number;
}

export enum HandoffTiming {
  AnswerMs = 10_000,
  /** How long a PTY whose output had ended by the cut has to report its exit (its leader is being reaped). */
  EndedExitMs = 5_000,
}

export interface HandoffResult {
  /** Running, detached from this process: it does not keep this one alive. */
  successor: ChildProcess;
  sessions: number;
  /** Per session: bytes read before the cut and not delivered, and input not yet taken, handed over. */
  handed: { id: string; outputBytes: number; inputBytes: number }[];
}

interface Cut {
  session: HandoffSession;
  state: unknown;
  cut: PtyCut | undefined;
  exit: Promise<ExitInfo> | undefined;
}

/** The exit of a PTY whose output ended: reported soon; unknown if not within the bound. */
function exitOf(pty: HandablePty): Promise<ExitInfo> {
  if (pty.exited) return Promise.resolve(pty.exited);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      listener.dispose();
      resolve({ code: null, signal: null });
    }, HandoffTiming.EndedExitMs);
    const listener = pty.onExit((info) => {
      clearTimeout(timer);
      listener.dispose();
      resolve(info);
    });
  });
}

export async function handOff(options: HandoffOptions): Promise<HandoffResult> {
  // The cut: every PTY in this one turn, each session's state with it.
  const cuts: Cut[] = [];
  try {
    for (const session of options.sessions) {
      const cut = session.pty.exited ? 'ended' : session.pty.cut();
      const entry: Cut =
        cut === 'ended'
          ? { session, state: undefined, cut: undefined, exit: exitOf(session.pty) }
          : { session, state: undefined, cut, exit: undefined };
      cuts.push(entry);
      entry.state = options.stateAtCut?.(session.id);
    }
  } catch (err) {
    // One was handed over already, or its state could not be taken: the others carry on here.
    for (const { session, cut } of cuts) if (cut) session.pty.uncut(cut.output, Buffer.alloc(0));
    throw err;
  }
  // Every state is awaited from now on: one that fails while another is awaited must not go unhandled.
  const states = Promise.all(cuts.map((entry) => entry.state));
  states.catch(() => undefined);
  const live = cuts.filter((entry) => entry.cut !== undefined);
  const inputs = await Promise.all(live.map((entry) => entry.session.pty.takeInput()));
  const uncutAll = () => live.forEach((entry, i) => entry.session.pty.uncut(entry.cut!.output, inputs[i]));
  try {
    (await states).forEach((state, i) => (cuts[i].state = state));
  } catch (err) {
    uncutAll();
    throw err;
  }
  const copies = live.map((entry) => entry.cut!.fd);
  const manifest: HandoffManifest = { version: HANDOFF_VERSION, copies, sessions: [], own: options.ownState?.() };
  const fds: number[] = [];
  const handed: HandoffResult['handed'] = [];
  for (const entry of cuts) {
    const { id, pty } = entry.session;
    if (!entry.cut) {
      manifest.sessions.push({ kind: 'exited', id, exit: await entry.exit!, state: entry.state });
      continue;
    }
    const input = inputs[live.indexOf(entry)];
    manifest.sessions.push(liveEntry(id, pty, entry.cut, input, 3 + fds.length, entry.state));
    fds.push(entry.cut.fd);
    handed.push({ id, outputBytes: entry.cut.output.length, inputBytes: input.length });
  }
  let successor: ChildProcess;
  try {
    successor = spawn(options.successor.file, options.successor.args, {
      stdio: ['pipe', 'pipe', options.successor.stderr ?? 'ignore', ...fds],
      env: options.successor.env,
      cwd: options.successor.cwd,
      detached: true, // its own session: it outlives this process and whatever group this one is in
    });
  } catch (err) {
    uncutAll();
    throw new Error(`the successor could not start: ${(err as Error).message}`, { cause: err });
  }
  const answer = await answerOf(successor, JSON.stringify(manifest), options.answerTimeoutMs ?? HandoffTiming.AnswerMs);
  if ('error' in answer) {
    uncutAll();
    throw new Error(`the successor did not take the sessions: ${answer.error}`);
  }
  if (answer.adopted !== manifest.sessions.length) {
    await killed(successor); // it answers before it reads: killed now, it has read nothing
    uncutAll();
    throw new Error(`the successor took ${answer.adopted} of ${manifest.sessions.length} sessions`);
  }
  for (const entry of live) entry.session.pty.release();
  successor.stdout!.destroy();
  successor.unref();
  return { successor, sessions: manifest.sessions.length, handed };
}

function liveEntry(
  id: string,
  pty: HandablePty,
  cut: PtyCut,
  input: Buffer,
  fd: number,
  state: unknown,
): HandedSession {
  const { pid, pgid, output } = cut;
  const [cols, rows] = [pty.cols, pty.rows];
  return {
    kind: 'live',
    id,
    pid,
    pgid,
    fd,
    cols,
    rows,
    output: output.toString('base64'),
    input: input.toString('base64'),
    state,
  };
}

/**
 * Writes the manifest and reads the successor's answer line. No answer (it exited, failed to start,
 * or took too long: then it is killed and waited for, so it reads nothing after) is an error answer.
 */
function answerOf(successor: ChildProcess, manifest: string, timeoutMs: number): Promise<HandoffAnswer> {
  return new Promise((resolve) => {
    let text = '';
    let settled = false;
    const finish = (answer: HandoffAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      successor.stdout!.off('data', onData);
      if ('adopted' in answer) return resolve(answer);
      successor.stdout!.destroy();
      void killed(successor).then(() => resolve(answer));
    };
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const end = text.indexOf('\n');
      if (end < 0 && text.length <= HandoffLimit.AnswerBytes) return;
      try {
        finish(parseHandoff(handoffAnswerSchema, end < 0 ? text : text.slice(0, end), 'the successor answer'));
      } catch (err) {
        finish({ error: (err as Error).message });
      }
    };
    const timer = setTimeout(() => finish({ error: `no answer within ${timeoutMs} ms` }), timeoutMs);
    successor.stdout!.on('data', onData);
    successor.once('error', (err) => finish({ error: `it could not start: ${err.message}` }));
    successor.once('exit', (code, signal) => finish({ error: `it exited (${signal ?? code}) before answering` }));
    writeAll(successor.stdin!, manifest);
  });
}

/** Kills the successor (if it runs) and waits for its end. */
function killed(successor: ChildProcess): Promise<void> {
  if (successor.exitCode !== null || successor.signalCode !== null || successor.pid === undefined)
    return Promise.resolve();
  return new Promise((resolve) => {
    successor.once('exit', () => resolve());
    successor.kill('SIGKILL');
  });
}

/** The manifest on the successor's stdin. One that dies early fails the write (EPIPE): its exit answers. */
function writeAll(stdin: NonNullable<ChildProcess['stdin']>, text: string): void {
  stdin.on('error', () => undefined); // the successor's exit is the answer
  stdin.end(text);
}
