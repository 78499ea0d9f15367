// A session's history outside the emulator: logical lines (wrapped rows joined, so they re-wrap at
// any width), each kept as its text with SGR attribute runs, in blocks; cold blocks are deflated.
import { deflateRawSync, inflateRawSync } from 'node:zlib';

export enum HistoryTuning {
  /** Lines per block: the unit of compression and of dropping old history. */
  BlockLines = 256,
  /** The newest blocks stay uncompressed (they are read most, e.g. by a reattach). */
  HotBlocks = 2,
  /**
   * While output flows, rows move to the store only once this many have gathered above the kept
   * margin and at most once per CaptureIntervalMs; the rest waits for the session to go quiet.
   * In a flood most lines are then dropped by xterm's own scrollback limit without being encoded,
   * and xterm recycles its rows instead of allocating one per line.
   */
  CaptureRows = 1000,
  CaptureIntervalMs = 1000,
}

/** A block is compressed only when that saves at least this share of its size. */
const COMPRESS_WHEN_SAVES = 0.25;

/** Separates lines inside a block; an encoded line never contains it (see historyCapture.encodeRows). */
const LINE_SEPARATOR = '\n';

interface Block {
  /** Lines while hot; undefined once compressed. */
  lines?: string[];
  packed?: Buffer;
  count: number;
}

export class HistoryStore {
  private blocks: Block[] = [];
  /** Lines of the first block already dropped by the budget. */
  private dropped = 0;
  private total = 0;

  /** `budget`: lines kept at most; the oldest go first. */
  constructor(private budget: number) {}

  get length(): number {
    return this.total;
  }

  push(line: string): void {
    let last = this.blocks[this.blocks.length - 1];
    if (!last || last.count >= HistoryTuning.BlockLines) {
      last = { lines: [], count: 0 };
      this.blocks.push(last);
      this.coolDown();
    }
    last.lines!.push(line);
    last.count++;
    this.total++;
    while (this.total > this.budget) this.dropOldest();
  }

  setBudget(budget: number): void {
    this.budget = budget;
    while (this.total > this.budget) this.dropOldest();
  }

  /** Encoded lines [from, to), oldest first (index 0 is the oldest kept line). */
  slice(from = 0, to = this.total): string[] {
    const out: string[] = [];
    from = Math.max(0, from);
    to = Math.min(this.total, to);
    let index = -this.dropped;
    for (const block of this.blocks) {
      const end = index + block.count;
      if (end > from && index < to) {
        const lines = this.linesOf(block);
        for (let i = Math.max(from, index); i < Math.min(to, end); i++) out.push(lines[i - index]);
      }
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
      block.lines = this.linesOf(block).slice(0, block.count - k);
      block.packed = undefined;
      block.count -= k;
      remove -= k;
      this.total -= k;
      if (block.count === first) {
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

  private linesOf(block: Block): string[] {
    if (block.lines) return block.lines;
    return inflateRawSync(block.packed!).toString('utf8').split(LINE_SEPARATOR);
  }

  private dropOldest(): void {
    const first = this.blocks[0];
    this.dropped++;
    this.total--;
    if (this.dropped >= first.count) {
      this.blocks.shift();
      this.dropped = 0;
    }
  }

  private coolDown(): void {
    const index = this.blocks.length - 1 - HistoryTuning.HotBlocks;
    const block = this.blocks[index];
    if (!block?.lines) return;
    const raw = Buffer.from(block.lines.join(LINE_SEPARATOR), 'utf8');
    const packed = deflateRawSync(raw);
    if (packed.length <= raw.length * (1 - COMPRESS_WHEN_SAVES)) {
      block.packed = packed;
      block.lines = undefined;
    }
  }
}
