// How a line of the scrollback is kept in the history store: its text with SGR runs, printed
// from column 0 with the default pen, so that printed at any width it wraps as xterm's reflow would.
// A plain row (the most of a flood) is read straight from xterm's cell words.
import type { IBufferLine } from '@xterm/headless';
import { CONTINUED } from '../common/historyStore';
export { plainText } from '../common/historyStore';
import { isBlankDefault, sgrFor } from './screenSerializer';
import { BG_COLOUR_BITS, CODE_POINT_MASK, COMBINED_MASK, type CoreLine, type PackedCell } from './xtermInternals';

type Cell = PackedCell;

/** A shell's command mark in a logical line being encoded: its row among the line's rows, its column, its sequence. */
export interface EmbeddedMark {
  row: number;
  x: number;
  seq: string;
}

/** sgrFor of the cell, computed again only when its packed attributes change (most cells repeat the last pen). */
function penCache(): (cell: Cell) => string {
  let fg = -1;
  let bg = -1;
  let underline = '';
  let pen = '';
  return (cell) => {
    const ul = cell.isUnderline()
      ? `${cell.getUnderlineStyle?.()}:${cell.getUnderlineColor?.()}:${cell.getUnderlineColorMode?.()}`
      : '';
    if (cell.fg !== fg || cell.bg !== bg || ul !== underline) {
      fg = cell.fg;
      bg = cell.bg;
      underline = ul;
      pen = sgrFor(cell);
    }
    return pen;
  };
}

/**
 * One logical line (a row and its soft-wrapped continuations) as VT bytes that print it from
 * column 0 with the default pen and leave the default pen: printed at any width, the terminal
 * wraps it as xterm's reflow would. Never contains a line feed. (A plain row is plainRow's.)
 */
export function encodeRows(
  rows: IBufferLine[],
  cols: number,
  cell: Cell,
  continuedBy?: IBufferLine,
  /** A shell's command marks on these rows (row index among `rows`, column), in order: kept in place. */
  marks: readonly EmbeddedMark[] = [],
): string {
  const penKey = penCache();
  const cells: { chars: string; pen: string; blank: boolean; erasable: boolean; end: number }[] = [];
  /** Each mark's place: before cells[index]; `col` its offset in the line (rows x cols + column). */
  const placed: { index: number; col: number; seq: string }[] = [];
  let m = 0;
  const placeUpTo = (col: number) => {
    for (; m < marks.length && marks[m].row * cols + marks[m].x <= col; m++)
      placed.push({ index: cells.length, col: marks[m].row * cols + marks[m].x, seq: marks[m].seq });
  };
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    let end = cols;
    const next = rows[r + 1] ?? continuedBy;
    if (next) {
      // A wide character that did not fit in the last column wrapped and left that cell empty.
      if (next.getCell(0, cell) && cell.getWidth() === 2 && row.getCell(cols - 1, cell) && cell.getChars() === '')
        end = cols - 1;
    } else {
      while (end > 0 && row.getCell(end - 1, cell) && isBlankDefault(cell)) end--;
    }
    for (let x = 0; x < end; x++) {
      row.getCell(x, cell);
      const width = cell.getWidth();
      if (width === 0) continue;
      if (m < marks.length) placeUpTo(r * cols + x);
      const chars = cell.getChars();
      const erasable = chars === '' && cell.fg === 0 && (cell.bg & ~BG_COLOUR_BITS) === 0;
      cells.push({ chars, pen: penKey(cell), blank: chars === '', erasable, end: r * cols + x + width });
    }
  }
  placeUpTo(Infinity);
  // Empty cells at the end that carry only a background (an erase with a coloured pen) stay erased,
  // so a later reflow does not count them as text; inside the line they are drawn as spaces.
  let tail = cells.length;
  // A piece that the next one continues must end in the pending-wrap state: spaces, not an erase.
  while (!continuedBy && tail > 0 && cells[tail - 1].erasable && cells[tail - 1].pen === cells[cells.length - 1].pen)
    tail--;
  // Parts joined once: a string built with += is a rope of one node per part in V8, ~20x the
  // size of its text (25 MB per session of 10k coloured lines until the store compressed them).
  const out: string[] = [];
  let pen = '';
  let p = 0;
  for (let i = 0; i < tail; i++) {
    for (; p < placed.length && placed[p].index === i; p++) out.push(placed[p].seq);
    const c = cells[i];
    if (c.pen !== pen) {
      out.push(c.pen);
      pen = c.pen;
    }
    out.push(c.blank ? ' ' : c.chars);
  }
  if (tail < cells.length) {
    const c = cells[tail];
    if (c.pen !== pen) out.push(c.pen);
    out.push(`\x1b[${cells.length - tail}X`);
    pen = c.pen;
  }
  // Marks past the text: the cursor moves there (an erase does not move it), then the mark.
  let at = tail > 0 ? cells[tail - 1].end : 0;
  for (; p < placed.length; p++) {
    if (placed[p].col > at) out.push(`\x1b[${placed[p].col - at}C`);
    at = Math.max(at, placed[p].col);
    out.push(placed[p].seq);
  }
  if (pen !== '' && pen !== '\x1b[0m') out.push('\x1b[0m');
  if (continuedBy) out.push(CONTINUED);
  return out.join('');
}

/**
 * Most lines of a flood have no attributes at all: their encoding is their text, read straight
 * from xterm's cell words. Undefined when a cell has colours, attributes or combined characters.
 */
export function plainRow(line: CoreLine | undefined, cols: number): string | undefined {
  const data = line?._data;
  if (!data || data.length < cols * 3) return undefined;
  // One pass without an early exit: most rows are plain, and a branch per cell cost a third more.
  let marks = 0;
  let end = 0;
  for (let x = 0, i = 0; x < cols; x++, i += 3) {
    const content = data[i];
    marks |= data[i + 1] | data[i + 2] | (content & COMBINED_MASK);
    if (content & CODE_POINT_MASK) end = x + 1;
  }
  return marks === 0 ? line.translateToString(false, 0, end) : undefined;
}
