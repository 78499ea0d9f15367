// Keeps every core busy around the steps whose timing a test checks: one CPU-spinning child process per core,
// so what they check must hold on a loaded machine, not only on an idle one. Only around those steps: the spinners
// take CPU from the e2e file running beside (the e2e is bound by CPU), and a window's first load needs no proof.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as os from 'node:os';
import type { TestContext } from 'node:test';
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

/** Every core busy from here to the end of the test `t` (its after hook stops the spinners, passed or not). */
export function busyUntilTheEnd(t: TestContext): void {
  const load = BusyLoad.start();
  t.after(() => load.dispose());
}
