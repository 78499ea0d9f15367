// Keeps every core busy for a test file's duration: one CPU-spinning child process per core, so
// what the file checks must hold on a loaded machine, not only on an idle one.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as os from 'node:os';
import { trace } from './utilities';

export class BusyLoad {
  private constructor(private readonly spinners: ChildProcess[]) {}

  /** Starts `count` spinners (default: one per core). */
  static start(count = os.availableParallelism()): BusyLoad {
    const spinners = Array.from({ length: count }, () =>
      spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
    );
    trace(`busy load: ${count} CPU spinner(s), pids ${spinners.map((c) => c.pid).join(' ')}`);
    return new BusyLoad(spinners);
  }

  /** Stops every spinner. */
  dispose(): void {
    for (const child of this.spinners) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
