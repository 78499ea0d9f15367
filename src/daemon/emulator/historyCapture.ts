// Moves lines that scrolled far enough off the screen out of the emulator into the history store:
// the emulator keeps the screen plus a margin of rows; whole logical lines above it are encoded
// (historyEncoding.ts) after every parsed slice. The encoded rows stay in xterm's buffer until
// xterm recycles them for new rows (a flood allocates nothing per line) or the session goes quiet
// (compact), when they are removed the way xterm trims its own scrollback.
// A flood (a whole scrollback captured since the session was last quiet, and the parser still behind
// by DeferAfterBacklogBytes) defers the encoding: xterm keeps the whole scrollback as rows and drops
// what scrolls past it itself, so only the lines still there when the session goes quiet are encoded
// (most of a flood never is). The rows this holds are bounded per thread (DeferredCellsPerThread);
// past that a session captures as it goes.
import type { IBufferLine, Terminal } from '@xterm/headless';
import type { IDisposable } from '../../base/disposable';
import { encodeRows, plainRow } from './historyEncoding';
import { rowsFor } from './historyRows';
import { type HistoryStore, HistoryTuning } from '../common/historyStore';
import type { ShellMarks } from './shellMarks';
import { core, type CoreBuffer, type PackedCell } from './xtermInternals';

type Cell = PackedCell;

/** Cells of xterm rows this thread's deferring sessions may still take (each worker has its own). */
let deferrableCells: number = HistoryTuning.DeferredCellsPerThread;

function buffers(terminal: Terminal): { normal: CoreBuffer; alt: CoreBuffer } {
  return core(terminal).buffers;
}

function normalBuffer(terminal: Terminal): CoreBuffer {
  return buffers(terminal).normal;
}

/**
 * Sets xterm's scrollback, which resizes both buffers to their own size; that also resets their
 * scroll regions, which a program's region must survive.
 */
function setXtermScrollback(terminal: Terminal, rows: number): void {
  if (terminal.options.scrollback === rows) return;
  const { normal, alt } = buffers(terminal);
  const regions = [normal.scrollTop, normal.scrollBottom, alt.scrollTop, alt.scrollBottom];
  terminal.options.scrollback = rows;
  [normal.scrollTop, normal.scrollBottom, alt.scrollTop, alt.scrollBottom] = regions;
}

export class HistoryCapture implements IDisposable {
  private readonly cell: Cell;
  /**
   * Rows the saved cursor (DECSC) lies above xterm's first row, once its row went to the store:
   * xterm's savedY stops at 0, and without this a resize that brings rows back would move it down.
   */
  private savedRowsAbove = 0;
  /** Rows at the top of xterm's normal buffer that are already in the store (whole logical lines). */
  private capturedRows = 0;
  /** Rows xterm dropped before they were captured: always 0 unless a slice outgrew its bound. */
  lostRows = 0;
  /** Cells taken from the thread's budget while capture is deferred (a flood); 0 when capturing as it goes. */
  private deferredCells = 0;
  /** Lines captured since the session was last quiet: a flood has filled the scrollback once before it defers. */
  private capturedSinceQuiet = 0;
  private tracked: CoreBuffer['lines'] | undefined;
  private trimListener: IDisposable | undefined;
  private readonly disposables: IDisposable[];
  /** A shell's command marks: those on a captured line go into the store with it, and come back with it. */
  marks: Pick<ShellMarks, 'firstRow' | 'take' | 'restore'> | undefined;

  constructor(
    private readonly terminal: Terminal,
    readonly store: HistoryStore,
    /**
     * Logical lines of scrollback the emulator keeps, at least the screen's height: a taller screen
     * or a wider one (rows joining) pulls lines back from the scrollback, and xterm must have them.
     */
    private readonly margin: number,
    /** Lines above the screen the session keeps in all (xterm's rows and the store's lines). */
    private scrollback: number,
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
      parser.registerCsiHandler({ prefix: '?', final: 'h' }, (params) =>
        params.some((p) => p === 1048 || p === 1049) ? saved() : false,
      ),
      parser.registerCsiHandler({ intermediates: '!', final: 'p' }, saved),
      // ED 3 (what `clear` sends) erases the scrollback: the store is part of it.
      parser.registerCsiHandler({ final: 'J' }, (params) => {
        if (params[0] === 3 && terminal.buffer.active.type === 'normal') this.clear();
        return false;
      }),
      // RIS replaces xterm's buffers: the scrollback starts again.
      parser.registerEscHandler({ final: 'c' }, () => {
        this.clear();
        return false;
      }),
    ];
    this.track(normalBuffer(terminal));
  }

  dispose(): void {
    this.giveBackCells();
    this.trimListener?.dispose();
    for (const d of this.disposables) d.dispose();
  }

  private clear(): void {
    this.store.clear();
    this.capturedRows = 0;
  }

  /** Rows at the top of xterm's buffer that readers skip: the store has them. */
  get skippedRows(): number {
    return this.capturedRows;
  }

  /** Lines of the store that belong to the scrollback now (xterm's uncaptured rows come after them). */
  get storedInScrollback(): number {
    return Math.min(
      this.store.length,
      Math.max(0, this.scrollback - this.uncapturedAbove(normalBuffer(this.terminal))),
    );
  }

  setScrollback(lines: number): void {
    this.scrollback = lines;
    this.compact();
    setXtermScrollback(this.terminal, lines);
    this.limitRows();
    this.capture();
  }

  private keep(rows = this.terminal.rows): number {
    return Math.max(this.margin, rows);
  }

  /** Most rows the kept lines may span above the screen; a longer line is cut there. */
  private keptRows(): number {
    return this.keep() + HistoryTuning.KeptRowSlack;
  }

  private uncapturedAbove(buffer: CoreBuffer): number {
    return Math.max(0, buffer.ybase - this.capturedRows);
  }

  /**
   * xterm's normal buffer holds the kept rows plus what one slice can add (at most one row per
   * byte), so that it only ever drops rows already captured. Its scrollback option stays the full
   * setting, so that a resize's reflow has room (xterm sizes the buffer from it on every resize);
   * changing the option would also resize the alternate buffer. Never below what it holds now.
   */
  private limitRows(): void {
    const lines = normalBuffer(this.terminal).lines;
    const above = this.deferring ? this.scrollback : this.eagerRowsAbove();
    const limit = this.terminal.rows + above;
    const maxLength = Math.max(lines.length, limit);
    if (lines.maxLength !== maxLength) lines.maxLength = maxLength;
  }

  /** Rows above the screen xterm holds while capturing as it goes. */
  private eagerRowsAbove(): number {
    return Math.min(this.scrollback, this.keptRows() + HistoryTuning.SliceBytes);
  }

  get deferring(): boolean {
    return this.deferredCells > 0;
  }

  /**
   * Defers capture while the session floods, if the thread's budget has room for the whole
   * scrollback as xterm rows (and it is more than xterm holds anyway).
   */
  private defer(): void {
    const cells = (this.terminal.rows + this.scrollback) * this.terminal.cols;
    if (this.scrollback <= this.eagerRowsAbove() || cells > deferrableCells) return;
    deferrableCells -= cells;
    this.deferredCells = cells;
    this.limitRows();
  }

  private giveBackCells(): void {
    deferrableCells += this.deferredCells;
    this.deferredCells = 0;
  }

  /** Follows xterm's trims of its buffer (a new buffer after RIS or a resize is followed anew). */
  private track(buffer: CoreBuffer): void {
    if (this.tracked === buffer.lines) return;
    this.trimListener?.dispose();
    this.tracked = buffer.lines;
    this.capturedRows = 0;
    this.limitRows();
    this.trimListener = buffer.lines.onTrim((count) => {
      // While deferring, xterm drops what scrolled past the scrollback: lines not worth encoding.
      if (count > this.capturedRows && !this.deferring) this.lostRows += count - this.capturedRows;
      this.capturedRows = Math.max(0, this.capturedRows - count);
    });
  }

  /** Index of the first row that stays uncaptured: `keep` logical lines, at most keptRows() rows. */
  private keptFrom(buffer: CoreBuffer): number {
    const keep = this.keep();
    const lowest = Math.max(0, buffer.ybase - this.keptRows());
    let starts = 0;
    for (let y = buffer.ybase - 1; y >= lowest; y--) {
      if (!buffer.lines.get(y)?.isWrapped && ++starts === keep) return y;
    }
    return lowest;
  }

  /** Logical lines in xterm's scrollback (a line that continues onto the screen counts). */
  private linesAbove(buffer: CoreBuffer): number {
    let starts = 0;
    for (let y = buffer.ybase - 1; y >= this.capturedRows; y--) if (!buffer.lines.get(y)?.isWrapped) starts++;
    return starts;
  }

  /**
   * Encodes the logical lines above the kept ones into the store, unless capture is deferred: `backlog`
   * is the bytes still to parse. Safe whenever no parse is running.
   */
  capture(backlog = 0): void {
    const buffer = normalBuffer(this.terminal);
    this.track(buffer);
    if (
      !this.deferring &&
      backlog >= HistoryTuning.DeferAfterBacklogBytes &&
      this.capturedSinceQuiet >= this.scrollback
    )
      this.defer();
    // While deferring nothing is encoded; the store's lines still give way to xterm's rows (below).
    const until = this.deferring ? 0 : this.keptFrom(buffer);
    if (until > this.capturedRows) {
      this.store.setBudget(this.scrollback);
      const normal = this.terminal.buffer.normal;
      let start = this.capturedRows;
      while (start < until) {
        let end = start + 1;
        while (end < until && buffer.lines.get(end)?.isWrapped) end++;
        // The last piece may be cut from a line that goes on in the rows xterm keeps.
        const continuedBy = end === until ? normal.getLine(until) : undefined;
        const cut = continuedBy?.isWrapped ? continuedBy : undefined;
        const marks = this.marks && this.marks.firstRow < end ? this.marks.take(start, end, this.store.end) : [];
        const plain =
          end === start + 1 && !cut && marks.length === 0
            ? plainRow(buffer.lines.get(start), this.terminal.cols)
            : undefined;
        this.capturedSinceQuiet++;
        if (plain !== undefined) this.store.push(plain);
        else {
          const rows: IBufferLine[] = [];
          for (let y = start; y < end; y++) rows.push(normal.getLine(y)!);
          this.store.push(encodeRows(rows, this.terminal.cols, this.cell, cut, marks));
        }
        start = end;
      }
      this.capturedRows = until;
    }
    // The scrollback setting counts xterm's uncaptured rows and the store's lines together.
    this.store.setBudget(Math.max(0, this.scrollback - this.uncapturedAbove(buffer)));
  }

  /**
   * Captures (ending a deferral), then removes the captured rows from xterm's buffer (the session is
   * quiet); returns how many.
   */
  compact(): number {
    this.giveBackCells();
    this.capture();
    this.capturedSinceQuiet = 0;
    this.store.compress();
    const buffer = normalBuffer(this.terminal);
    const until = this.capturedRows;
    if (until > 0) {
      // trimStart leaves the rows referenced in its ring until the slots are reused: let them go now.
      for (let y = 0; y < until; y++) buffer.lines.set(y, undefined);
      // As xterm does when its scrollback setting shrinks (Buffer.resize).
      buffer.lines.trimStart(until);
      this.capturedRows = 0;
      buffer.ybase = Math.max(buffer.ybase - until, 0);
      buffer.ydisp = Math.max(buffer.ydisp - until, 0);
      if (buffer.savedY < until) this.savedRowsAbove += until - buffer.savedY;
      buffer.savedY = Math.max(buffer.savedY - until, 0);
    }
    // A deferral's room goes with it: the next flood must not fill it with new rows.
    this.limitRows();
    return until;
  }

  /** Before a resize to `rows`: compacts and brings lines back from the store so that xterm holds the margin. */
  prepareResize(rows: number): void {
    this.compact();
    const buffer = normalBuffer(this.terminal);
    // Room for the restored rows; xterm's resize then sizes the buffer from the full setting.
    buffer.lines.maxLength = Math.max(buffer.lines.length, this.terminal.rows + this.scrollback);
    const missing = Math.min(this.keep(rows) - this.linesAbove(buffer), this.store.length);
    if (missing <= 0) return;
    const { rows: restored, marks } = rowsFor(
      this.terminal,
      this.store.slice(this.store.length - missing),
      this.store.end - missing,
    );
    if (buffer.lines.length + restored.length > buffer.lines.maxLength) return;
    this.store.takeNewest(missing);
    buffer.lines.splice(0, 0, ...restored);
    this.marks?.restore(marks);
    buffer.ybase += restored.length;
    buffer.ydisp += restored.length;
    const savedY = buffer.savedY + restored.length - this.savedRowsAbove;
    buffer.savedY = Math.max(savedY, 0);
    this.savedRowsAbove = Math.max(-savedY, 0);
  }

  afterResize(): void {
    this.compact();
    this.limitRows();
  }
}
