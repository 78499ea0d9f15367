// A Claude Code stand-in that stops at its permission prompt, for the e2e (run as `node permissionStandIn.js`,
// with the hook options Holdfast puts after the program's name, which it ignores). On the alternate screen, as
// Claude Code 2.1 does, it shows that it works until it reads "p" (the e2e's cue, sent while its tab is in the
// background, as a real agent reaches its prompt while you look elsewhere), then draws the Bash prompt captured
// from the real CLI 2.1.328 (test/fixtures/claude-2.1.328): the 100-column capture, or the 50-column one in a
// narrower terminal, where the wide one would wrap. Then "1" prints "approved", the number of "No" prints
// "denied", as the real one runs or refuses the tool; any other key is ignored; ctrl+c quits.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runOnAlternateScreen } from './fullScreenStandIn';

const FIXTURES = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'claude-2.1.328');
/** The captures, widest first, and the width each was taken at. */
const CAPTURES = [
  { file: 'bash-prompt.json', cols: 100 },
  { file: 'bash-narrow-prompt.json', cols: 50 },
];

function capture(cols: number): string[] {
  const fits = CAPTURES.find((c) => c.cols <= cols);
  if (!fits) throw new Error(`permissionStandIn: a terminal of ${cols} columns is narrower than any capture`);
  const rows = (JSON.parse(fs.readFileSync(path.join(FIXTURES, fits.file), 'utf8')) as string[]).map((r) =>
    r.trimEnd(),
  );
  // The blank rows below the footer are the screen's rest: not written, so a shorter screen keeps the prompt.
  while (rows.length > 0 && rows[rows.length - 1] === '') rows.pop();
  return rows;
}

/** The key of the "No" choice on the captured screen ("4." in " ❯ 1. Yes" … "   4. No"). */
function denyKey(rows: readonly string[]): string {
  const no = rows.map((r) => /^ [❯ ] ([1-9])\. No$/u.exec(r)?.[1]).find((key) => key !== undefined);
  if (!no) throw new Error('permissionStandIn: the capture has no "No" choice');
  return no;
}

/** Where it is: working, at its prompt, or what the prompt was answered. */
let shown: 'working' | 'prompt' | 'approved' | 'denied' = 'working';

runOnAlternateScreen(
  () => (shown === 'working' ? ['✻ Working…'] : shown === 'prompt' ? capture(process.stdout.columns || 80) : [shown]),
  (key) => {
    if (shown === 'working' && key === 'p') shown = 'prompt';
    if (shown !== 'prompt') return;
    if (key === '1') shown = 'approved';
    else if (key === denyKey(capture(process.stdout.columns || 80))) shown = 'denied';
  },
);
