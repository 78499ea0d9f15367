// A session's history outside the emulator: logical lines (wrapped rows joined, so they re-wrap at
// any width), each kept as its text with SGR attribute runs, in blocks; cold blocks are deflated.
import { deflateRawSync, inflateRawSync } from 'node:zlib';

export enum HistoryTuning {
  /** Lines per block: the unit of compression (one zlib call each) and of dropping old history. */
  BlockLines = 1024,
  /** The newest blocks stay uncompressed (they are read most, e.g. by a reattach). */
  HotBlocks = 1,
  /**
   * Writes reach xterm in slices of at most this many bytes, each followed by a capture: one byte
   * adds at most one row, so xterm's scrollback is sized to never drop an uncaptured row. 1000 parsed
   * a flood no faster (within 3%, in batches as the worker gets them) and holds ~4x the rows.
   */
  SliceBytes = 256,
  /** Rows beyond the kept lines' starts that they may span: a longer line is stored in pieces (CONTINUED). */
  KeptRowSlack = 64,
  /**
   * Bytes written and not parsed yet past which a session that has already filled its scrollback
   * since it was last quiet is flooding: its capture is deferred (historyCapture.ts), so that the
   * lines the flood pushes out of the scrollback are never encoded. Above what one PTY read brings.
   */
  DeferAfterBacklogBytes = 64 * 1024,
  /**
   * Cells of xterm rows that the sessions a thread defers may hold in all (12 bytes each): 30 MB,
   * one flood up to 250 columns wide with 10,000 lines of scrollback. The allocator keeps what it
   * held for the thread's next flood, so this is also what a thread keeps once one has passed.
   */
  DeferredCellsPerThread = 2_500_000,
}

/** A block is compressed only when that saves at least this share of its size. */
const COMPRESS_WHEN_SAVES = 0.25;

/** Separates lines inside a block; an encoded line never contains it (see historyCapture.encodeRows). */
const LINE_SEPARATOR = '\n';

/**
 * Ends an encoded piece of a logical line too long to keep whole in xterm (cut at keptRows): the
 * next stored line, or xterm's first row, continues it. Never part of an encoding otherwise.
 */
export const CONTINUED = '\u0000';

/**
 * What an encoding adds to a line's text: SGR, the erase of a coloured tail, CONTINUED, and a shell's
 * command marks (OSC 633, with the cursor moves that place one past the text: shellMarks.ts).
 */
const ENCODING_MARKS = /\x1b\[[0-9;:]*[mXC]|\x1b\]633;[^\x07]*\x07|\u0000$/g;

/** The text of an encoded line, as translateToString(true) gives it for the row(s). */
export function plainText(encoded: string): string {
  return encoded.replace(ENCODING_MARKS, '').trimEnd();
}

/** The text of an encoded line or piece: a piece that continues keeps its trailing spaces (they are text). */
export function pieceText(encoded: string): { text: string; continues: boolean } {
  if (!encoded.endsWith(CONTINUED)) return { text: plainText(encoded), continues: false };
  return { text: encoded.replace(ENCODING_MARKS, ''), continues: true };
}

/** plainText for many lines at once; most lines of a flood have no escape at all. */
export function plainTextOf(encoded: string): string {
  return encoded.includes('\x1b') || encoded.endsWith(CONTINUED) ? plainText(encoded) : encoded.trimEnd();
}

/** Encoded lines as one VT stream: a line break after each, except after a piece that continues. */
export function joinEncoded(lines: string[]): string {
  // Parts joined once (a string built with += is a rope, see historyCapture.encodeRows).
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.endsWith(CONTINUED)) out.push(line.slice(0, -1));
    else out.push(line, i === lines.length - 1 ? '' : '\r\n');
  }
  return out.join('');
}

/** Stored lines as copied for a reader: per block, its lines or its compressed bytes, and its range [from, to). */
export type StoredLines = { lines?: string[]; packed?: Uint8Array; from: number; to: number }[];

function blockLines(block: { lines?: string[]; packed?: Uint8Array }): string[] {
  if (block.lines) return block.lines;
  return inflateRawSync(block.packed!, { windowBits: DEFLATE_OPTIONS.windowBits })
    .toString('utf8')
    .split(LINE_SEPARATOR);
}

/** The encoded lines a copy holds, oldest first (inflates its compressed blocks: run it off the main thread). */
export function decodeStoredLines(stored: StoredLines): string[] {
  const out: string[] = [];
  for (const block of stored) {
    const lines = blockLines(block);
    for (let i = block.from; i < block.to; i++) out.push(lines[i]);
  }
  return out;
}

interface Block {
  /** Lines while hot; undefined once compressed. */
  lines?: string[];
  packed?: Uint8Array;
  count: number;
  /** UTF-16 units of its lines while uncompressed. */
  chars: number;
  /** Compression was tried and did not pay. */
  stays?: boolean;
}

/**
 * Uncompressed lines (UTF-16 units) the store holds beyond its hot blocks before it compresses the
 * oldest: in a flood most blocks are dropped soon after they fill, so they are compressed only
 * when the session goes quiet (compress) or this much has gathered.
 */
const UNCOMPRESSED_CHARS = 1 << 20;

/**
 * A block is a few kB to a few tens of kB: a 4 KiB window compresses it nearly as well as 32 KiB,
 * with 32 KiB of zlib state instead of 256 KiB.
 */
const DEFLATE_OPTIONS = { windowBits: 12, memLevel: 5 };

export class HistoryStore {
  private blocks: Block[] = [];
  /** Lines of the first block already dropped by the budget. */
  private dropped = 0;
  private total = 0;
  /** Lines ever pushed less those taken back: the index the next line pushed gets (command output's start). */
  private ended = 0;
  /** Chars of uncompressed blocks. */
  private uncompressed = 0;

  /** `budget`: lines kept at most; the oldest go first. */
  constructor(private budget: number) {}

  get length(): number {
    return this.total;
  }

  /** The index (counted since the store was made) of the line pushed next. */
  get end(): number {
    return this.ended;
  }

  /** The index of the oldest line kept. */
  get first(): number {
    return this.ended - this.total;
  }

  push(line: string): void {
    let last = this.blocks[this.blocks.length - 1];
    if (!last || last.count >= HistoryTuning.BlockLines) {
      last = { lines: [], count: 0, chars: 0 };
      this.blocks.push(last);
      if (this.uncompressed > UNCOMPRESSED_CHARS) this.compress(UNCOMPRESSED_CHARS / 2);
    }
    last.lines!.push(line);
    last.count++;
    last.chars += line.length;
    this.uncompressed += line.length;
    this.total++;
    this.ended++;
    while (this.total > this.budget) this.dropOldest();
  }

  setBudget(budget: number): void {
    this.budget = budget;
    while (this.total > this.budget) this.dropOldest();
  }

  /** Encoded lines [from, to), oldest first (index 0 is the oldest kept line). */
  slice(from = 0, to = this.total): string[] {
    return decodeStoredLines(this.copy(from, to));
  }

  /**
   * Lines [from, to) for another thread to decode (decodeStoredLines): compressed blocks as they
   * are (a copy is a memcpy), the others' lines; nothing is inflated here.
   */
  copy(from = 0, to = this.total): StoredLines {
    const out: StoredLines = [];
    from = Math.max(0, from);
    to = Math.min(this.total, to);
    let index = -this.dropped;
    for (const block of this.blocks) {
      const end = index + block.count;
      if (end > from && index < to)
        out.push({
          ...(block.lines ? { lines: block.lines } : { packed: block.packed! }),
          from: Math.max(from, index) - index,
          to: Math.min(to, end) - index,
        });
      index = end;
      if (index >= to) break;
    }
    return out;
  }

  /** Removes and returns the newest `count` lines (oldest first): they go back into the emulator. */
  takeNewest(count: number): string[] {
    count = Math.min(count, this.total);
    const taken = this.slice(this.total - count);
    let remove = count;
    while (remove > 0) {
      const block = this.blocks[this.blocks.length - 1];
      const first = this.blocks.length === 1 ? this.dropped : 0;
      const k = Math.min(remove, block.count - first);
      this.unpack(block);
      const removed = block.lines!.splice(block.count - k).reduce((n, line) => n + line.length, 0);
      block.chars -= removed;
      this.uncompressed -= removed;
      block.count -= k;
      remove -= k;
      this.total -= k;
      this.ended -= k;
      if (block.count === first) {
        this.uncompressed -= block.chars;
        this.blocks.pop();
        if (this.blocks.length === 0) this.dropped = 0;
      }
    }
    return taken;
  }

  clear(): void {
    this.blocks = [];
    this.dropped = 0;
    this.total = 0;
    this.uncompressed = 0;
  }

  /** Compresses the oldest uncompressed blocks, all but the hot ones, until at most `keepChars` stay uncompressed. */
  compress(keepChars = 0): void {
    for (let i = 0; i < this.blocks.length - HistoryTuning.HotBlocks && this.uncompressed > keepChars; i++) {
      const block = this.blocks[i];
      if (!block.lines || block.stays) continue;
      const raw = Buffer.from(block.lines.join(LINE_SEPARATOR), 'utf8');
      const packed = deflateRawSync(raw, DEFLATE_OPTIONS);
      if (packed.length <= raw.length * (1 - COMPRESS_WHEN_SAVES)) {
        // A copy of its own size: zlib's result is a view of a 16 KiB chunk it would keep alive.
        block.packed = new Uint8Array(packed);
        block.lines = undefined;
        this.uncompressed -= block.chars;
      } else block.stays = true;
    }
  }

  /** Bytes held (strings counted as UTF-16), for the memory bench. */
  get footprint(): number {
    let bytes = 0;
    for (const block of this.blocks) {
      if (block.packed) bytes += block.packed.length;
      else for (const line of block.lines!) bytes += line.length * 2;
    }
    return bytes;
  }

  private unpack(block: Block): void {
    if (block.lines) return;
    block.lines = blockLines(block);
    block.packed = undefined;
    this.uncompressed += block.chars;
  }

  private dropOldest(): void {
    const first = this.blocks[0];
    this.dropped++;
    this.total--;
    if (this.dropped >= first.count) {
      if (first.lines) this.uncompressed -= first.chars;
      this.blocks.shift();
      this.dropped = 0;
    }
  }
}
