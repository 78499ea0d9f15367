// The portable pass (scripts/test.sh's PORTABLE_FILES) runs a file again with HOLDFAST_PORTABLE_PROCESS=1, the
// process path of macOS: `ps` and signals instead of /proc, to tell what is left of a program's process group
// (src/daemon/pty/processGroup.ts) and which group is in a shell's foreground (foreground.ts, for `run`). A test
// that ends no program and looks at nothing left of one, and runs no `run`, takes nothing on that path that
// differs: `elsewhereTest` defines it outside that pass only, so the pass spends no CPU repeating it.
import { test } from 'node:test';

/** Whether this file runs in the portable pass. */
export const PORTABLE_PASS = process.env.HOLDFAST_PORTABLE_PROCESS === '1';

/** node:test's `test(name, fn)`, defined only outside the portable pass. */
export function elsewhereTest(name: string, fn: () => Promise<void>): void {
  if (!PORTABLE_PASS) void test(name, fn);
}
