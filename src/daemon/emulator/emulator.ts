// The session's headless terminal: parses everything the program writes, knows the exact screen,
// tracks how far parsing has got, and answers terminal queries when no input owner is attached.
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { Terminal } from '@xterm/headless';
import { Emitter, type IDisposable } from '../../base/disposable';
import { TextLimit } from '../../protocol/limits';
import { VERSION } from '../../protocol/version';
import { AlternateScroll } from './alternateScroll';
import type { PromptMark } from '../sessions/attention';
import { HistoryCapture } from './historyCapture';
import { HistoryStore, HistoryTuning } from '../common/historyStore';
import { registerReports } from './programReports';
import { ParseQueue } from './parseQueue';
import { linesToSkip } from './plainRun';
import { linesToRead, type SessionTextCopy } from '../common/sessionText';
import { ShellMarks } from './shellMarks';
import { renderSnapshot } from './snapshot';
import { copyText } from './textCopy';
import { checkXtermInternals, core } from './xtermInternals';

export interface EmulatorOptions {
  cols: number;
  rows: number;
  scrollback: number;
  /**
   * Rows of scrollback xterm keeps beyond the screen's height; older lines move to the compact
   * history store (historyStore.ts). Null: all scrollback stays in xterm's buffer (for tests).
   */
  historyMargin?: number | null;
  /** The agent whose permission prompt its worker watches the screen for (promptWatch.ts), if any. */
  promptProfile?: string;
  /** The VSCODE_NONCE its shell was started with: the command lines that carry it are trusted. */
  shellNonce?: string;
}

/** A snapshot's shell marks: none, with trusted command lines signed by the nonce, or without it (on disk). */
export type MarkReplay = 'none' | 'signed' | 'unsigned';

/**
 * xterm keeps only the screen's height of scrollback (what a resize may pull back onto the screen):
 * a row in xterm's buffer costs 12 bytes per column, a line in the store 2-25 bytes once compressed.
 */
const DEFAULT_HISTORY_MARGIN = 0;

/** Most bytes parsed at once while capture is deferred or off (a restored screen may be megabytes). */
const STEP_BYTES = 64 * 1024;

/** Colours reported to OSC 10/11/12 queries when the daemon answers (a dark theme's defaults). */
const QUERY_COLOURS: Record<number, string> = {
  10: 'rgb:d4d4/d4d4/d4d4',
  11: 'rgb:1e1e/1e1e/1e1e',
  12: 'rgb:d4d4/d4d4/d4d4',
};

export class Emulator implements IDisposable {
  readonly terminal: Terminal;
  private readonly history: HistoryCapture | undefined;
  private readonly alternate: AlternateScroll;
  /** Its shell's command marks (VS Code's OSC 633) and what they say. */
  readonly shell: ShellMarks;
  private readonly disposables: IDisposable[] = [];
  private readonly queue: ParseQueue;
  /** Plain text skipped (plainRun.ts) until the session was last quiet: more since, and the flood is skipped. */
  private skippedWhenQuiet = 0;
  private titleText = '';
  private scrollbackLines: number;
  /** When false, an attached input owner's terminal answers queries instead of us. */
  answerQueries = true;

  private readonly onParsedEmitter = new Emitter<number>();
  /**
   * Fires synchronously right after chunks are parsed (how many: more than one when plain text was
   * skipped): the screen is exactly at `parsed`.
   */
  readonly onParsed = this.onParsedEmitter.event;
  /** Plain text that scrolls out of all the session keeps is skipped (plainRun.ts); off while a base screen parses. */
  skipsPlainText = true;
  private readonly onReplyEmitter = new Emitter<string>();
  /** Bytes the terminal sends back to the program (query answers). */
  readonly onReply = this.onReplyEmitter.event;
  private readonly onTitleEmitter = new Emitter<string>();
  readonly onTitle = this.onTitleEmitter.event;
  private readonly onBellEmitter = new Emitter<void>();
  readonly onBell = this.onBellEmitter.event;
  private readonly onPromptMarkEmitter = new Emitter<PromptMark>();
  /** OSC 133 A-D: a shell's prompt, input, command start and end. */
  readonly onPromptMark = this.onPromptMarkEmitter.event;
  private readonly onCwdEmitter = new Emitter<string>();
  readonly onCwd = this.onCwdEmitter.event;
  private readonly onErrorEmitter = new Emitter<Error>();
  /** The emulator threw while parsing (an xterm.js bug); the chunk's rest is dropped, parsing goes on. */
  readonly onError = this.onErrorEmitter.event;

  constructor(options: EmulatorOptions) {
    checkXtermInternals();
    this.terminal = new Terminal({
      cols: options.cols,
      rows: options.rows,
      scrollback: options.scrollback,
      allowProposedApi: true,
      // Size reports (CSI 18 t / 19 t) are answered by the emulator itself once allowed.
      windowOptions: { getWinSizeChars: true, getScreenSizeChars: true },
    });
    this.terminal.loadAddon(new Unicode11Addon());
    this.terminal.unicode.activeVersion = '11';
    const parse = this.containParseErrors();
    const margin = options.historyMargin === undefined ? DEFAULT_HISTORY_MARGIN : options.historyMargin;
    this.scrollbackLines = options.scrollback;
    if (margin !== null)
      this.history = new HistoryCapture(
        this.terminal,
        new HistoryStore(options.scrollback),
        margin,
        options.scrollback,
      );
    this.shell = new ShellMarks(this.terminal, options.shellNonce);
    if (this.history) [this.history.marks, this.shell.history] = [this.shell, this.history];
    this.queue = this.parseQueue(parse);
    this.alternate = new AlternateScroll(this.terminal, options.scrollback);
    const parser = this.terminal.parser;
    this.disposables.push(
      this.alternate,
      this.terminal.onData((data) => this.answerQueries && this.onReplyEmitter.fire(data)),
      this.terminal.onBinary((data) => this.answerQueries && this.onReplyEmitter.fire(data)),
      this.terminal.onTitleChange((title) => {
        // A program's title is cut, not refused: a 9 MB one made every list and checkpoint 9 MB.
        this.titleText = title.slice(0, TextLimit.Title);
        this.onTitleEmitter.fire(this.titleText);
      }),
      this.terminal.onBell(() => this.onBellEmitter.fire()),
      ...registerReports(parser, {
        bell: () => this.onBellEmitter.fire(),
        promptMark: (mark) => this.onPromptMarkEmitter.fire(mark),
        cwd: (cwd) => this.onCwdEmitter.fire(cwd),
      }),
      // Queries the headless terminal does not answer itself.
      ...[10, 11, 12].map((ident) =>
        parser.registerOscHandler(ident, (data) => {
          if (data !== '?') return false;
          this.reply(`\x1b]${ident};${QUERY_COLOURS[ident]}\x1b\\`);
          return true;
        }),
      ),
      parser.registerCsiHandler({ prefix: '>', final: 'q' }, () => {
        this.reply(`\x1bP>|holdfast(${VERSION})\x1b\\`);
        return true;
      }),
    );
  }

  /** The parse loop: slices captured one by one unless capture is deferred, plain text skipped where it may be. */
  private parseQueue(parse: (data: Uint8Array, promiseResult: boolean) => unknown): ParseQueue {
    const history = this.history;
    return new ParseQueue({
      // Captured after each slice unless capture is deferred: xterm's scrollback holds what one slice adds.
      stepBytes: () => (history && !history.deferring ? HistoryTuning.SliceBytes : STEP_BYTES),
      parse: (piece, left) => {
        parse(piece, false);
        // A flood (much left to parse) defers capture, unless its text is skipped: deferring holds the
        // whole scrollback as xterm's rows (made anew for each flood), which skipped text never fills.
        history?.capture(this.queue.skippedInAll > this.skippedWhenQuiet ? 0 : left);
      },
      chunksParsed: (count) => this.onParsedEmitter.fire(count),
      linesToSkip: () => (this.skipsPlainText ? linesToSkip(this.terminal, this.scrollbackLines) : undefined),
    });
  }

  /**
   * An exception inside xterm.js's parser (the fidelity fuzz found one in erase-in-display) escapes
   * from the parse loop (ours, or xterm's write buffer for a direct write), which then parses no
   * other byte: the session would be wedged. Catching it around the parse of one piece keeps it going.
   */
  private containParseErrors(): (data: Uint8Array, promiseResult: boolean) => unknown {
    const writeBuffer = core(this.terminal)._writeBuffer;
    const parse = writeBuffer._action;
    return (writeBuffer._action = (data, promiseResult) => {
      try {
        return parse(data, promiseResult);
      } catch (err) {
        this.onErrorEmitter.fire(err as Error);
        return undefined;
      }
    });
  }

  private reply(data: string): void {
    if (this.answerQueries) this.onReplyEmitter.fire(data);
  }

  /** Queues `chunk`: it is parsed in later turns of the thread's loop, onParsed fires once it is. */
  write(chunk: Uint8Array): void {
    this.queue.write(chunk);
  }

  /** Bytes written but not parsed yet. */
  get backlog(): number {
    return this.queue.backlog;
  }

  get parsed(): number {
    return this.queue.parsed;
  }

  /** False while the screen is not what it would be had skipped plain text been parsed (until the next cut). */
  get exact(): boolean {
    return this.queue.exact;
  }

  /** Bytes of plain text skipped, not parsed (plainRun.ts), since the emulator was made. */
  get plainBytesSkipped(): number {
    return this.queue.skippedInAll;
  }

  get title(): string {
    return this.titleText;
  }

  get inSynchronizedUpdate(): boolean {
    return this.terminal.modes.synchronizedOutputMode;
  }

  resize(cols: number, rows: number): void {
    // As xterm: the same size is no resize (which would reset the scroll region).
    if (cols === this.terminal.cols && rows === this.terminal.rows) return;
    this.history?.prepareResize(rows);
    this.terminal.resize(cols, rows);
    // A smaller screen pushes rows into the scrollback.
    this.history?.afterResize();
  }

  /** Lines kept above the screen (lowering it drops the oldest). */
  get scrollback(): number {
    return this.scrollbackLines;
  }

  set scrollback(lines: number) {
    if (lines === this.scrollbackLines) return;
    this.scrollbackLines = lines;
    this.alternate.setScrollback(lines);
    if (this.history) this.history.setScrollback(lines);
    else this.terminal.options.scrollback = lines;
  }

  /** Only valid when called from an onParsed listener or with an empty backlog. */
  snapshot(scrollback?: number, marks: MarkReplay = 'none'): string {
    let history = this.historyVt(scrollback);
    if (marks === 'unsigned') history = this.shell.unsigned(history);
    const shellMarks = marks === 'none' ? undefined : this.shell.snapshotMarks(marks === 'signed');
    return renderSnapshot(this.terminal, this.titleText, scrollback, history, this.skippedRows, shellMarks);
  }

  /** Rows at the top of xterm's buffer already in the history store: readers start below them. */
  private get skippedRows(): number {
    return this.history?.skippedRows ?? 0;
  }

  /** Lines above the normal screen, in xterm or in the store. */
  get hasScrollback(): boolean {
    return this.historyLength > 0 || this.terminal.buffer.normal.baseY > this.skippedRows;
  }

  /** Lines of the scrollback held in the history store (outside xterm's buffer). */
  get historyLength(): number {
    return this.history?.storedInScrollback ?? 0;
  }

  /**
   * Moves the scrollback beyond the kept margin into the history store, and lets the garbage
   * collector return xterm's rows: the session went quiet. Only valid with an empty backlog.
   * Returns the bytes of xterm's rows let go (12 a cell), garbage for the collector.
   */
  compactHistory(): number {
    this.skippedWhenQuiet = this.queue.skippedInAll;
    this.alternate.compact();
    return (this.history?.compact() ?? 0) * this.terminal.cols * 12;
  }

  /** Rows xterm dropped before they reached the store (must stay 0; for tests). */
  get historyLostRows(): number {
    return this.history?.lostRows ?? 0;
  }

  /** Bytes the history store holds (for the bench). */
  get historyBytes(): number {
    return this.history?.store.footprint ?? 0;
  }

  /** Stored history lines that a snapshot with `scrollback` lines above the screen includes. */
  private historyVt(scrollback = Infinity): string[] {
    const store = this.history?.store;
    if (!store) return [];
    const wanted = Math.min(scrollback - (this.terminal.buffer.normal.baseY - this.skippedRows), this.historyLength);
    if (wanted <= 0) return [];
    return store.slice(store.length - wanted);
  }

  /**
   * Plain text of the active buffer. Without scrollback: the screen's rows. With: the last `scrollback`
   * logical lines above the screen, then the screen's (sessionText.ts's linesToRead).
   */
  lines(scrollback = 0): string[] {
    if (scrollback > 0) return linesToRead(this.textCopy(true), scrollback);
    const buffer = this.terminal.buffer.active;
    const lines: string[] = [];
    for (let y = buffer.baseY; y < buffer.baseY + this.terminal.rows; y++)
      lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
    return lines;
  }

  /** The active buffer's text, copied for a reader on another thread (search, text waits): see textCopy.ts. */
  textCopy(history: boolean): SessionTextCopy {
    const normal = this.terminal.buffer.active.type === 'normal';
    const store = normal ? this.history?.store : undefined;
    const stored = store ? store.copy(store.length - this.historyLength) : [];
    const above = history ? { stored, alternate: this.alternate.copy(Infinity, normal) } : undefined;
    return copyText(this.terminal, normal ? this.skippedRows : 0, above);
  }

  /** Lines at the start of `lines(Infinity)` that scrolled off the alternate screen, their markers included. */
  get alternateLength(): number {
    return this.alternate.length(this.terminal.buffer.active.type === 'normal');
  }

  cursor(): { x: number; y: number } {
    const buffer = this.terminal.buffer.active;
    return { x: buffer.cursorX, y: buffer.cursorY };
  }

  dispose(): void {
    this.queue.dispose();
    for (const d of this.disposables) d.dispose();
    this.history?.dispose();
    this.shell.dispose();
    this.onParsedEmitter.dispose();
    this.onReplyEmitter.dispose();
    this.onTitleEmitter.dispose();
    this.onBellEmitter.dispose();
    this.onPromptMarkEmitter.dispose();
    this.onCwdEmitter.dispose();
    this.onErrorEmitter.dispose();
    this.terminal.dispose();
  }
}
