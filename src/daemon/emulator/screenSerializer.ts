// Writes an emulator's buffers (scrollback, screen, alternate screen) as VT bytes that rebuild
// them cell for cell: text, wide and combined characters, colours, attributes, erased cells with a
// background, and soft wraps. @xterm/addon-serialize was measured against the differential fuzz
// (test/snapshot-fidelity.test.ts) and failed 132 of 300 seeds (pen leaking into the alternate
// screen, background-erased rows, wide characters, emoji modifiers), so this walks the cells itself.
import type { IBuffer, IBufferLine, Terminal } from '@xterm/headless';
import { CONTINUED, joinEncoded } from '../common/historyStore';
import { BG_COLOUR_BITS, type PackedCell } from './xtermInternals';

type Cell = PackedCell;

interface Pen {
  fg: number;
  bg: number;
  underline: string;
}

const DEFAULT_PEN: Pen = { fg: 0, bg: 0, underline: '' };

function underlineKey(cell: Cell): string {
  if (!cell.isUnderline()) return '';
  const style = cell.getUnderlineStyle?.() ?? 1;
  const underlineColour = cell.isUnderlineColorDefault?.() === false ? cell.getUnderlineColor?.() : 'd';
  return `${style}:${underlineColour}`;
}

function samePen(cell: Cell, pen: Pen): boolean {
  return (
    cell.fg === pen.fg &&
    cell.bg === pen.bg &&
    (pen.underline === '' ? !cell.isUnderline() : underlineKey(cell) === pen.underline)
  );
}

/** Colour modes of a packed fg/bg word (xterm.js Attributes.CM_*). */
const enum ColourMode {
  Default = 0,
  Palette16 = 0x1000000,
  Palette256 = 0x2000000,
  Rgb = 0x3000000,
}

function colour(mode: number, value: number, base: number, brightBase: number, extended: number): string {
  switch (mode) {
    case ColourMode.Rgb:
      return `;${extended};2;${(value >> 16) & 0xff};${(value >> 8) & 0xff};${value & 0xff}`;
    case ColourMode.Palette256:
      return `;${extended};5;${value & 0xff}`;
    case ColourMode.Palette16:
      return value < 8 ? `;${base + value}` : `;${brightBase + value - 8}`;
    default:
      return '';
  }
}

/** The attributes a cell (or the emulator's current pen, which has the same methods) is drawn with. */
export function sgrFor(cell: Cell): string {
  let params = '0';
  if (cell.isBold()) params += ';1';
  if (cell.isDim()) params += ';2';
  if (cell.isItalic()) params += ';3';
  if (cell.isUnderline()) {
    const style = cell.getUnderlineStyle?.() ?? 1;
    params += style > 1 ? `;4:${style}` : ';4';
    if (cell.isUnderlineColorDefault?.() === false) {
      const value = cell.getUnderlineColor!();
      params += cell.isUnderlineColorRGB!()
        ? `;58:2::${(value >> 16) & 0xff}:${(value >> 8) & 0xff}:${value & 0xff}`
        : `;58:5:${value}`;
    }
  }
  if (cell.isBlink()) params += ';5';
  if (cell.isInverse()) params += ';7';
  if (cell.isInvisible()) params += ';8';
  if (cell.isStrikethrough()) params += ';9';
  if (cell.isOverline()) params += ';53';
  params += colour(cell.getFgColorMode(), cell.getFgColor(), 30, 90, 38);
  params += colour(cell.getBgColorMode(), cell.getBgColor(), 40, 100, 48);
  return `\x1b[${params}m`;
}

/** An untouched cell: no text, default attributes, and not the right half of a wide character. */
export function isBlankDefault(cell: Cell): boolean {
  return cell.fg === 0 && cell.bg === 0 && cell.getWidth() === 1 && cell.getChars() === '';
}

/** A shell's command marks to replay on rows of the normal buffer: per row, each mark's column and sequence. */
export type RowMarks = ReadonlyMap<number, readonly { x: number; seq: string }[]>;

class LineWriter {
  private pen: Pen = DEFAULT_PEN;
  readonly out: string[] = [];
  private readonly cell: Cell;
  /** The marks of the line being written, and how many of them are out. */
  private marks: readonly { x: number; seq: string }[] = [];
  private marksOut = 0;
  /**
   * The empty last cell a wide character left when it did not fit and wrapped. Its attributes
   * come from the pen the wrap happens with, so the next line's first character is printed with them.
   */
  private wrapPad: Cell | undefined;

  constructor(
    private readonly buffer: IBuffer,
    private readonly cols: number,
  ) {
    this.cell = buffer.getNullCell() as Cell;
  }

  private setPen(cell: Cell): void {
    if (samePen(cell, this.pen)) return;
    this.out.push(sgrFor(cell));
    this.pen = { fg: cell.fg, bg: cell.bg, underline: underlineKey(cell) };
  }

  resetPen(): void {
    if (this.pen === DEFAULT_PEN) return;
    this.out.push('\x1b[0m');
    this.pen = DEFAULT_PEN;
  }

  /** Writes line `y`; `continues` when the next line is its soft-wrapped continuation. */
  writeLine(line: IBufferLine, continues: boolean, nextStartsWide: boolean): void {
    const cell = this.cell;
    const pad = this.wrapPad;
    this.wrapPad = undefined;
    const end = this.lineEnd(line, continues, nextStartsWide);
    const fillToEnd = continues && !this.wrapPad;
    const wrappedWithBackground = line.isWrapped && (line.getCell(0, cell) as Cell).bg !== 0;
    let x = pad ? this.writeAfterPad(line, pad) : 0;
    while (x < end) {
      this.marksUpTo(x);
      line.getCell(x, cell);
      const width = cell.getWidth();
      if (width === 0) {
        x++;
        continue;
      }
      const chars = cell.getChars();
      this.setPen(cell);
      if (chars === '') {
        // A run stops at the next mark, so that the mark goes out where it was.
        x = this.writeEmptyRun(line, x, Math.min(end, this.nextMarkX(x)), fillToEnd);
        continue;
      }
      this.out.push(chars);
      x += width;
    }
    if (fillToEnd && end < this.cols) {
      this.resetPen();
      // Marks in the blank end of a row that wraps on: placed by the spaces, before the wrap.
      for (let at = end; at < this.cols; at = Math.min(this.cols, this.nextMarkX(at))) {
        this.marksUpTo(at);
        this.out.push(' '.repeat(Math.min(this.cols, this.nextMarkX(at)) - at));
      }
      this.marksUpTo(this.cols);
    } else if (this.wrapPad && end < this.cols - 1) {
      // Up to the pad, where the next line's wide character wraps from.
      this.resetPen();
      this.out.push(' '.repeat(this.cols - 1 - end));
    } else if (wrappedWithBackground && end < this.cols) {
      // The wrap that began this line scrolled with a coloured pen, filling the new line with it.
      this.resetPen();
      this.out.push('\x1b[K');
    }
    this.trailingMarks(continues);
  }

  /** Sets the marks of the next line written. */
  setMarks(marks: readonly { x: number; seq: string }[] | undefined): void {
    this.marks = marks ?? [];
    this.marksOut = 0;
  }

  private nextMarkX(after: number): number {
    const next = this.marks[this.marksOut];
    return next && next.x > after ? next.x : Infinity;
  }

  /** The marks printed at or before column `x`. */
  private marksUpTo(x: number): void {
    for (; this.marksOut < this.marks.length && this.marks[this.marksOut].x <= x; this.marksOut++)
      this.out.push(this.marks[this.marksOut].seq);
  }

  /** Marks past the line's text: the cursor goes to each one's column in its row (CHA), unless the row wraps on. */
  private trailingMarks(continues: boolean): void {
    for (; this.marksOut < this.marks.length; this.marksOut++) {
      const { x, seq } = this.marks[this.marksOut];
      if (!continues && x < this.cols) this.out.push(`\x1b[${x + 1}G`);
      this.out.push(seq);
    }
  }

  /** Where the cells to write end: after the last non-blank one; sets wrapPad for a wide wrap. */
  private lineEnd(line: IBufferLine, continues: boolean, nextStartsWide: boolean): number {
    const cell = this.cell;
    let end = this.cols;
    while (end > 0 && isBlankDefault(line.getCell(end - 1, cell) as Cell)) end--;
    // An empty continuation still needs one printed cell, or the wrap onto it never happens.
    if (end === 0 && line.isWrapped) end = 1;
    // A soft-wrapped line must end in the pending-wrap state; a wide character that did not fit
    // leaves one empty cell and wraps by itself.
    if (
      continues &&
      nextStartsWide &&
      line.getCell(this.cols - 1, cell) &&
      cell.getChars() === '' &&
      cell.getWidth() === 1
    ) {
      this.wrapPad = line.getCell(this.cols - 1) as Cell;
      end = Math.min(end, this.cols - 1);
    }
    return end;
  }

  /** The wide character that wrapped from the previous line's pad; returns the column after it. */
  private writeAfterPad(line: IBufferLine, pad: Cell): number {
    const cell = this.cell;
    if (!line.getCell(0, cell) || cell.getWidth() !== 2) return 0;
    // Printed once with the pad's pen (the wrap fills the pad with it), then again over itself.
    const chars = cell.getChars();
    this.setPen(pad);
    this.out.push(chars);
    if (!samePen(cell, this.pen)) {
      this.setPen(cell);
      this.out.push('\r', chars);
    }
    return 2;
  }

  /**
   * A run of empty cells from `x` with the pen already set; returns the column after it. Erasing
   * (ECH) gives cells only the pen's background, so that is used when it is all they have;
   * otherwise spaces draw the same.
   */
  private writeEmptyRun(line: IBufferLine, x: number, end: number, fillToEnd: boolean): number {
    const cell = this.cell;
    const runStart = x;
    const { fg, bg } = cell;
    while (
      x < end &&
      line.getCell(x, cell) &&
      cell.getChars() === '' &&
      cell.getWidth() === 1 &&
      cell.fg === fg &&
      cell.bg === bg
    )
      x++;
    const run = x - runStart;
    // At the start of a soft-wrapped continuation the cursor still waits at the end of the
    // previous line: only a printed character moves it down (an erase would hit that line).
    const erasable = fg === 0 && (bg & ~BG_COLOUR_BITS) === 0 && !(runStart === 0 && line.isWrapped);
    if (!erasable || (x === this.cols && fillToEnd)) this.out.push(' '.repeat(run));
    else {
      this.out.push(`\x1b[${run}X`);
      if (x < this.cols) this.out.push(`\x1b[${run}C`);
    }
    return x;
  }

  /** Lines [from, to) one after another; line breaks scroll earlier lines into the scrollback. */
  writeFlowing(from: number, to: number, marks?: RowMarks): void {
    this.wrapPad = undefined;
    for (let y = from; y < to; y++) {
      const line = this.buffer.getLine(y);
      if (!line) break;
      this.setMarks(marks?.get(y));
      const next = y + 1 < to ? this.buffer.getLine(y + 1) : undefined;
      const continues = !!next?.isWrapped;
      this.writeLine(line, continues, continues && next.getCell(0, this.cell)!.getWidth() === 2);
      if (y + 1 < to && !continues) {
        // Reset first: a line feed that scrolls fills the new line with the current background.
        this.resetPen();
        this.out.push('\r\n');
      }
    }
    this.resetPen();
  }

  /** Screen rows placed absolutely (the alternate screen: nothing may scroll). */
  writePlaced(rows: number): void {
    this.wrapPad = undefined;
    const top = this.buffer.baseY;
    for (let y = 0; y < rows; y++) {
      const line = this.buffer.getLine(top + y);
      if (!line) break;
      const next = y + 1 < rows ? this.buffer.getLine(top + y + 1) : undefined;
      const continues = !!next?.isWrapped;
      if (!line.isWrapped || y === 0) {
        this.resetPen();
        this.out.push(`\x1b[${y + 1};1H`);
      }
      this.setMarks(undefined);
      this.writeLine(line, continues, continues && next.getCell(0, this.cell)!.getWidth() === 2);
    }
    this.resetPen();
  }
}

/**
 * VT bytes for the normal buffer (at most `scrollback` lines above the screen) and, when it is
 * active, the alternate screen. The receiver starts from a reset terminal of the same size.
 * The cursor, modes and pen are left to the caller.
 */
export function serializeBuffers(
  terminal: Terminal,
  scrollback = Infinity,
  history: string[] = [],
  skippedRows = 0,
  /** A shell's command marks on the normal buffer's rows (replayed where they were printed). */
  marks?: RowMarks,
): string {
  const normal = terminal.buffer.normal;
  const rows = terminal.rows;
  const from = Math.max(skippedRows, normal.baseY - scrollback);
  let to = normal.length;
  if (to - from <= rows && history.length === 0) {
    // No scrollback to build: trailing empty rows need not be written.
    const cell = normal.getNullCell();
    while (to > from + 1) {
      const line = normal.getLine(to - 1);
      if (!line || line.isWrapped || marks?.has(to - 1)) break;
      let empty = true;
      for (let x = 0; x < terminal.cols && empty; x++) empty = isBlankDefault(line.getCell(x, cell) as Cell);
      if (!empty) break;
      to--;
    }
  }
  const writer = new LineWriter(normal, terminal.cols);
  // History lines print from column 0 with the default pen and wrap at the receiver's width.
  if (history.length > 0)
    writer.out.push(joinEncoded(history), history[history.length - 1].endsWith(CONTINUED) ? '' : '\r\n');
  writer.writeFlowing(from, to, marks);
  const out = writer.out;
  if (terminal.buffer.active.type === 'alternate') {
    // The normal screen's cursor is what DECSC saves on the switch, so 1049l restores it.
    out.push(`\x1b[${normal.cursorY + 1};${Math.min(normal.cursorX, terminal.cols - 1) + 1}H\x1b[?1049h`);
    const alt = new LineWriter(terminal.buffer.alternate, terminal.cols);
    alt.writePlaced(rows);
    out.push(...alt.out);
  }
  return out.join('');
}
