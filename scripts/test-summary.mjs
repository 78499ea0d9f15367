// Prints what scripts/test.sh measured: each phase's time, each e2e file's, and the closing line with the counts
// of every test pass (`N passed, N failed`). Reads the folder test.sh writes (phases.tsv and a .tsv per pass).
import * as fs from 'node:fs';
import * as path from 'node:path';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: node scripts/test-summary.mjs RESULTS_DIR\n');
  process.exit(2);
}

/** The tab-separated rows of a file, [] when it is missing. */
function rows(file) {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t'));
}

/** An e2e file's name, without the place in the order test.sh gave it (out/test/e2e-order/NN-NAME.test.js). */
const e2eName = (file) =>
  path
    .basename(file)
    .replace(/^\d+-/, '')
    .replace(/^oldest-/, 'oldest/');
const seconds = (s) => `${Number(s).toFixed(1).padStart(7)} s`;
const out = ['', 'Phases (wall time):'];
let total = 0;
const counts = { pass: 0, fail: 0, skipped: 0, todo: 0, cancelled: 0 };
for (const [name, secs] of rows(path.join(dir, 'phases.tsv'))) {
  total += Number(secs);
  out.push(`  ${name.padEnd(28)}${seconds(secs)}`);
  const pass = rows(path.join(dir, `${name}.tsv`));
  for (const [kind, key, value] of pass) if (kind === 'count' && key in counts) counts[key] += Number(value);
  // The e2e files, slowest first: where the time of the longest phase goes.
  if (name === 'e2e') {
    const files = pass.filter(([kind]) => kind === 'file').sort((a, b) => Number(b[2]) - Number(a[2]));
    for (const [, file, secs] of files) out.push(`    ${e2eName(file).padEnd(26)}${seconds(secs)}`);
  }
}
out.push(`  ${'total'.padEnd(28)}${seconds(total)}`);
// A test cancelled (its file ended first) did not pass: it counts as failed. Todo tests are skipped.
const failed = counts.fail + counts.cancelled;
const skipped = counts.skipped + counts.todo;
out.push('', `${counts.pass} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.stdout.write(`${out.join('\n')}\n`);
