// Ending a program's process group: the signal asked for, SIGKILL after the grace period, done
// once the leader is reaped (node-pty's exit) and nothing alive of its group is left (the PTY asks
// groupGuard.ts, whose answers come from off the main thread, so each poll waits for the last).
import type { IDisposable } from '../../base/disposable';
import type { ProgramPty } from './programPty';

export enum KillTiming {
  /** Group-exit polling while a kill is in progress: the pause between one answer and the next question. */
  PollMs = 25,
  /** How long a kill waits for the group to go after SIGKILL. */
  AfterSigkillMs = 5000,
}

export class GroupKill implements IDisposable {
  /** Pending pauses between polls and how to end each (with false). */
  private readonly pauses = new Map<NodeJS.Timeout, () => void>();
  private disposed = false;

  constructor(
    private readonly program: Pick<ProgramPty, 'signalGroup' | 'groupAlive'>,
    /** Resolves once the program's exit is reported (its last output parsed). */
    private readonly exited: Promise<void>,
  ) {}

  async kill(signal: NodeJS.Signals, graceMs: number): Promise<void> {
    if (!(await this.program.groupAlive())) return this.exited;
    await this.program.signalGroup(signal);
    if (!(await this.untilGone(graceMs))) {
      await this.program.signalGroup('SIGKILL');
      await this.untilGone(KillTiming.AfterSigkillMs);
    }
    await this.exited;
  }

  /** Asks until the group is gone (true) or `ms` pass (false); disposing ends the wait (false). */
  private async untilGone(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    for (;;) {
      if (!(await this.program.groupAlive())) return true;
      if (Date.now() >= deadline || this.disposed || !(await this.pause())) return false;
    }
  }

  /** Resolves true after a poll's pause, false if disposed meanwhile. */
  private pause(): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pauses.delete(timer);
        resolve(true);
      }, KillTiming.PollMs);
      this.pauses.set(timer, () => resolve(false));
    });
  }

  dispose(): void {
    this.disposed = true;
    for (const [pause, end] of this.pauses) {
      clearTimeout(pause);
      end();
    }
    this.pauses.clear();
  }
}
