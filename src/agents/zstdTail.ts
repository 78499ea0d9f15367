// The tail of a zstd file's content, read within bounds: a 128 KiB file of RLE blocks unpacks to
// gigabytes (4 GiB of zeros held the daemon at 2.6 GB). Every frame header is checked before the
// decoder sees it (a frame may ask for a 2 GiB window, which fzstd allocates and moves at each block),
// what is unpacked is counted and held only as far as the tail, and the read stops at a deadline.
// zlib's decoder where this Node has one (22.15+), else fzstd's (pure JS, same output).
import * as fs from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as zlib from 'node:zlib';
import { Decompress } from 'fzstd';

export interface ZstdBounds {
  /** Bytes of the content's end kept. */
  tailBytes: number;
  /** Unpacked bytes read at most. */
  maxUnpackedBytes: number;
  /** Largest window a frame may ask for (zstd's levels 1-19 ask for 8 MiB at most). */
  maxWindowBytes: number;
  /** How long the read may take, ms. */
  readForMs: number;
}

/** Why a file was not read to its end: over a bound, not corrupt. */
export class ZstdTooCostly extends Error {}

const ZSTD_MAGIC = 0xfd2fb528;
/** Skippable frames: 0x184D2A50 to 0x184D2A5F, then a 4-byte length. */
const isSkippable = (magic: number) => magic >>> 4 === 0x184d2a5;
const DICT_ID_BYTES = [0, 1, 2, 4];
const CONTENT_SIZE_BYTES = [0, 2, 4, 8];

/**
 * Follows the frames of a zstd stream fed in any chunking, block headers only (payloads skipped), and
 * throws ZstdTooCostly when a frame asks for a window over the bound (a single-segment frame's window is
 * its content, bound by the bytes unpacked at most), Error when the stream is not zstd.
 */
export class ZstdFrameCheck {
  private head = Buffer.alloc(0);
  /** Bytes to pass over: a block's payload, a checksum, a skippable frame. */
  private skip = 0;
  private state: 'frame' | 'block' = 'frame';
  private checksum = false;

  constructor(private readonly bounds: Pick<ZstdBounds, 'maxWindowBytes' | 'maxUnpackedBytes'>) {}

  feed(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - at);
        this.skip -= n;
        at += n;
        continue;
      }
      const need = this.needed();
      const take = Math.min(need - this.head.length, chunk.length - at);
      this.head = Buffer.concat([this.head, chunk.subarray(at, at + take)]);
      at += take;
      if (this.head.length === need && this.needed() === need) this.parsed();
    }
  }

  /** Header bytes needed to go on: 3 for a block; for a frame 4, then 5 or 8, then its whole header. */
  private needed(): number {
    if (this.state === 'block') return 3;
    if (this.head.length < 4) return 4;
    const magic = this.head.readUInt32LE(0);
    if (isSkippable(magic)) return 8;
    if (magic !== ZSTD_MAGIC) throw new Error('not a zstd frame');
    if (this.head.length < 5) return 5;
    const fhd = this.head[4];
    const single = (fhd >> 5) & 1;
    const contentBytes = fhd >> 6 === 0 ? single : CONTENT_SIZE_BYTES[fhd >> 6];
    return 5 + (single ? 0 : 1) + DICT_ID_BYTES[fhd & 3] + contentBytes;
  }

  private parsed(): void {
    const head = this.head;
    this.head = Buffer.alloc(0);
    if (this.state === 'block') {
      const header = head.readUIntLE(0, 3);
      const type = (header >> 1) & 3;
      if (type === 3) throw new Error('a reserved zstd block type');
      this.skip = type === 1 ? 1 : header >>> 3;
      if (header & 1) {
        this.skip += this.checksum ? 4 : 0;
        this.state = 'frame';
      }
      return;
    }
    if (isSkippable(head.readUInt32LE(0))) {
      this.skip = head.readUInt32LE(4);
      return;
    }
    const fhd = head[4];
    const single = (fhd >> 5) & 1;
    this.checksum = ((fhd >> 2) & 1) === 1;
    let window: number;
    if (single) {
      // The window is the content size, which follows the dictionary id.
      const at = 5 + DICT_ID_BYTES[fhd & 3];
      const bytes = head.length - at;
      window = bytes === 8 ? Number(head.readBigUInt64LE(at)) : head.readUIntLE(at, bytes) + (bytes === 2 ? 256 : 0);
    } else {
      const descriptor = head[5];
      const base = 2 ** (10 + (descriptor >> 3));
      window = base + (base / 8) * (descriptor & 7);
    }
    const max = single ? this.bounds.maxUnpackedBytes : this.bounds.maxWindowBytes;
    if (window > max) throw new ZstdTooCostly(`a zstd frame asks for a ${window}-byte window, over ${max}`);
    this.state = 'block';
  }
}

/** Keeps the last `tailBytes` of what is unpacked; counts it all against the bounds. */
class Tail {
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;
  private unpacked = 0;
  private readonly until: number;
  cut = false;

  constructor(private readonly bounds: ZstdBounds) {
    this.until = Date.now() + bounds.readForMs;
  }

  add(chunk: Buffer): void {
    this.unpacked += chunk.length;
    if (this.unpacked > this.bounds.maxUnpackedBytes)
      throw new ZstdTooCostly(`it unpacks to more than ${this.bounds.maxUnpackedBytes} bytes`);
    if (Date.now() > this.until)
      throw new ZstdTooCostly(`unpacking it took over ${this.bounds.readForMs} ms (${this.unpacked} bytes by then)`);
    this.kept.push(chunk);
    this.keptBytes += chunk.length;
    while (this.keptBytes - this.kept[0].length >= this.bounds.tailBytes) {
      this.keptBytes -= this.kept.shift()!.length;
      this.cut = true;
    }
  }

  end(): { bytes: Buffer; cut: boolean } {
    const all = Buffer.concat(this.kept);
    const start = Math.max(0, all.length - this.bounds.tailBytes);
    return { bytes: all.subarray(start), cut: this.cut || start > 0 };
  }
}

/** zlib's zstd decompressor: Node 22.15+ has it, Node 20 does not. */
const createZstdDecompress = (zlib as { createZstdDecompress?: (options: zlib.ZlibOptions) => Transform })
  .createZstdDecompress;

/** The end of a zstd file's content (at most `tailBytes`), and whether more came before it. */
export async function readZstdTail(file: string, bounds: ZstdBounds): Promise<{ bytes: Buffer; cut: boolean }> {
  const check = new ZstdFrameCheck(bounds);
  const tail = new Tail(bounds);
  const handle = await fs.promises.open(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  // The read stream closes the handle when it ends or fails.
  const input = handle.createReadStream({ highWaterMark: 64 * 1024 });
  if (createZstdDecompress) {
    const checked = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        try {
          check.feed(chunk);
          done(null, chunk);
        } catch (err) {
          done(err as Error);
        }
      },
    });
    // zlib's stream hands over a chunk at a time as it is taken: nothing piles up.
    await pipeline(
      input,
      checked,
      createZstdDecompress({ chunkSize: 128 * 1024 }),
      async (chunks: AsyncIterable<Buffer>) => {
        for await (const chunk of chunks) tail.add(chunk);
      },
    );
    return tail.end();
  }
  // fzstd's decoder hands over each block as it is unpacked, synchronously: a bound throws out of push().
  const decoder = new Decompress((data) => tail.add(Buffer.from(data))); // copied: it reuses its buffer
  for await (const chunk of input as AsyncIterable<Buffer>) {
    check.feed(chunk);
    decoder.push(chunk);
  }
  decoder.push(new Uint8Array(0), true);
  return tail.end();
}
