// npm run lint: no line of source, tests, benches or scripts is over 120 characters. Prettier wraps
// code; it leaves long strings and comments alone, so this catches those.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MAX_COLUMNS = 120;
const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '*.ts', '*.mjs', '*.js', '*.css', '*.sh'], {
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => file && !file.startsWith('tmp-dbg/'));
const long = [];
for (const file of files) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') continue; // listed by git but deleted in the working tree
    throw err;
  }
  text.split('\n').forEach((line, index) => {
    if ([...line].length > MAX_COLUMNS) long.push(`${file}:${index + 1}: ${[...line].length} columns`);
  });
}
if (long.length > 0) {
  console.error(`${long.length} lines over ${MAX_COLUMNS} columns:\n${long.join('\n')}`);
  process.exit(1);
}
