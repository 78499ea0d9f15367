// Notices a worker thread that has stopped answering: silent for SilentMs while work it owes an
// answer for is outstanding. Its timer runs only while work is outstanding, so an idle daemon never
// wakes for it; its owner ends the worker and replaces it.
import type { IDisposable } from '../protocol/disposable';

export enum WatchdogTiming {
  /** A worker with work outstanding that sends nothing this long is stuck (a parse takes ~0.1 s a MB). */
  SilentMs = 10_000,
}

export class WorkerWatchdog implements IDisposable {
  private heardAt = Date.now();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    /** Whether the worker owes an answer now (output to parse, a read to answer). */
    private readonly outstanding: () => boolean,
    /** The worker said nothing for `silentMs` while it owed an answer. */
    private readonly stuck: (silentMs: number) => void,
    private readonly silentMs: number = WatchdogTiming.SilentMs,
  ) {}

  /** Work was handed to the worker: the silence counts from now if nothing was outstanding. */
  sent(): void {
    if (this.timer) return;
    this.heardAt = Date.now();
    this.arm(this.silentMs);
  }

  /** The worker said something: it runs. */
  heard(): void {
    this.heardAt = Date.now();
  }

  /** The worker was replaced (or ended): nothing is owed by the new one yet. */
  reset(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.check(), ms);
  }

  private check(): void {
    this.timer = undefined;
    if (!this.outstanding()) return;
    const silent = Date.now() - this.heardAt;
    if (silent >= this.silentMs) this.stuck(silent);
    else this.arm(this.silentMs - silent);
  }

  dispose(): void {
    this.reset();
  }
}
