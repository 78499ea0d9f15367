// The successor's side of a handoff: read the manifest from stdin, check it (schema, and each fd is a
// terminal open here), answer on stdout, and give back what to adopt. Nothing is read from a PTY
// before the answer is out: until then the previous daemon may still take its PTYs back.
import * as fs from 'node:fs';
import * as tty from 'node:tty';
import type { Readable, Writable } from 'node:stream';
import type { AdoptedPtyOptions } from '../pty/adoptedPty';
import type { ExitInfo } from '../pty/programPty';
import { handoffManifestSchema, HandoffLimit, parseHandoff } from './handoffManifest';
import { GroupGuard } from '../pty/groupGuard';
import { processGroups } from '../pty/processGroup';

export type ReceivedSession =
  | { id: string; state: unknown; kind: 'live'; pty: AdoptedPtyOptions }
  | { id: string; state: unknown; kind: 'exited'; exit: ExitInfo };

/** The whole of `input`, or an error past the manifest's bound. */
function readAll(input: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    input.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > HandoffLimit.ManifestBytes) {
        input.destroy();
        reject(new Error(`the manifest is over ${HandoffLimit.ManifestBytes} bytes`));
      } else chunks.push(chunk);
    });
    input.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    input.once('error', reject);
  });
}

function answer(out: Writable, line: object): Promise<void> {
  return new Promise((resolve, reject) =>
    out.write(`${JSON.stringify(line)}\n`, (err) => (err ? reject(err) : resolve())),
  );
}

/**
 * Closes the copies of the masters inherited at their old numbers. Only a terminal is closed: a number
 * that was not inherited (the previous daemon marked it close-on-exec) may be one of this process's own.
 */
function closeCopies(copies: number[], handed: Set<number>): void {
  for (const fd of copies) {
    if (handed.has(fd) || !tty.isatty(fd)) continue;
    try {
      fs.closeSync(fd);
    } catch {
      // closed in the meantime: nothing to let go of
    }
  }
}

/** The sessions, and the previous daemon's own state (unchecked here: its reader has the schema). */
export interface Received {
  sessions: ReceivedSession[];
  own: unknown;
}

async function check(text: string): Promise<Received> {
  const manifest = parseHandoff(handoffManifestSchema, text, 'the handoff manifest');
  const received: ReceivedSession[] = [];
  for (const session of manifest.sessions) {
    if (session.kind === 'exited') {
      received.push({ id: session.id, state: session.state, kind: 'exited', exit: session.exit });
      continue;
    }
    if (!tty.isatty(session.fd)) throw new Error(`session ${session.id}: fd ${session.fd} is not a terminal here`);
    const { fd, pid, pgid, cols, rows } = session;
    // A leader that runs in another group is not the program handed over (a session leader never
    // changes group): signalling its group would hit someone else. Gone or a zombie is fine: it just ended.
    if ((await new GroupGuard(pid, pgid, 'adopted', processGroups).leaderNow()) === 'reused')
      throw new Error(`session ${session.id}: pid ${pid} runs in a group other than ${pgid}`);
    const output = Buffer.from(session.output, 'base64');
    const input = Buffer.from(session.input, 'base64');
    received.push({
      id: session.id,
      state: session.state,
      kind: 'live',
      pty: { fd, pid, pgid, cols, rows, output, input },
    });
  }
  closeCopies(
    manifest.copies,
    new Set(received.flatMap((session) => (session.kind === 'live' ? [session.pty.fd] : []))),
  );
  return { sessions: received, own: manifest.own };
}

/**
 * Receives the sessions (default: on this process's stdin, answered on its stdout). Build each
 * AdoptedPty and listen to it in one turn: it delivers what the previous daemon held on the next.
 * A bad manifest is answered with its one-line reason, then thrown.
 */
export async function receiveHandoff(
  input: Readable = process.stdin,
  out: Writable = process.stdout,
): Promise<Received> {
  let received: Received;
  try {
    received = await check(await readAll(input));
  } catch (err) {
    await answer(out, { error: (err as Error).message });
    throw err;
  }
  await answer(out, { adopted: received.sessions.length });
  return received;
}
