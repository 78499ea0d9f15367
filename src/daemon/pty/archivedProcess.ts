// The "program" of an archived session (restored from a checkpoint): there is none. It hands the
// session the saved screen as if it were output, then reports the exit; writes and signals go nowhere.
import { Emitter } from '../../base/disposable';
import type { ExitInfo } from './ptyProcess';
import type { ProgramProcess } from '../sessions/session';

export class ArchivedProcess implements ProgramProcess {
  readonly pid: number;
  private readonly onDataEmitter = new Emitter<Buffer>();
  readonly onData = this.onDataEmitter.event;
  private readonly onExitEmitter = new Emitter<ExitInfo>();
  readonly onExit = this.onExitEmitter.event;
  private readonly timer: NodeJS.Timeout;

  /** Fires after the current turn, once the session listens. `pid`: one that exited under a previous daemon. */
  constructor(screen: string | undefined, exit: ExitInfo, pid = 0) {
    this.pid = pid;
    this.timer = setTimeout(() => {
      if (screen) this.onDataEmitter.fire(Buffer.from(screen, 'utf8'));
      this.onExitEmitter.fire(exit);
    }, 0);
  }

  write(): undefined {
    return undefined;
  }
  resize(): void {}
  pause(): void {}
  resume(): void {}
  groupAlive(): Promise<boolean> {
    return Promise.resolve(false);
  }
  signalGroup(): Promise<boolean> {
    return Promise.resolve(false);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.onDataEmitter.dispose();
    this.onExitEmitter.dispose();
  }
}
