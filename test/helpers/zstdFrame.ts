// A zstd frame made without a compressor (Node 20's zlib has none): valid zstd that every decoder reads,
// for tests of files an agent keeps compressed (Codex's .jsonl.zst rollouts).

/** Raw (stored) blocks, as large as a block may be. */
const BLOCK_BYTES = 128 * 1024;

/**
 * `data` as one zstd frame. Header: the magic, then Single_Segment with a 4-byte content size (no
 * window size, checksum or dictionary); each block: 3 bytes (last-block bit, type 0 = raw, size), then its bytes.
 */
export function zstdFrame(data: Buffer): Buffer {
  const header = Buffer.alloc(9);
  header.writeUInt32LE(0xfd2fb528, 0);
  header[4] = 0xa0;
  header.writeUInt32LE(data.length, 5);
  const parts: Buffer[] = [header];
  for (let at = 0; at === 0 || at < data.length; at += BLOCK_BYTES) {
    const block = data.subarray(at, at + BLOCK_BYTES);
    const blockHeader = Buffer.alloc(3);
    blockHeader.writeUIntLE(block.length * 8 + (at + BLOCK_BYTES >= data.length ? 1 : 0), 0, 3);
    parts.push(blockHeader, block);
  }
  return Buffer.concat(parts);
}

/**
 * `bytes` copies of `byte` as one zstd frame of RLE blocks (4 bytes each): a small file that decompresses
 * to gigabytes, as `head -c 4G /dev/zero | zstd` makes (134 KB, a 2 MiB window: windowLog 21). Header:
 * the magic, no content size, a window of 2^windowLog bytes; each block: 3 bytes (last-block bit, type 1 =
 * RLE, size), then the byte.
 */
export function zstdRunFrame(byte: number, bytes: number, windowLog = 17): Buffer {
  const header = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, (windowLog - 10) << 3]);
  const count = Math.ceil(bytes / BLOCK_BYTES);
  const blocks = Buffer.alloc(count * 4);
  for (let i = 0; i < count; i++) {
    const size = Math.min(BLOCK_BYTES, bytes - i * BLOCK_BYTES);
    blocks.writeUIntLE(size * 8 + (1 << 1) + (i === count - 1 ? 1 : 0), i * 4, 3);
    blocks[i * 4 + 3] = byte;
  }
  return Buffer.concat([header, blocks]);
}
