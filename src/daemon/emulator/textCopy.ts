// Copies an emulator's active buffer for the readers of sessionText.ts: the rows as text (a row
// that wraps on keeps its spaces), the history store's and the alternate rows' blocks as they are.
import type { IBuffer, IBufferLine, Terminal } from '@xterm/headless';
import type { StoredLines } from '../common/historyStore';
import type { AlternateCopy, SessionTextCopy } from '../common/sessionText';

/** A row's text; when the next row continues it, with its trailing spaces (text) but not a wide character's gap. */
export function rowText(row: IBufferLine, next: IBufferLine | undefined, cols: number): string {
  if (!next?.isWrapped) return row.translateToString(true);
  const text = row.translateToString(false);
  // A wide character that did not fit in the last column wrapped and left that cell empty.
  const last = row.getCell(cols - 1);
  if (last && last.getChars() === '' && last.getWidth() === 1 && next.getCell(0)?.getWidth() === 2)
    return text.slice(0, -1);
  return text;
}

/** The first row of the logical line that holds row `y`, not above `top`. */
function lineStart(buffer: IBuffer, y: number, top: number): number {
  while (y > top && buffer.getLine(y)?.isWrapped) y--;
  return y;
}

/**
 * The active buffer's text from row `top` (the first row the history store does not hold) with
 * `history`; without, from the start of the line that holds the screen's top row.
 */
export function copyText(
  terminal: Terminal,
  top: number,
  history: { stored: StoredLines; alternate?: AlternateCopy } | undefined,
): SessionTextCopy {
  const buffer = terminal.buffer.active;
  const from = history ? top : lineStart(buffer, buffer.baseY, top);
  const end = buffer.baseY + terminal.rows;
  const rows: string[] = [];
  const wrapped: boolean[] = [];
  let row = buffer.getLine(from);
  for (let y = from; y < end; y++) {
    const next = y + 1 < end ? buffer.getLine(y + 1) : undefined;
    rows.push(row ? rowText(row, next, terminal.cols) : '');
    // The first row continues a stored piece, or (without history) starts its line.
    wrapped.push((y > from || !!history) && !!row?.isWrapped);
    row = next;
  }
  return {
    ...(history?.alternate ? { alternate: history.alternate } : {}),
    stored: history?.stored ?? [],
    rows,
    wrapped,
    screenRow: buffer.baseY - from,
  };
}
