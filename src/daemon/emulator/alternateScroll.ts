// Rows that scroll off the top of the alternate screen, kept as history: full-screen programs
// (agents) draw there, where xterm keeps no scrollback, so without this nothing they show survives.
// A row counts when it leaves a scroll region that starts at the screen's top row (the whole screen,
// or the screen above a status line), by a line feed at the bottom margin (LF, IND, NEL, a wrap),
// SU (CSI S) or DL (CSI M) on the top row. Rows leaving a region that starts lower are a pane of
// the program's own, not its output scrolling by; a program that only redraws adds nothing.
import type { Terminal } from '@xterm/headless';
import type { IDisposable } from '../../base/disposable';
import { encodeRows, plainRow } from './historyEncoding';
import { HistoryStore, plainText } from '../common/historyStore';
import { ALTERNATE_MARKER, type AlternateCopy, alternateText } from '../common/sessionText';
export { ALTERNATE_END, ALTERNATE_MARKER, isAlternateMarker } from '../common/sessionText';
import { core, type CoreBufferService, type PackedCell } from './xtermInternals';

/** How many rows a CSI S or CSI M asks for (xterm: 0 or none is 1). */
function countOf(params: (number | number[])[]): number {
  const first = params[0];
  return typeof first === 'number' && first > 0 ? first : 1;
}

export class AlternateScroll implements IDisposable {
  /** Encoded rows (historyEncoding.ts), and ALTERNATE_MARKER where a stay on the alternate screen begins. */
  private readonly store: HistoryStore;
  private readonly cell: PackedCell;
  private active = false;
  /** A row of this stay on the alternate screen is stored (its marker is in front of it). */
  private runStarted = false;
  private readonly bufferService: CoreBufferService;
  /** xterm's own scroll, replaced by one that keeps the leaving row while the alternate screen is active. */
  private readonly scroll: CoreBufferService['scroll'];
  private readonly disposables: IDisposable[];

  constructor(
    private readonly terminal: Terminal,
    /** Lines kept at most (the session's scrollback setting); the oldest go first. */
    scrollback: number,
  ) {
    this.store = new HistoryStore(scrollback);
    this.cell = terminal.buffer.alternate.getNullCell() as PackedCell;
    this.bufferService = core(terminal)._bufferService;
    // eslint-disable-next-line @typescript-eslint/unbound-method -- put back as it was, or called on the service
    this.scroll = this.bufferService.scroll;
    const parser = terminal.parser;
    this.disposables = [
      // Also fires on RIS, which activates the normal buffer.
      terminal.buffer.onBufferChange((buffer) => this.follow(buffer.type === 'alternate')),
      // Custom handlers run before xterm's own: the rows are still there.
      parser.registerCsiHandler({ final: 'S' }, (params) => {
        if (this.active) this.leaving(countOf(params));
        return false;
      }),
      parser.registerCsiHandler({ final: 'M' }, (params) => {
        if (this.active && this.terminal.buffer.alternate.cursorY === 0) this.leaving(countOf(params));
        return false;
      }),
      // ED 3 (what `clear` sends) on the normal screen erases the scrollback: this history is part of it.
      parser.registerCsiHandler({ final: 'J' }, (params) => {
        if (params[0] === 3 && !this.active) this.store.clear();
        return false;
      }),
      parser.registerEscHandler({ final: 'c' }, () => {
        this.store.clear();
        return false;
      }),
    ];
  }

  dispose(): void {
    this.follow(false);
    for (const d of this.disposables) d.dispose();
  }

  setScrollback(lines: number): void {
    this.store.setBudget(lines);
  }

  /** The session went quiet: older blocks are compressed. */
  compact(): void {
    this.store.compress();
  }

  /** Lines readers are shown: the stored ones, a marker in front, ALTERNATE_END after them when `closed`. */
  length(closed: boolean): number {
    const stored = this.store.length;
    if (stored === 0) return 0;
    return stored + (this.startsWithMarker() ? 0 : 1) + (closed ? 1 : 0);
  }

  /**
   * At most `count` lines as text, the newest rows: the first is always the marker (a cut run starts
   * with it too), the last ALTERNATE_END when `closed` and there is room for both.
   */
  lines(count: number, closed: boolean): string[] {
    const copy = this.copy(count, closed);
    return copy ? alternateText(copy) : [];
  }

  /** What lines(count, closed) reads, copied for another thread (alternateText decodes it). */
  copy(count: number, closed: boolean): AlternateCopy | undefined {
    const wanted = Math.min(count, this.length(closed));
    if (wanted <= 0) return undefined;
    const end = closed && wanted > 1;
    const rows = wanted - 1 - (end ? 1 : 0);
    return { stored: rows > 0 ? this.store.copy(this.store.length - rows) : [], end };
  }

  private startsWithMarker(): boolean {
    return this.store.slice(0, 1)[0] === ALTERNATE_MARKER;
  }

  /**
   * xterm's scroll (a line feed at the bottom margin, IND, NEL, a wrap there) is replaced only while
   * the alternate screen is active: the normal screen's output (the flood path) pays nothing.
   */
  private follow(alternate: boolean): void {
    if (alternate === this.active) return;
    this.active = alternate;
    const service = this.bufferService;
    const scroll = this.scroll;
    if (!alternate) {
      service.scroll = scroll;
      return;
    }
    this.runStarted = false;
    service.scroll = (eraseAttr, isWrapped) => {
      this.leaving(1);
      scroll.call(service, eraseAttr, isWrapped);
    };
  }

  /** Keeps the top `count` rows of the alternate screen, about to leave when the region starts at its top. */
  private leaving(count: number): void {
    const buffer = core(this.terminal).buffers.alt;
    if (buffer.scrollTop !== 0) return;
    const cols = this.terminal.cols;
    const rows = Math.min(count, buffer.scrollBottom + 1);
    for (let y = 0; y < rows; y++) {
      // Called inside xterm's parse: never throw there (a missing row is skipped).
      const row = buffer.lines.get(buffer.ybase + y);
      const line = this.terminal.buffer.alternate.getLine(buffer.ybase + y);
      if (!row || !line) continue;
      const encoded = plainRow(row, cols) ?? encodeRows([line], cols, this.cell);
      if (!this.runStarted) {
        // Blank rows before the program's first line (a screen cleared by line feeds) are not history.
        if (plainText(encoded) === '') continue;
        this.store.push(ALTERNATE_MARKER);
        this.runStarted = true;
      }
      this.store.push(encoded);
    }
  }
}
