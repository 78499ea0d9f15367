// Lines of the history store back as xterm rows (a taller or wider screen pulls them back out of the
// scrollback): printed at the current width by a scratch terminal, with the shell's command marks
// they carry found where they print (shellMarks.ts makes them markers again).
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { Terminal } from '@xterm/headless';
import { CONTINUED } from '../common/historyStore';
import type { FoundMark } from './shellMarks';
import { core } from './xtermInternals';

/** Rows for `encoded` (store lines from index `firstIndex` on) at `terminal`'s width, and the marks in them. */
export function rowsFor(
  terminal: Terminal,
  encoded: string[],
  firstIndex: number,
): { rows: unknown[]; marks: FoundMark[] } {
  // A printed character fills at most one row: room for every row the lines can take.
  const rowsAtMost = encoded.reduce((n, line) => n + line.length + 1, 0);
  const scratch = new Terminal({ cols: terminal.cols, rows: 1, scrollback: rowsAtMost, allowProposedApi: true });
  try {
    scratch.loadAddon(new Unicode11Addon());
    scratch.unicode.activeVersion = terminal.unicode.activeVersion;
    const scratchCore = core(scratch);
    const marks: FoundMark[] = [];
    let index = firstIndex;
    scratch.parser.registerOscHandler(633, (data) => {
      const buffer = scratchCore.buffers.normal;
      marks.push({ row: buffer.ybase + buffer.y, x: buffer.x, data, index });
      return true;
    });
    // Line by line (as joinEncoded joins them), so that each mark knows its line.
    encoded.forEach((line, i) => {
      index = firstIndex + i;
      const last = i === encoded.length - 1;
      scratchCore._writeBuffer.writeSync(line.endsWith(CONTINUED) ? line.slice(0, -1) : last ? line : `${line}\r\n`);
    });
    const lines = scratchCore.buffers.normal.lines;
    const rows: unknown[] = [];
    for (let y = 0; y < lines.length; y++) rows.push(lines.get(y));
    return { rows, marks };
  } finally {
    scratch.dispose();
  }
}
