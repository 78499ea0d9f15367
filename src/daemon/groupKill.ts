// Ending a program's process group: the signal asked for, SIGKILL after the grace period, done
// once the leader is reaped (node-pty's exit) and nothing alive of its group is left (PtyProcess
// asks processGroup.ts, which works without /proc too).
import type { IDisposable } from '../base/disposable';
import type { ProgramPty } from './programPty';

export enum KillTiming {
  /** Group-exit polling while a kill is in progress. */
  PollMs = 25,
  /** How long a kill waits for the group to go after SIGKILL. */
  AfterSigkillMs = 5000,
}

export class GroupKill implements IDisposable {
  /** Pending polls and how to end each (with false). */
  private readonly polls = new Map<NodeJS.Timeout, () => void>();
  private disposed = false;

  constructor(
    private readonly program: Pick<ProgramPty, 'signalGroup' | 'groupAlive'>,
    /** Resolves once the program's exit is reported (its last output parsed). */
    private readonly exited: Promise<void>,
  ) {}

  async kill(signal: NodeJS.Signals, graceMs: number): Promise<void> {
    if (!this.program.groupAlive) return this.exited;
    this.program.signalGroup(signal);
    if (!(await this.until(() => !this.program.groupAlive, graceMs))) {
      this.program.signalGroup('SIGKILL');
      await this.until(() => !this.program.groupAlive, KillTiming.AfterSigkillMs);
    }
    await this.exited;
  }

  /** Polls `done` until it holds (true) or `ms` pass (false); disposing ends the poll (false). */
  private until(done: () => boolean, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    return new Promise((resolve) => {
      const check = () => {
        if (done()) resolve(true);
        else if (Date.now() >= deadline || this.disposed) resolve(false);
        else {
          const timer = setTimeout(() => {
            this.polls.delete(timer);
            check();
          }, KillTiming.PollMs);
          this.polls.set(timer, () => resolve(false));
        }
      };
      check();
    });
  }

  dispose(): void {
    this.disposed = true;
    for (const [poll, end] of this.polls) {
      clearTimeout(poll);
      end();
    }
    this.polls.clear();
  }
}
