// Moves lines that scrolled far enough off the screen out of the emulator into the history store:
// the emulator keeps the screen plus a margin of rows; whole logical lines above it are encoded
// (text with SGR runs) and removed from xterm's buffer the way xterm trims its own scrollback.
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { Terminal } from '@xterm/headless';
import type { IBufferCell, IBufferLine } from '@xterm/headless';
import type { IDisposable } from '../protocol/disposable';
import { HistoryStore, HistoryTuning } from './historyStore';
import { sgrFor } from './screenSerializer';

type Cell = IBufferCell & Parameters<typeof sgrFor>[0] & { fg: number; bg: number; getUnderlineColorMode?(): number };

/** Colour mode and value bits of a packed bg word; the rest are attribute flags. */
const BG_COLOUR_BITS = 0x3ffffff;

/** xterm's normal buffer as far as trimming it needs (@xterm/headless 6; the fidelity fuzz checks it). */
interface CoreBuffer {
  lines: {
    length: number;
    maxLength: number;
    get(index: number): { isWrapped: boolean } | undefined;
    trimStart(count: number): void;
    set(index: number, value: unknown): void;
    splice(start: number, deleteCount: number, ...items: unknown[]): void;
  };
  ybase: number;
  ydisp: number;
  savedY: number;
}

function normalBuffer(terminal: Terminal): CoreBuffer {
  return (terminal as unknown as { _core: { buffers: { normal: CoreBuffer } } })._core.buffers.normal;
}

/** sgrFor of the cell, computed again only when its packed attributes change (most cells repeat the last pen). */
function penCache(): (cell: Cell) => string {
  let fg = -1;
  let bg = -1;
  let underline = '';
  let pen = '';
  return (cell) => {
    const ul = cell.isUnderline() ? `${cell.getUnderlineStyle?.()}:${cell.getUnderlineColor?.()}:${cell.getUnderlineColorMode?.()}` : '';
    if (cell.fg !== fg || cell.bg !== bg || ul !== underline) {
      fg = cell.fg;
      bg = cell.bg;
      underline = ul;
      pen = sgrFor(cell);
    }
    return pen;
  };
}

function isBlankDefault(cell: Cell): boolean {
  return cell.fg === 0 && cell.bg === 0 && cell.getWidth() === 1 && cell.getChars() === '';
}

/**
 * One logical line (a row and its soft-wrapped continuations) as VT bytes that print it from
 * column 0 with the default pen and leave the default pen: printed at any width, the terminal
 * wraps it as xterm's reflow would. Never contains a line feed.
 */
export function encodeRows(rows: IBufferLine[], cols: number, cell: Cell): string {
  const penKey = penCache();
  const cells: { chars: string; pen: string; blank: boolean; erasable: boolean }[] = [];
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    let end = cols;
    const next = rows[r + 1];
    if (next) {
      // A wide character that did not fit in the last column wrapped and left that cell empty.
      if (next.getCell(0, cell) && cell.getWidth() === 2 && row.getCell(cols - 1, cell) && cell.getChars() === '') end = cols - 1;
    } else {
      while (end > 0 && row.getCell(end - 1, cell) && isBlankDefault(cell)) end--;
    }
    for (let x = 0; x < end; x++) {
      row.getCell(x, cell);
      if (cell.getWidth() === 0) continue;
      const chars = cell.getChars();
      const erasable = chars === '' && cell.fg === 0 && (cell.bg & ~BG_COLOUR_BITS) === 0;
      cells.push({ chars, pen: penKey(cell), blank: chars === '', erasable });
    }
  }
  // Empty cells at the end that carry only a background (an erase with a coloured pen) stay erased,
  // so a later reflow does not count them as text; inside the line they are drawn as spaces.
  let tail = cells.length;
  while (tail > 0 && cells[tail - 1].erasable && cells[tail - 1].pen === cells[cells.length - 1].pen) tail--;
  let out = '';
  let pen = '';
  for (let i = 0; i < tail; i++) {
    const c = cells[i];
    if (c.pen !== pen) {
      out += c.pen;
      pen = c.pen;
    }
    out += c.blank ? ' ' : c.chars;
  }
  if (tail < cells.length) {
    const c = cells[tail];
    if (c.pen !== pen) out += c.pen;
    out += `\x1b[${cells.length - tail}X`;
    pen = c.pen;
  }
  if (pen !== '' && pen !== '\x1b[0m') out += '\x1b[0m';
  return out;
}

/** The text of an encoded line, as translateToString(true) gives it for the row(s). */
export function plainText(encoded: string): string {
  return encoded.replace(/\x1b\[[0-9;:]*[mX]/g, '').trimEnd();
}

export class HistoryCapture implements IDisposable {
  private readonly cell: Cell;
  /**
   * Rows the saved cursor (DECSC) lies above xterm's first row, once its row went to the store:
   * xterm's savedY stops at 0, and without this a resize that brings rows back would move it down.
   */
  private savedRowsAbove = 0;
  private readonly disposables: IDisposable[];

  constructor(
    private readonly terminal: Terminal,
    readonly store: HistoryStore,
    /**
     * Logical lines of scrollback the emulator keeps, at least the screen's height: a taller screen
     * or a wider one (rows joining) pulls lines back from the scrollback, and xterm must have them.
     */
    private readonly margin: number,
  ) {
    this.cell = terminal.buffer.normal.getNullCell() as Cell;
    const parser = terminal.parser;
    const saved = () => {
      if (terminal.buffer.active.type === 'normal') this.savedRowsAbove = 0;
      return false;
    };
    this.disposables = [
      // Every way a program saves the cursor (DECSC, SCOSC, modes 1048/1049, DECSTR) sets a new savedY.
      parser.registerEscHandler({ final: '7' }, saved),
      parser.registerCsiHandler({ final: 's' }, saved),
      parser.registerCsiHandler({ prefix: '?', final: 'h' }, (params) => (params.some((p) => p === 1048 || p === 1049) ? saved() : false)),
      parser.registerCsiHandler({ intermediates: '!', final: 'p' }, saved),
      // ED 3 (what `clear` sends) erases the scrollback: the store is part of it.
      parser.registerCsiHandler({ final: 'J' }, (params) => {
        if (params[0] === 3 && terminal.buffer.active.type === 'normal') this.store.clear();
        return false;
      }),
    ];
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  private keep(rows = this.terminal.rows): number {
    return Math.max(this.margin, rows);
  }

  /** Index of the first row of the oldest logical line that stays; 0 when all stay. */
  private keptFrom(buffer: CoreBuffer, keep: number): number {
    let starts = 0;
    for (let y = buffer.ybase - 1; y >= 0; y--) {
      if (!buffer.lines.get(y)?.isWrapped && ++starts === keep) return y;
    }
    return 0;
  }

  /** Logical lines in xterm's scrollback (a line that continues onto the screen counts). */
  private linesAbove(buffer: CoreBuffer): number {
    let starts = 0;
    for (let y = buffer.ybase - 1; y >= 0; y--) if (!buffer.lines.get(y)?.isWrapped) starts++;
    return starts;
  }

  private lastCapture = 0;

  /** After a parse: captures when enough rows have gathered and the last capture is not too recent. */
  captureIfDue(): void {
    if (normalBuffer(this.terminal).ybase < this.keep() + HistoryTuning.CaptureRows) return;
    const now = Date.now();
    if (now - this.lastCapture < HistoryTuning.CaptureIntervalMs) return;
    this.capture();
  }

  /** Lines of the store that belong to the scrollback now (xterm's rows above the screen come after them). */
  get storedInScrollback(): number {
    return Math.min(this.store.length, Math.max(0, (this.terminal.options.scrollback ?? 0) - normalBuffer(this.terminal).ybase));
  }

  /** Moves logical lines above the kept margin into the store. Safe whenever no parse is running. */
  capture(): void {
    this.lastCapture = Date.now();
    const buffer = normalBuffer(this.terminal);
    const scrollback = this.terminal.options.scrollback ?? 0;
    if (buffer.ybase > this.keep()) {
      this.store.setBudget(scrollback);
      this.moveAbove(buffer, this.keptFrom(buffer, this.keep()));
    }
    // The scrollback setting counts xterm's rows above the screen and the store's lines together.
    this.store.setBudget(Math.max(0, scrollback - buffer.ybase));
  }

  private moveAbove(buffer: CoreBuffer, until: number): void {
    if (until === 0) return;
    const normal = this.terminal.buffer.normal;
    let start = 0;
    while (start < until) {
      let end = start + 1;
      while (end < until && normal.getLine(end)?.isWrapped) end++;
      const rows: IBufferLine[] = [];
      for (let y = start; y < end; y++) rows.push(normal.getLine(y)!);
      this.store.push(encodeRows(rows, this.terminal.cols, this.cell));
      start = end;
    }
    // trimStart leaves the rows referenced in its ring until the slots are reused: let them go now.
    for (let y = 0; y < until; y++) buffer.lines.set(y, undefined);
    // As xterm does when its scrollback setting shrinks (Buffer.resize).
    buffer.lines.trimStart(until);
    buffer.ybase = Math.max(buffer.ybase - until, 0);
    buffer.ydisp = Math.max(buffer.ydisp - until, 0);
    if (buffer.savedY < until) this.savedRowsAbove += until - buffer.savedY;
    buffer.savedY = Math.max(buffer.savedY - until, 0);
  }

  /** Before a resize to `rows`: brings lines back from the store so that xterm holds the margin. */
  prepareResize(rows: number): void {
    const buffer = normalBuffer(this.terminal);
    const missing = Math.min(this.keep(rows) - this.linesAbove(buffer), this.store.length);
    if (missing <= 0) return;
    const restored = this.rowsFor(this.store.slice(this.store.length - missing));
    if (buffer.lines.length + restored.length > buffer.lines.maxLength) return;
    this.store.takeNewest(missing);
    buffer.lines.splice(0, 0, ...restored);
    buffer.ybase += restored.length;
    buffer.ydisp += restored.length;
    const savedY = buffer.savedY + restored.length - this.savedRowsAbove;
    buffer.savedY = Math.max(savedY, 0);
    this.savedRowsAbove = Math.max(-savedY, 0);
  }

  /** Buffer rows at the current width for encoded lines, printed by a scratch terminal. */
  private rowsFor(encoded: string[]): unknown[] {
    const scratch = new Terminal({ cols: this.terminal.cols, rows: 1, scrollback: encoded.length * this.terminal.cols + 1, allowProposedApi: true });
    try {
      scratch.loadAddon(new Unicode11Addon());
      scratch.unicode.activeVersion = this.terminal.unicode.activeVersion;
      const core = (scratch as unknown as { _core: { _writeBuffer: { writeSync(data: string): void }; buffers: { normal: CoreBuffer } } })._core;
      core._writeBuffer.writeSync(encoded.join('\r\n'));
      const lines = core.buffers.normal.lines;
      const rows: unknown[] = [];
      for (let y = 0; y < lines.length; y++) rows.push(lines.get(y));
      return rows;
    } finally {
      scratch.dispose();
    }
  }
}
