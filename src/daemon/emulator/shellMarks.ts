// A shell's command marks (VS Code's OSC 633, read by programReports.ts), kept with the session's
// screen in its emulator's worker: each at the row and column where it was printed, on a row that follows
// xterm's buffer (markRows.ts) while it is there, and inside its line once the line moves to the history store
// (historyCapture.ts, historyEncoding.ts), so marks scroll, reflow and are trimmed with the scrollback.
// A snapshot replays them where they were (screenSerializer.ts); parsing a snapshot (a successor's, a
// rebuilt worker's, an archive's) finds them again. From them: what the shell is doing (ShellState),
// and for `run` the output of a command.
//
// A mark is a program's claim like any output: only the shell's own command line (E with the
// session's nonce) is trusted, and while a command runs the marks its output prints are not kept
// (but one D: the shell's own end after a program's). A full-screen program's screen keeps none.
import type { Terminal } from '@xterm/headless';
import { Emitter, type IDisposable } from '../../base/disposable';
import type { ShellState } from '../../protocol/shell';
import type { PromptMark } from '../sessions/attention';
import { commandOutput, type CommandOutput, type OutputStart, textFrom } from './commandOutput';
import type { EmbeddedMark } from './historyEncoding';
import type { HistoryCapture } from './historyCapture';
import { type MarkRow, MarkRows } from './markRows';
import { type ShellMark, ShellMarkReader, shellMarkOf, shellMarkSequence, unsignedLines } from './programReports';
import type { SnapshotMarks } from './snapshot';
import { core } from './xtermInternals';

/** Characters of marks' sequences kept with one stored line: a longer command line is kept on xterm's rows only. */
export const MARK_CHARS_PER_LINE = 2048;

export enum MarkLimit {
  /** Marks on xterm's rows at once (past it, a flood of them keeps the newest three quarters). */
  LiveMarks = 2048,
  /** Marks kept with one line of the history store (a prompt line has at most five). */
  MarksPerLine = 8,
  /** D marks after a command started that say its end (a program's output may print some before the shell's). */
  EndsPerCommand = 4,
}

interface LiveMark {
  row: MarkRow;
  x: number;
  mark: ShellMark;
}

/** Taken to the store, dropped, or its row trimmed or deleted. */
const isGone = (live: LiveMark): boolean => live.row.gone;

type Phase = 'none' | 'prompt' | 'input' | 'running' | 'done';

/** What the marks say, for the main thread: attention, directory, the shell's state, a command's end for `run`. */
export type ShellNote =
  | { kind: 'mark'; mark: PromptMark }
  | { kind: 'cwd'; cwd: string }
  | { kind: 'shell'; shell: ShellState; ready: boolean }
  | { kind: 'commandEnd'; exitCode: number | null; output: CommandOutput };

/** Marks found in lines brought back from the store: the row, the sequence's payload, its store line. */
export interface FoundMark {
  row: number;
  x: number;
  data: string;
  index: number;
}

export class ShellMarks implements IDisposable {
  /** Marks on xterm's normal buffer, by row and column (some gone, until compacted). */
  private live: LiveMark[] = [];
  private readonly rows: MarkRows;
  private readonly reader: ShellMarkReader;
  private rich = false;
  private phase: Phase = 'none';
  private since = Date.now();
  /** The current prompt's marks: printed again (a redrawn prompt), they replace these. */
  private prompt: Partial<Record<'A' | 'B' | 'E' | 'cwd', LiveMark>> = {};
  /** The running command's line, when its E carried the nonce. */
  private commandLine: string | undefined;
  private lastExit: number | null | undefined;
  /** A command has started since the marks began. */
  private started = false;
  /** D marks since the command started that said its exit code. */
  private ends = 0;
  /** D marks kept in a row once a prompt or command ended. */
  private endsKept = 0;
  private outputFrom: { mark: LiveMark } | { index: number; x: number } | { lost: true } = { lost: true };
  /** `run` waits on this session: each command's end comes with its output. */
  capture = false;
  /** The history store, and the rows of xterm's buffer it already holds. */
  history: Pick<HistoryCapture, 'store' | 'skippedRows'> | undefined;
  private readonly disposables: IDisposable[];
  private readonly onNoteEmitter = new Emitter<ShellNote>();
  readonly onNote = this.onNoteEmitter.event;

  constructor(
    private readonly terminal: Terminal,
    /** The session's VSCODE_NONCE, when its shell was started with it. */
    private readonly nonce: string | undefined,
  ) {
    this.rows = new MarkRows(terminal);
    this.reader = new ShellMarkReader(nonce);
    this.disposables = [
      this.rows,
      terminal.parser.registerOscHandler(633, (data) => {
        this.handle(data);
        return true;
      }),
      // RIS makes new buffers: the rows of the old one point nowhere.
      terminal.parser.registerEscHandler({ final: 'c' }, () => {
        this.clear();
        return false;
      }),
    ];
  }

  /** The shell's state as marks told it; undefined before any. */
  get state(): ShellState | undefined {
    if (this.phase === 'none') return undefined;
    const running = this.phase === 'running';
    return {
      phase: running ? 'running' : 'prompt',
      ...(running && this.commandLine !== undefined ? { command: this.commandLine } : {}),
      ...(this.lastExit !== undefined ? { lastExit: this.lastExit } : {}),
      since: this.since,
    };
  }

  /** At its prompt, waiting for input: a command typed now is the shell's to run. */
  get ready(): boolean {
    return this.phase === 'input';
  }

  private handle(data: string): void {
    const mark = this.reader.read(data);
    if (!mark) return;
    if (mark.kind === 'rich') {
      this.rich = true;
      return;
    }
    const normal = core(this.terminal).buffer === core(this.terminal).buffers.normal;
    if (!normal || this.phase === 'running') {
      if (mark.kind === 'D' && this.phase === 'running') this.end(mark);
      return;
    }
    switch (mark.kind) {
      case 'A':
        this.replace('B');
        this.prompt.A = this.add(mark, this.prompt.A);
        this.enter('prompt', 'A');
        return;
      case 'B':
        this.prompt.B = this.add(mark, this.prompt.B);
        this.enter('input', 'B');
        return;
      case 'E':
        this.prompt.E = this.add(mark, this.prompt.E);
        return;
      case 'cwd':
        this.prompt.cwd = this.add(mark, this.prompt.cwd);
        this.onNoteEmitter.fire({ kind: 'cwd', cwd: mark.cwd });
        return;
      case 'C': {
        const e = this.prompt.E?.mark;
        this.commandLine = e?.kind === 'E' && e.trusted ? e.commandLine : undefined;
        this.outputFrom = { mark: this.add(mark) };
        this.prompt = {};
        this.started = true;
        this.ends = 0;
        this.endsKept = 0;
        this.enter('running', 'C');
        return;
      }
      case 'D':
        this.end(mark);
        return;
    }
  }

  /**
   * A command's end, or a prompt's without one (an empty line, ctrl+c). Kept as a mark once, and a
   * second time right after (the shell's own after a program's); each of the first few since the
   * command started says its exit code, and its output to `run`, which takes the last before the
   * shell is back at its prompt, in the foreground of its terminal.
   */
  private end(mark: Extract<ShellMark, { kind: 'D' }>): void {
    const keep = this.phase !== 'done' || this.endsKept === 1;
    // At a prompt, a D without an exit code is an empty line's (the command ended before it).
    const atPrompt = this.phase === 'prompt' || this.phase === 'input';
    const counts = this.started && this.ends < MarkLimit.EndsPerCommand && !(atPrompt && mark.exitCode === undefined);
    if (!keep && !counts) return;
    if (keep) {
      this.add(mark);
      this.endsKept = this.phase === 'done' ? this.endsKept + 1 : 1;
    }
    if (counts) {
      this.ends++;
      this.lastExit = mark.exitCode ?? null;
    }
    this.enter('done', 'D');
    if (counts && this.capture)
      this.onNoteEmitter.fire({ kind: 'commandEnd', exitCode: this.lastExit ?? null, output: this.output() });
  }

  private enter(phase: Phase, mark: PromptMark): void {
    const wasRunning = this.phase === 'running';
    this.phase = phase;
    if (wasRunning !== (phase === 'running')) this.since = Date.now();
    this.onNoteEmitter.fire({ kind: 'mark', mark });
    this.tellState();
  }

  /** Says the state now (after a base screen was parsed silently, too). */
  tellState(): void {
    const shell = this.state;
    if (shell) this.onNoteEmitter.fire({ kind: 'shell', shell, ready: this.ready });
  }

  private replace(kind: keyof ShellMarks['prompt']): void {
    const old = this.prompt[kind];
    if (old) this.drop(old);
    delete this.prompt[kind];
  }

  private drop(live: LiveMark): void {
    if ('mark' in this.outputFrom && this.outputFrom.mark === live) this.outputFrom = { lost: true };
    this.rows.release(live.row);
  }

  /** A mark at the cursor of the normal buffer (instead of `previous`, the same mark printed before). */
  private add(mark: ShellMark, previous?: LiveMark): LiveMark {
    if (previous) this.drop(previous);
    const normal = core(this.terminal).buffers.normal;
    return this.insert(normal.ybase + normal.y, Math.min(normal.x, this.terminal.cols), mark);
  }

  private insert(line: number, x: number, mark: ShellMark): LiveMark {
    const live: LiveMark = { row: this.rows.at(line), x, mark };
    let i = this.live.length;
    while (
      i > 0 &&
      (this.live[i - 1].row.line > line || (this.live[i - 1].row.line === line && this.live[i - 1].x > x))
    )
      i--;
    this.live.splice(i, 0, live);
    // Past the limit the oldest go, down to three quarters of it: a flood of marks pays once a quarter.
    if (this.live.length > MarkLimit.LiveMarks) {
      this.compact();
      const over = this.live.length - (MarkLimit.LiveMarks * 3) / 4;
      if (over > 0) {
        for (const old of this.live.slice(0, over)) this.drop(old);
        this.live = this.live.slice(over);
      }
    }
    return live;
  }

  /** Lets go of the marks that are gone. */
  private compact(): void {
    if (!this.live.some(isGone)) return;
    for (const live of this.live) if (isGone(live)) this.drop(live);
    this.live = this.live.filter((live) => !isGone(live));
  }

  /** Marks on xterm's rows now (the bench's memory row). */
  get liveMarks(): number {
    this.compact();
    return this.live.length;
  }

  /** The first row that has a mark (the history capture takes marks only when it reaches one). */
  get firstRow(): number {
    let gone = 0;
    while (gone < this.live.length && isGone(this.live[gone])) gone++;
    if (gone > 0) for (const old of this.live.splice(0, gone)) this.drop(old);
    return this.live[0]?.row.line ?? Infinity;
  }

  /** Takes the marks of rows [start, end), a logical line that becomes the store's line `index`. */
  take(start: number, end: number, index: number): EmbeddedMark[] {
    const taken: EmbeddedMark[] = [];
    let chars = 0;
    let count = 0;
    for (; count < this.live.length && this.live[count].row.line < end; count++) {
      const live = this.live[count];
      if (isGone(live)) continue;
      const row = live.row.line - start;
      const seq = shellMarkSequence(live.mark, this.nonce);
      if (row >= 0 && taken.length < MarkLimit.MarksPerLine && chars + seq.length <= MARK_CHARS_PER_LINE) {
        taken.push({ row, x: live.x, seq });
        chars += seq.length;
      }
      if ('mark' in this.outputFrom && this.outputFrom.mark === live)
        this.outputFrom = { index, x: row * this.terminal.cols + live.x };
    }
    for (const old of this.live.splice(0, count)) this.drop(old);
    return taken;
  }

  /** Marks found in lines brought back from the store into rows of xterm's normal buffer. */
  restore(found: FoundMark[]): void {
    for (const { row, x, data, index } of found) {
      const mark = shellMarkOf(data, this.nonce);
      if (!mark || mark.kind === 'rich') continue;
      const live = this.insert(row, x, mark);
      if (mark.kind === 'C' && 'index' in this.outputFrom && this.outputFrom.index === index)
        this.outputFrom = { mark: live };
    }
  }

  /** The marks to replay in a snapshot; `signed`: trusted command lines with the nonce (never on disk). */
  snapshotMarks(signed: boolean): SnapshotMarks {
    const nonce = signed ? this.nonce : undefined;
    const rows = new Map<number, { x: number; seq: string }[]>();
    for (const live of this.live) {
      if (isGone(live)) continue;
      let list = rows.get(live.row.line);
      if (!list) rows.set(live.row.line, (list = []));
      list.push({ x: live.x, seq: shellMarkSequence(live.mark, nonce) });
    }
    return { lead: this.rich ? shellMarkSequence({ kind: 'rich' }, undefined) : '', rows };
  }

  /** Stored lines without the nonce their trusted command lines carry (for a checkpoint on disk). */
  unsigned(lines: string[]): string[] {
    return unsignedLines(lines, this.nonce);
  }

  /** The current (or last) command's output, from its start to the cursor. */
  output(): CommandOutput {
    const from = this.outputFrom;
    const start: OutputStart =
      'mark' in from ? (isGone(from.mark) ? { lost: true } : { row: from.mark.row.line, x: from.mark.x }) : from;
    return commandOutput(this.terminal, this.history?.store, this.history?.skippedRows ?? 0, start);
  }

  /** The text typed at the prompt after its B mark (empty: nobody is typing there). */
  typedInput(): string {
    const b = this.prompt.B;
    return this.ready && b && !isGone(b) ? textFrom(this.terminal, b.row.line, b.x) : '';
  }

  private clear(): void {
    for (const live of this.live) this.drop(live);
    this.live = [];
    this.prompt = {};
    this.outputFrom = { lost: true };
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.onNoteEmitter.dispose();
  }
}
