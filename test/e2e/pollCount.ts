// With HOLDFAST_E2E_COUNT=1, counts what a file's waits cost, by kind and caller: the CLI processes it starts, the
// requests its waits ask the daemon, the rounds of waitFor. Printed when the file's process exits (docs/testing.md).
import * as path from 'node:path';

const COUNTING = !!process.env.HOLDFAST_E2E_COUNT;
const counts = new Map<string, number>();
/** Frames of the harness's own helpers: the caller counted is the first frame outside them. */
const HELPERS = /[/\\](utilities|isolation|pollCount|daemonProbe)\.js:/;

/** Counts one `kind` (e.g. "cli list", "waitFor") for the scenario line that asked for it. */
export function countCall(kind: string): void {
  if (!COUNTING) return;
  const frames = (new Error().stack ?? '').split('\n').slice(1);
  const frame = frames.find((f) => f.includes('.js:') && !HELPERS.test(f) && !f.includes('node:')) ?? '';
  const at = /([^/\\(]+\.js):(\d+)/.exec(frame);
  const key = `${kind}\t${at ? `${at[1]}:${at[2]}` : '?'}`;
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

if (COUNTING) {
  process.on('exit', () => {
    const byKind = new Map<string, number>();
    for (const [key, n] of counts) {
      const kind = key.split('\t')[0];
      byKind.set(kind, (byKind.get(kind) ?? 0) + n);
    }
    const file = path.basename(process.argv[1] ?? '', '.test.js');
    const lines = [...byKind].sort((a, b) => b[1] - a[1]).map(([kind, n]) => `  ${kind}: ${n}`);
    const top = [...counts]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 15)
      .map(([key, n]) => `  ${n}\t${key}`);
    process.stderr.write(
      `[e2e-count ${file}] totals\n${lines.join('\n')}\n[e2e-count ${file}] top callers\n${top.join('\n')}\n`,
    );
  });
}
