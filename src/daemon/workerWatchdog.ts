// Notices a worker thread that has stopped answering: silent for SilentMs while work it owes an
// answer for is outstanding; its owner ends the worker and replaces it. It looks every CheckMs while
// work is outstanding and stops at the first look that finds none, so an idle daemon never wakes for it.
import type { IDisposable } from '../base/disposable';

export enum WatchdogTiming {
  /** A worker with work outstanding that sends nothing this long is stuck (a parse takes ~0.1 s a MB). */
  SilentMs = 10_000,
  /**
   * How often it looks. Short, and never cleared early: a cleared timer still wakes the daemon when it
   * was due (Node re-arms its one timer lazily), so a 10 s one would wake an idle daemon 10 s later.
   */
  CheckMs = 1000,
}

/** Tests only: a shorter SilentMs, so a test sees a stuck worker replaced in seconds (test/emulator-watchdog). */
const SILENT_TEST_ENV = 'HOLDFAST_TEST_WORKER_SILENT_MS';

function silentMsForTests(): number | undefined {
  const ms = Number(process.env[SILENT_TEST_ENV]);
  return Number.isInteger(ms) && ms > 0 ? ms : undefined;
}

export class WorkerWatchdog implements IDisposable {
  private heardAt = Date.now();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    /** Whether the worker owes an answer now (output to parse, a read to answer). */
    private readonly outstanding: () => boolean,
    /** The worker said nothing for `silentMs` while it owed an answer. */
    private readonly stuck: (silentMs: number) => void,
    private readonly silentMs: number = silentMsForTests() ?? WatchdogTiming.SilentMs,
  ) {}

  /** Messages went to the worker: the silence counts from now if they are the only work it owes. */
  sent(): void {
    if (this.timer || !this.outstanding()) return;
    this.heardAt = Date.now();
    this.arm();
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

  private arm(): void {
    this.timer = setTimeout(() => this.check(), Math.min(WatchdogTiming.CheckMs, this.silentMs));
  }

  private check(): void {
    this.timer = undefined;
    if (!this.outstanding()) return;
    const silent = Date.now() - this.heardAt;
    if (silent >= this.silentMs) this.stuck(silent);
    else this.arm();
  }

  dispose(): void {
    this.reset();
  }
}
