// npm run lint: text checks that neither Prettier nor ESLint make.
// - No line of source, tests, benches or scripts is over 120 characters (Prettier leaves long strings and
//   comments alone).
// - No tracked text file holds a merge-conflict marker (a merge once committed one into docs/protocol.md).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MAX_COLUMNS = 120;
const CODE = /\.(ts|mjs|js|css|sh)$/;
// Git writes these at the start of a line, the first two followed by a space or the line's end.
const CONFLICT_MARKER = /^(<{7}|>{7})( |$)|^={7}$/;

const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { encoding: 'utf8' })
  .split('\n')
  .filter((file) => file && !file.startsWith('tmp-dbg/'));
const problems = [];
for (const file of files) {
  let bytes;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    if (err.code === 'ENOENT' || err.code === 'EISDIR') continue; // deleted in the working tree, or a submodule
    throw err;
  }
  if (bytes.includes(0)) continue; // binary (images)
  const lines = bytes.toString('utf8').split('\n');
  lines.forEach((line, index) => {
    if (CONFLICT_MARKER.test(line)) problems.push(`${file}:${index + 1}: merge-conflict marker`);
    else if (CODE.test(file) && [...line].length > MAX_COLUMNS) {
      problems.push(`${file}:${index + 1}: ${[...line].length} columns (at most ${MAX_COLUMNS})`);
    }
  });
}
if (problems.length > 0) {
  console.error(`${problems.length} problems:\n${problems.join('\n')}`);
  process.exit(1);
}
