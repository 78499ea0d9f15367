// A program on a pseudo-terminal (node-pty), in its own session and process group.
// Three things node-pty does not do for us: keep the last output of a program that exits right
// after writing (nodePtyInternals.ts), never signal a process group whose id may be someone else's
// (groupGuard.ts), and hand the PTY to a successor (cut, then release or uncut: programPty.ts).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as pty from 'node-pty';
import { Emitter, type IDisposable } from '../../base/disposable';
import { InputLimit } from '../../protocol/limits';
import {
  inputSettled,
  internalsOf,
  queuedInputBytes,
  resizeUnlessClosed,
  restartReading,
  stopReadingNow,
  takeQueuedInput,
} from './nodePtyInternals';
import { writeNow } from './fdWriter';
import { GroupGuard } from './groupGuard';
import { type ProcessGroups, processGroups } from './processGroup';
import type { ExitInfo, HandablePty, PtyCut } from './programPty';
import { HeldAtCut, inputLimitReason, untilSettled } from '../succession/ptyCut';

export type { ExitInfo } from './programPty';

export interface PtyOptions {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
  /** Where a failure nobody asked about is reported (the daemon's log). */
  log?: (line: string) => void;
  /** How what is left of the group is asked (tests pass another; the daemon's choice by default). */
  processGroups?: ProcessGroups;
}

const SIGNAL_NAMES = new Map<number, string>(Object.entries(os.constants.signals).map(([name, num]) => [num, name]));

export function signalName(num: number): string {
  return SIGNAL_NAMES.get(num) ?? `SIG${num}`;
}

export function isSignalName(name: string): name is NodeJS.Signals {
  return Object.prototype.hasOwnProperty.call(os.constants.signals, name);
}

export class PtyProcess implements HandablePty {
  private readonly term: pty.IPty;
  private readonly log: (line: string) => void;
  private readonly guard: GroupGuard;
  private exitInfo: ExitInfo | undefined;
  private readonly disposables: IDisposable[] = [];
  private readonly onDataEmitter = new Emitter<Buffer>();
  readonly onData = this.onDataEmitter.event;
  private readonly onExitEmitter = new Emitter<ExitInfo>();
  readonly onExit = this.onExitEmitter.event;
  /** Reading, cut for a successor, or released to it. */
  private readonly held = new HeldAtCut();
  /** node-pty's destroy of the socket, put off while cut (it would close the fd the successor needs). */
  private deferredDestroy: (() => void) | undefined;

  constructor(options: PtyOptions) {
    const [file, ...args] = options.argv;
    this.log = options.log ?? (() => undefined);
    this.term = pty.spawn(file, args, {
      name: options.env.TERM ?? 'xterm-256color',
      cols: options.cols,
      rows: options.rows,
      cwd: options.cwd,
      env: options.env,
      encoding: null, // raw bytes: no string conversion on the hot path
    });
    this.guard = new GroupGuard(this.term.pid, this.term.pid, 'child', options.processGroups ?? processGroups);
    this.keepOutputAfterExit();
    this.disposables.push(
      this.term.onData((data) => {
        if (!this.held.output(data as unknown as Buffer)) this.onDataEmitter.fire(data as unknown as Buffer);
      }),
      this.term.onExit(({ exitCode, signal }) => {
        if (this.held.phase === 'released') return;
        this.exitInfo = signal ? { code: null, signal: signalName(signal) } : { code: exitCode, signal: null };
        void this.guard.leaderExited('gone'); // reaped: what is left of its group is settled at once
        if (this.held.phase === 'reading') this.onExitEmitter.fire(this.exitInfo);
      }),
    );
  }

  /**
   * node-pty destroys its read stream 200 ms after the child exits when the stream has not closed
   * by itself (a busy event loop), dropping unread output. Before that destroy, read what is left.
   */
  private keepOutputAfterExit(): void {
    const internals = internalsOf(this.term);
    const socket = internals._socket;
    const fd = internals._fd;
    const destroy = socket.destroy.bind(socket);
    socket.destroy = (err?: Error) => {
      // Cut: the bytes left are the successor's, and the fd must stay open until it is spawned.
      if (this.held.phase === 'cut') return void (this.deferredDestroy = () => socket.destroy(err));
      if (this.held.phase === 'released') return destroy(err);
      for (let chunk = socket.read(); chunk !== null; chunk = socket.read()) {
        // read() emits 'data' itself for a stream with data listeners
      }
      const buf = Buffer.allocUnsafe(65536);
      for (;;) {
        let n: number;
        try {
          n = fs.readSync(fd, buf, 0, buf.length, null);
        } catch (err) {
          // EAGAIN/EWOULDBLOCK: nothing more to read now; EIO: the terminal is gone, its output ended.
          const code = (err as NodeJS.ErrnoException).code;
          if (code !== 'EAGAIN' && code !== 'EWOULDBLOCK' && code !== 'EIO')
            this.log(`reading the last output after exit failed (some may be lost): ${(err as Error).message}`);
          break;
        }
        if (n <= 0) break;
        socket.emit('data', Buffer.from(buf.subarray(0, n)));
      }
      destroy(err);
    };
  }

  get pid(): number {
    return this.term.pid;
  }

  get exited(): ExitInfo | undefined {
    return this.exitInfo;
  }

  get cols(): number {
    return this.term.cols;
  }

  get rows(): number {
    return this.term.rows;
  }

  /** Writes for the program to read; refused (the reason returned) when too much would wait for it. */
  write(data: string | Buffer): string | undefined {
    if (this.exitInfo) return undefined;
    if (this.held.phase !== 'reading') return this.held.input(data, queuedInputBytes(internalsOf(this.term)));
    const queued = queuedInputBytes(internalsOf(this.term));
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    if (queued + bytes.length > InputLimit.QueuedBytes) return inputLimitReason(queued, bytes.length);
    this.writeToTerm(bytes);
    return undefined;
  }

  /** Written at once when node-pty has nothing queued (fdWriter.ts: writeNow); the rest through its queue. */
  private writeToTerm(data: Buffer): void {
    const internals = internalsOf(this.term);
    if (internals._socket.destroyed) return; // the terminal is closed: nothing reads input any more
    const written = internals._writeStream._writeQueue.length === 0 ? writeNow(internals._fd, data, this.log) : 0;
    if (written < data.length) this.term.write(data.subarray(written));
  }

  resize(cols: number, rows: number): void {
    if (this.exitInfo) return;
    resizeUnlessClosed(() => this.term.resize(cols, rows));
  }

  pause(): void {
    this.held.paused = true;
    if (this.held.phase === 'reading') this.term.pause();
  }

  resume(): void {
    this.held.paused = false;
    if (this.held.phase === 'reading') this.term.resume();
  }

  /** Bytes read from the PTY and not delivered (only while paused: the stream keeps one chunk). */
  get bufferedOutputBytes(): number {
    return internalsOf(this.term)._socket.readableLength;
  }

  cut(): PtyCut | 'ended' {
    const internals = internalsOf(this.term);
    if (this.held.phase !== 'reading') throw new Error(`the terminal of pid ${this.pid} is already handed over`);
    if (this.exitInfo || (internals._socket as unknown as { destroyed: boolean }).destroyed) return 'ended';
    this.held.cut();
    stopReadingNow(internals._socket);
    for (let chunk = internals._socket.read(); chunk !== null; chunk = internals._socket.read()) {
      // read() emits 'data' itself, which the hold keeps
    }
    return { fd: internals._fd, pid: this.pid, pgid: this.pid, output: this.held.takeOutput() };
  }

  async takeInput(): Promise<Buffer> {
    const internals = internalsOf(this.term);
    await untilSettled(() => inputSettled(internals) || this.held.phase !== 'cut');
    if (this.held.phase !== 'cut') return Buffer.alloc(0);
    return Buffer.concat([takeQueuedInput(internals), this.held.takeInput()]);
  }

  uncut(output: Buffer, input: Buffer): void {
    if (this.held.phase !== 'cut') return;
    const late = this.held.uncut();
    if (output.length > 0) this.onDataEmitter.fire(output);
    if (input.length + late.length > 0) this.term.write(Buffer.concat([input, late]));
    restartReading(internalsOf(this.term)._socket);
    if (this.held.paused) this.term.pause();
    const destroy = this.deferredDestroy;
    this.deferredDestroy = undefined;
    destroy?.(); // the program exited while cut: read what is left, then node-pty reports the exit
  }

  release(): void {
    if (this.held.phase !== 'cut') return;
    this.held.release();
    const internals = internalsOf(this.term);
    internals._writeStream.dispose();
    internals._socket.destroy(); // closes this process's copy of the master: the successor holds its own
  }

  signalGroup(signal: NodeJS.Signals): Promise<boolean> {
    return this.guard.signal(signal);
  }

  groupAlive(): Promise<boolean> {
    return this.guard.alive();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.onDataEmitter.dispose();
    this.onExitEmitter.dispose();
    if (!this.exitInfo && this.held.phase === 'reading') void this.guard.signal('SIGKILL'); // sent in this turn
  }
}
