// Gathers what a client is sent into few socket writes: everything one turn of the event loop
// brings leaves in one writev, and while the client is sent a stream (a flood of output) everything
// of a few milliseconds does. Each write is a syscall and a wake-up of the client: with 50 watchers
// of a flood, writes of one 4 KB PTY read each were half of the daemon's main thread.
import type * as net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { IDisposable } from '../../base/disposable';

export enum OutputCorkTuning {
  /**
   * A stream: the last write carried at least this much and the next output comes within StreamGapMs
   * (a flood's 4 KB reads come every ~0.4 ms, several ms apart on a loaded machine). Keystroke echo
   * (a few bytes) is never held; output right after a big write is, by GatherMs at most.
   */
  StreamBytes = 2048,
  StreamGapMs = 10,
  /** How long a stream's output is gathered before it is written. */
  GatherMs = 4,
}

export class OutputCork implements IDisposable {
  private corked = false;
  private bytes = 0;
  private lastWriteAt = -Infinity;
  private lastWriteBytes = 0;
  private immediate: NodeJS.Immediate | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly socket: Pick<net.Socket, 'cork' | 'uncork'>,
    /** Milliseconds of a monotonic clock (tests pass their own). */
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Before `bytes` are written to the socket: they leave with the rest of this turn, or of the stream's few ms. */
  gather(bytes: number): void {
    this.bytes += bytes;
    if (this.corked) return;
    this.corked = true;
    this.socket.cork();
    const streaming =
      this.lastWriteBytes >= OutputCorkTuning.StreamBytes &&
      this.now() - this.lastWriteAt <= OutputCorkTuning.StreamGapMs;
    if (streaming) this.timer = setTimeout(() => this.write(), OutputCorkTuning.GatherMs);
    else this.immediate = setImmediate(() => this.write());
  }

  private write(): void {
    this.immediate = undefined;
    this.timer = undefined;
    this.corked = false;
    this.lastWriteBytes = this.bytes;
    this.bytes = 0;
    this.socket.uncork();
    this.lastWriteAt = this.now();
  }

  dispose(): void {
    clearImmediate(this.immediate);
    clearTimeout(this.timer);
    if (this.corked) this.write();
  }
}
