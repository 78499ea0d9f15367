// When a session's PTY is read. Reading pauses while the emulator has too much output left to parse
// (more would only grow the heap), and, while someone types, a session nobody watches is read at a
// pace: a flood there would otherwise keep every core busy (its program, the kernel's PTY work, the
// main thread and a parse thread) and each keystroke's echo would wait for one. Nothing is dropped:
// the output waits in the PTY and its program in its write, as behind a slow terminal.
import type { IDisposable } from '../../base/disposable';
import type { ProgramProcess } from './programPty';

export enum ReadTuning {
  /**
   * Emulator backlog (bytes written, not parsed) at which reading pauses, and resumes. About 0.1 s of
   * parsing: ten floods at 4 MiB each left the daemon's heap 20 MB larger for good, no faster.
   */
  BacklogPauseBytes = 1024 * 1024,
  BacklogResumeBytes = 256 * 1024,
  /** An owner's keystroke this recent (ms): someone types. */
  TypingMs = 1000,
  /** While someone types, a session nobody watches is read at most PacedBytes per PacedWindowMs (8 MiB/s). */
  PacedWindowMs = 10,
  PacedBytes = 80 * 1024,
}

/** When an owner last typed into any session of this daemon. */
export class TypingSignal {
  private at = -Infinity;

  constructor(private readonly typingMs: number = ReadTuning.TypingMs) {}

  typed(): void {
    this.at = performance.now();
  }

  get typing(): boolean {
    return performance.now() - this.at < this.typingMs;
  }
}

export interface ReadPace {
  windowMs: number;
  bytes: number;
}

const DEFAULT_PACE: ReadPace = { windowMs: ReadTuning.PacedWindowMs, bytes: ReadTuning.PacedBytes };

export class PtyReadGate implements IDisposable {
  private backlogHigh = false;
  /** Set while a paced session waits for its next window. */
  private paceTimer: NodeJS.Timeout | undefined;
  private windowAt = -Infinity;
  private windowBytes = 0;
  private paused = false;

  constructor(
    private readonly pty: Pick<ProgramProcess, 'pause' | 'resume'>,
    private readonly typing: TypingSignal,
    private readonly pace: ReadPace = DEFAULT_PACE,
  ) {}

  /** `bytes` were read; `backlog` is left to parse; `watched`: a client shows the session live. */
  read(bytes: number, backlog: number, watched: boolean): void {
    if (backlog > ReadTuning.BacklogPauseBytes) this.backlogHigh = true;
    if (!watched && this.typing.typing) this.paced(bytes);
    this.update();
  }

  /** The emulator parsed some: `backlog` is left. */
  parsed(backlog: number): void {
    if (!this.backlogHigh || backlog >= ReadTuning.BacklogResumeBytes) return;
    this.backlogHigh = false;
    this.update();
  }

  private paced(bytes: number): void {
    const now = performance.now();
    if (now - this.windowAt >= this.pace.windowMs) {
      this.windowAt = now;
      this.windowBytes = 0;
    }
    this.windowBytes += bytes;
    if (this.windowBytes < this.pace.bytes || this.paceTimer) return;
    const wait = Math.max(1, this.windowAt + this.pace.windowMs - now);
    this.paceTimer = setTimeout(() => {
      this.paceTimer = undefined;
      this.update();
    }, wait);
  }

  private update(): void {
    const pause = this.backlogHigh || this.paceTimer !== undefined;
    if (pause === this.paused) return;
    this.paused = pause;
    if (pause) this.pty.pause();
    else this.pty.resume();
  }

  dispose(): void {
    clearTimeout(this.paceTimer);
    this.paceTimer = undefined;
  }
}
