// A program's PTY taken over from a previous daemon: its master fd, inherited at spawn. The output is
// read as node-pty reads its own (a tty.ReadStream on the fd), resized with node-pty's native resize.
// This daemon is not the program's parent, so it cannot wait for it: the exit is the terminal's end
// (EOF or EIO on the master, once every holder of the other side is gone) with the leader no longer
// running (groupGuard.ts: a zombie counts as gone). The exit code went with the parent: reported
// as unknown (code and signal null).
import * as tty from 'node:tty';
import { Emitter } from '../../base/disposable';
import { InputLimit } from '../../protocol/limits';
import { FdWriter } from './fdWriter';
import { resizeFd, resizeUnlessClosed, restartReading, stopReadingNow } from './nodePtyInternals';
import { GroupGuard } from './groupGuard';
import { type ProcessGroups, processGroups } from './processGroup';
import type { ExitInfo, HandablePty, PtyCut } from './programPty';
import { HeldAtCut, inputLimitReason, untilSettled } from '../succession/ptyCut';

export interface AdoptedPtyOptions {
  /** The master, open in this process (inherited). Owned from now on: closed by release or dispose. */
  fd: number;
  pid: number;
  pgid: number;
  cols: number;
  rows: number;
  /** Read by the previous owner and not delivered: delivered before anything read here. */
  output?: Buffer;
  /** Written to the previous owner and not taken by the program: written before anything else. */
  input?: Buffer;
  log?: (line: string) => void;
  processGroups?: ProcessGroups;
}

export enum AdoptedTiming {
  /** How often the leader is asked about when the terminal ended and it still runs (rare: it closed its tty). */
  LeaderPollMs = 100,
}

/** The exit of a program this daemon did not spawn: its code and signal went to its parent. */
export const UNKNOWN_EXIT: ExitInfo = Object.freeze({ code: null, signal: null });

export class AdoptedPty implements HandablePty {
  readonly pid: number;
  readonly pgid: number;
  private readonly fd: number;
  private size: { cols: number; rows: number };
  private readonly socket: tty.ReadStream;
  private readonly writer: FdWriter;
  private readonly log: (line: string) => void;
  private readonly guard: GroupGuard;
  private readonly held = new HeldAtCut();
  /** Delivers the previous owner's output, then starts reading: after the turn the session listens in. */
  private start: NodeJS.Immediate | undefined;
  private firstOutput: Buffer;
  private outputEnded = false;
  private leaderPoll: NodeJS.Timeout | undefined;
  private exitInfo: ExitInfo | undefined;
  private disposed = false;
  private readonly onDataEmitter = new Emitter<Buffer>();
  readonly onData = this.onDataEmitter.event;
  private readonly onExitEmitter = new Emitter<ExitInfo>();
  readonly onExit = this.onExitEmitter.event;

  constructor(options: AdoptedPtyOptions) {
    this.fd = options.fd;
    this.pid = options.pid;
    this.pgid = options.pgid;
    this.size = { cols: options.cols, rows: options.rows };
    this.log = options.log ?? (() => undefined);
    this.guard = new GroupGuard(this.pid, this.pgid, 'adopted', options.processGroups ?? processGroups);
    this.firstOutput = options.output ?? Buffer.alloc(0);
    this.socket = new tty.ReadStream(this.fd);
    this.writer = new FdWriter(this.fd, this.log);
    if (options.input) this.writer.write(options.input);
    this.socket.on('error', (err: NodeJS.ErrnoException) => {
      // EIO: the other side is closed by everyone (the usual end on Linux); anything else ends reading too.
      if (err.code !== 'EIO') this.log(`reading the adopted terminal of pid ${this.pid} failed: ${err.message}`);
      this.onOutputEnd();
    });
    this.socket.on('end', () => this.onOutputEnd());
    this.start = setImmediate(() => this.begin());
  }

  private begin(): void {
    this.start = undefined;
    const first = this.firstOutput;
    this.firstOutput = Buffer.alloc(0);
    if (first.length > 0) this.onDataEmitter.fire(first);
    this.socket.on('data', (chunk: Buffer) => {
      if (!this.held.output(chunk)) this.onDataEmitter.fire(chunk);
    });
    if (this.held.paused) this.socket.pause();
  }

  get exited(): ExitInfo | undefined {
    return this.exitInfo;
  }

  get cols(): number {
    return this.size.cols;
  }

  get rows(): number {
    return this.size.rows;
  }

  write(data: string | Buffer): string | undefined {
    if (this.exitInfo) return undefined;
    const queued = this.writer.queuedBytes;
    if (this.held.phase !== 'reading') return this.held.input(data, queued);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
    if (queued + bytes.length > InputLimit.QueuedBytes) return inputLimitReason(queued, bytes.length);
    this.writer.write(bytes);
    return undefined;
  }

  resize(cols: number, rows: number): void {
    if (this.exitInfo || this.held.phase === 'released') return;
    if (!(cols > 0 && rows > 0 && Number.isFinite(cols) && Number.isFinite(rows))) return;
    resizeUnlessClosed(() => resizeFd(this.fd, cols, rows));
    this.size = { cols, rows };
  }

  pause(): void {
    this.held.paused = true;
    if (this.held.phase === 'reading' && !this.start) this.socket.pause();
  }

  resume(): void {
    this.held.paused = false;
    if (this.held.phase === 'reading' && !this.start) this.socket.resume();
  }

  /** The terminal has no program left writing to it: the exit, once the leader is gone too. */
  private onOutputEnd(): void {
    if (this.outputEnded || this.held.phase === 'released') return;
    this.outputEnded = true;
    void this.exitOnceLeaderGone();
  }

  private async exitOnceLeaderGone(): Promise<void> {
    this.leaderPoll = undefined;
    const over = () => this.exitInfo !== undefined || this.held.phase === 'released' || this.disposed;
    if (over()) return;
    const leader = await this.guard.leaderNow();
    if (over()) return;
    if (leader === 'running') {
      this.leaderPoll = setTimeout(() => void this.exitOnceLeaderGone(), AdoptedTiming.LeaderPollMs);
      return;
    }
    this.exitInfo = UNKNOWN_EXIT;
    void this.guard.leaderExited(leader); // settles what is left of its group before the pid can be given out again
    this.socket.destroy();
    this.writer.dispose();
    this.onExitEmitter.fire(this.exitInfo);
  }

  signalGroup(signal: NodeJS.Signals): Promise<boolean> {
    return this.guard.signal(signal);
  }

  groupAlive(): Promise<boolean> {
    return this.guard.alive();
  }

  cut(): PtyCut | 'ended' {
    if (this.held.phase !== 'reading') throw new Error(`the terminal of pid ${this.pid} is already handed over`);
    if (this.exitInfo || this.outputEnded) return 'ended';
    if (this.start) {
      // Cut in the turn it was adopted in: what the previous owner read goes to the session first.
      clearImmediate(this.start);
      this.begin();
    }
    this.held.cut();
    stopReadingNow(this.socket);
    for (let chunk = this.socket.read() as Buffer | null; chunk !== null; chunk = this.socket.read() as Buffer | null) {
      // read() emits 'data' itself, which the hold keeps
    }
    return { fd: this.fd, pid: this.pid, pgid: this.pgid, output: this.held.takeOutput() };
  }

  async takeInput(): Promise<Buffer> {
    await untilSettled(() => this.writer.settled || this.held.phase !== 'cut');
    if (this.held.phase !== 'cut') return Buffer.alloc(0);
    return Buffer.concat([this.writer.take(), this.held.takeInput()]);
  }

  uncut(output: Buffer, input: Buffer): void {
    if (this.held.phase !== 'cut') return;
    this.writer.write(Buffer.concat([input, this.held.uncut()]));
    if (output.length > 0) this.onDataEmitter.fire(output);
    restartReading(this.socket);
    if (this.held.paused) this.socket.pause();
  }

  release(): void {
    if (this.held.phase !== 'cut') return;
    this.held.release();
    this.stop();
  }

  private stop(): void {
    clearImmediate(this.start);
    this.start = undefined;
    clearTimeout(this.leaderPoll);
    this.leaderPoll = undefined;
    this.writer.dispose();
    this.socket.destroy(); // closes this process's copy of the master
  }

  dispose(): void {
    const handedOver = this.held.phase !== 'reading';
    this.disposed = true;
    this.onDataEmitter.dispose();
    this.onExitEmitter.dispose();
    // Sent once the guard has its answer (it outlives this object); the daemon's stop ends groups before.
    if (!this.exitInfo && !handedOver) void this.guard.signal('SIGKILL');
    if (!handedOver) this.stop();
  }
}
