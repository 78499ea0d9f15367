// The tail of a zstd file within bounds (src/agents/zstdTail.ts): every frame header is checked before
// the decoder sees it, what is unpacked is counted and cut, and the read gives up at its time.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { readZstdTail, type ZstdBounds, ZstdFrameCheck, ZstdTooCostly } from '../src/agents/zstdTail';
import { tempDir } from './helpers/daemon';
import { rssMiB } from './helpers/reliability';
import { zstdFrame, zstdRunFrame } from './helpers/zstdFrame';

const BOUNDS: ZstdBounds = {
  tailBytes: 1024,
  maxUnpackedBytes: 1024 * 1024,
  maxWindowBytes: 8 * 1024 * 1024,
  readForMs: 60_000,
};

function fileOf(data: Buffer): string {
  const file = path.join(tempDir('hf-zstd-'), 'rollout.jsonl.zst');
  fs.writeFileSync(file, data);
  return file;
}

/** A frame header asking for a window of 2^windowLog bytes, then one raw block holding `text`. */
function windowedFrame(windowLog: number, text: string): Buffer {
  const header = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, (windowLog - 10) << 3]);
  const block = Buffer.alloc(3);
  block.writeUIntLE(Buffer.byteLength(text) * 8 + 1, 0, 3);
  return Buffer.concat([header, block, Buffer.from(text)]);
}

test('the tail of several frames, a skippable frame between them, in any chunking', async () => {
  const skippable = Buffer.alloc(8 + 5);
  skippable.writeUInt32LE(0x184d2a53, 0);
  skippable.writeUInt32LE(5, 4);
  const data = Buffer.concat([zstdFrame(Buffer.from('a'.repeat(2000))), skippable, windowedFrame(20, 'END')]);
  const { bytes, cut } = await readZstdTail(fileOf(data), BOUNDS);
  assert.equal(bytes.toString(), 'a'.repeat(1021) + 'END');
  assert.equal(cut, true);
  // The check alone, fed a byte at a time and whole: neither refuses.
  for (const size of [1, 7, data.length]) {
    const check = new ZstdFrameCheck(BOUNDS);
    for (let at = 0; at < data.length; at += size) check.feed(data.subarray(at, at + size));
  }
});

test('a frame asking for a 2 GiB window is refused at its header, before anything is allocated', async () => {
  const rss = rssMiB(process.pid);
  const data = Buffer.concat([zstdFrame(Buffer.from('first\n')), windowedFrame(31, 'x')]);
  await assert.rejects(readZstdTail(fileOf(data), BOUNDS), (err: Error) => {
    assert.ok(err instanceof ZstdTooCostly, err.stack);
    assert.match(err.message, /asks for a 2147483648-byte window, over 8388608/);
    return true;
  });
  assert.ok(rssMiB(process.pid) < rss + 100, 'no 2 GiB window was made');
  // A single-segment frame's window is its content: bound by the bytes unpacked at most.
  const single = zstdFrame(Buffer.from('y'.repeat(BOUNDS.maxUnpackedBytes + 1)));
  await assert.rejects(readZstdTail(fileOf(single), BOUNDS), /asks for a 1048577-byte window, over 1048576/);
});

test('a run of 4 GiB stops at the unpacked bound, its tail kept small', async () => {
  const bomb = fileOf(zstdRunFrame(0x30, 4 * 1024 ** 3, 21));
  const started = Date.now();
  await assert.rejects(readZstdTail(bomb, BOUNDS), (err: Error) => {
    assert.ok(err instanceof ZstdTooCostly, err.stack);
    assert.match(err.message, /unpacks to more than 1048576 bytes/);
    return true;
  });
  assert.ok(Date.now() - started < 10_000);
  // And at its time, when that comes first.
  const slow = { ...BOUNDS, maxUnpackedBytes: 4 * 1024 ** 3, readForMs: 50 };
  await assert.rejects(readZstdTail(bomb, slow), /unpacking it took over 50 ms/);
});

test('not zstd, or a reserved block type: an error, not a hang', async () => {
  await assert.rejects(readZstdTail(fileOf(Buffer.from('plain text\n')), BOUNDS), /not a zstd frame|unknown|invalid/i);
  const reserved = windowedFrame(20, 'abc');
  reserved[6] = (reserved[6] & ~0b110) | 0b110; // block type 3
  const check = new ZstdFrameCheck(BOUNDS);
  assert.throws(() => check.feed(reserved), /reserved zstd block type/);
});
