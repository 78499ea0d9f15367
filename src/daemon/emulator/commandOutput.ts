// The text one command printed, as the session keeps it: from where its output started (the shell's
// C mark, in xterm's rows or, once it scrolled there, in the history store) to the cursor where the
// shell reported its end (D). Logical lines (wrapped rows joined), colours dropped, each line's
// trailing blanks trimmed; what scrolled out of the scrollback is missing (truncated).
import type { Terminal } from '@xterm/headless';
import { RunLimit } from '../../protocol/shell';
import { type HistoryStore, pieceText } from '../common/historyStore';
import { rowText } from './textCopy';

/** Where a command's output starts: a row of xterm's normal buffer, a line of the store, or lost. */
export type OutputStart = { row: number; x: number } | { index: number; x: number } | { lost: true };

export interface CommandOutput {
  text: string;
  truncated: boolean;
}

/** Text of `line` from cell `x` on, as the screen shows it (a wide character counts two cells). */
function fromCell(text: string, x: number): string {
  return x <= 0 ? text : text.slice(Math.min(x, text.length));
}

/**
 * The output from `start` to the normal buffer's cursor. `store`: the history store, whose lines end
 * where xterm's row `skippedRows` begins.
 */
export function commandOutput(
  terminal: Terminal,
  store: HistoryStore | undefined,
  skippedRows: number,
  start: OutputStart,
  limit: number = RunLimit.OutputChars,
): CommandOutput {
  const buffer = terminal.buffer.normal;
  const cursorRow = buffer.baseY + buffer.cursorY;
  const parts: string[] = [];
  let truncated = false;
  let firstRow = skippedRows;
  let firstX = 0;
  if ('row' in start) {
    firstRow = Math.max(start.row, skippedRows);
    firstX = start.row >= skippedRows ? start.x : 0;
  } else if ('lost' in start) {
    // Its start was erased (a clear) or dropped: what the screen shows of it.
    firstRow = Math.max(buffer.baseY, skippedRows);
    truncated = true;
  } else if (store && store.length > 0) {
    truncated = start.index < store.first;
    const lines = store.slice(Math.max(0, start.index - store.first));
    lines.forEach((encoded, i) => {
      const { text, continues } = pieceText(encoded);
      parts.push(i === 0 && !truncated ? fromCell(text, start.x) : text, continues ? '' : '\n');
    });
  } else truncated = start.index < (store?.end ?? 0);
  for (let y = firstRow; y <= cursorRow; y++) {
    const row = buffer.getLine(y);
    if (!row) break;
    if (y > firstRow && !row.isWrapped) parts.push('\n');
    const next = y < cursorRow ? buffer.getLine(y + 1) : undefined;
    let text = y === cursorRow ? row.translateToString(false, 0, buffer.cursorX) : rowText(row, next, terminal.cols);
    if (y === cursorRow) text = text.trimEnd();
    parts.push(y === firstRow ? fromCell(text, firstX) : text);
  }
  let text = parts.join('');
  if (text.length > limit) {
    text = text.slice(text.length - limit);
    truncated = true;
  }
  return { text, truncated };
}

/** The text from row `row`, column `x` of the normal buffer to its cursor, trimmed (what is typed at a prompt). */
export function textFrom(terminal: Terminal, row: number, x: number): string {
  const buffer = terminal.buffer.normal;
  const parts: string[] = [];
  for (let y = row; y <= Math.max(buffer.baseY + buffer.cursorY, row); y++)
    parts.push(buffer.getLine(y)?.translateToString(true, y === row ? x : 0) ?? '');
  return parts.join('').trim();
}
