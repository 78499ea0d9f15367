// What a session's emulator has been written and not parsed yet, and the loop that parses it: in
// turns of at most ParseTuning.TurnMs, so that the thread answers reads in between, each turn a run
// of steps. The emulator says how big a step may be (a slice followed by a history capture, or more
// while capture is deferred) and hears when a chunk is parsed whole: the screen is exact there.
// Plain text that scrolls out of all the session keeps is skipped, not parsed (plainRun.ts).
// Its own loop rather than xterm's write buffer: that one takes a 1 ms timer between turns, and a
// callback per slice.
import type { IDisposable } from '../../base/disposable';
import { skipTarget } from './plainRun';

export enum ParseTuning {
  /** Parsing yields to the thread's loop after this long (xterm's own write loop does the same). */
  TurnMs = 12,
}

export interface ParseSteps {
  /** Most bytes the next step may parse. */
  stepBytes(): number;
  /** Parses `piece`; `left` bytes written are still to parse after it. */
  parse(piece: Uint8Array, left: number): void;
  /** `count` chunks are parsed whole (more than one when plain text was skipped): the screen is exact here. */
  chunksParsed(count: number): void;
  /**
   * How many LFs must follow a CR of plain text for the text before that CR to be skipped (plainRun.ts);
   * undefined: the terminal's state does not allow it now.
   */
  linesToSkip(): number | undefined;
}

const EMPTY = new Uint8Array(0);

/** Parsed chunks' slots kept at the queue's head before they are let go (a flood may never empty it). */
const SPENT_SLOTS = 1024;

export class ParseQueue implements IDisposable {
  private writtenBytes = 0;
  private parsedBytes = 0;
  /** Chunks not parsed yet, from `head` on; the first is parsed up to `headParsedTo`. */
  private readonly chunks: Uint8Array[] = [];
  private head = 0;
  private headParsedTo = 0;
  /** Chunks skipped, or parsed where the screen was not exact (after a skip), not reported yet; their bytes. */
  private unreportedChunks = 0;
  private unreportedBytes = 0;
  /**
   * Where the screen is exact again after a skip (bytes written before it): the end of the plain run
   * whose line feeds pushed out all that was there before (plainRun.ts). No cut is reported before it.
   */
  private exactAt = 0;
  /** Bytes skipped since the queue was made (for tests and the bench). */
  skippedInAll = 0;
  private turn: NodeJS.Immediate | undefined;
  private disposed = false;

  constructor(private readonly steps: ParseSteps) {}

  /** Queues `chunk`; it is parsed in later turns of the thread's loop. */
  write(chunk: Uint8Array): void {
    this.writtenBytes += chunk.length;
    this.chunks.push(chunk);
    this.turn ??= setImmediate(() => this.parseTurn());
  }

  /** Bytes written and not parsed yet (skipped ones count until a cut is reported after them). */
  get backlog(): number {
    return this.writtenBytes - this.parsedBytes;
  }

  get parsed(): number {
    return this.parsedBytes;
  }

  /** False between a skip and where the screen is exact again: what it shows there mixes old and new rows. */
  get exact(): boolean {
    return this.parsedBytes + this.unreportedBytes + this.headParsedTo >= this.exactAt;
  }

  private parseTurn(): void {
    this.turn = undefined;
    const start = performance.now();
    const steps = this.steps;
    this.skipPlainText();
    while (this.head < this.chunks.length) {
      const chunk = this.chunks[this.head];
      const length = chunk.length;
      const at = this.headParsedTo;
      const end = Math.min(at + steps.stepBytes(), length);
      steps.parse(
        at === 0 && end === length ? chunk : chunk.subarray(at, end),
        this.backlog - this.unreportedBytes - end,
      );
      this.headParsedTo = end;
      if (end === length) {
        this.chunks[this.head++] = EMPTY;
        this.headParsedTo = 0;
        this.unreportedChunks++;
        this.unreportedBytes += length;
        if (this.parsedBytes + this.unreportedBytes >= this.exactAt) {
          const count = this.unreportedChunks;
          this.parsedBytes += this.unreportedBytes;
          this.unreportedChunks = 0;
          this.unreportedBytes = 0;
          steps.chunksParsed(count);
          if (this.disposed) return;
        }
      }
      if (performance.now() - start >= ParseTuning.TurnMs) break;
    }
    if (this.head === this.chunks.length) {
      this.chunks.length = 0;
      this.head = 0;
      return;
    }
    if (this.head >= SPENT_SLOTS) {
      this.chunks.splice(0, this.head);
      this.head = 0;
    }
    this.turn ??= setImmediate(() => this.parseTurn());
  }

  /** Moves the head past plain text that need not be parsed, if the terminal's state allows it. */
  private skipPlainText(): void {
    const lines = this.steps.linesToSkip();
    // A line takes a byte at least.
    if (lines === undefined || this.backlog - this.unreportedBytes < lines) return;
    const skip = skipTarget(this.chunks, { chunk: this.head, offset: this.headParsedTo }, lines);
    if (!skip) return;
    const headStart = this.parsedBytes + this.unreportedBytes;
    this.exactAt = headStart + this.bytesTo(skip.runEnd.chunk, skip.runEnd.offset);
    this.skippedInAll += this.bytesTo(skip.resume.chunk, skip.resume.offset) - this.headParsedTo;
    for (; this.head < skip.resume.chunk; this.head++) {
      this.unreportedChunks++;
      this.unreportedBytes += this.chunks[this.head].length;
      this.chunks[this.head] = EMPTY;
    }
    this.headParsedTo = skip.resume.offset;
  }

  /** Bytes from the head chunk's start to `offset` in chunk `chunk`. */
  private bytesTo(chunk: number, offset: number): number {
    let bytes = offset;
    for (let c = this.head; c < chunk; c++) bytes += this.chunks[c].length;
    return bytes;
  }

  dispose(): void {
    this.disposed = true;
    clearImmediate(this.turn);
    this.chunks.length = 0;
  }
}
