// The emulator and the output cutter, without a PTY.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Emulator } from '../src/daemon/emulator/emulator';
import { SequenceBoundary } from '../src/daemon/pty/sequenceBoundary';

function written(emulator: Emulator, data: string): Promise<void> {
  return new Promise((resolve) => emulator.terminal.write(data, resolve));
}

test(
  'regression: an exception inside xterm.js (erase-in-display after a wrap in an origin-mode region) ' +
    'does not wedge parsing',
  async () => {
    const emulator = new Emulator({ cols: 32, rows: 18, scrollback: 100 });
    const errors: Error[] = [];
    emulator.onError((err) => errors.push(err));
    await written(emulator, '\x1b[6;18r\x1b[?6h\x1b[13;25H\x1b[?2026hｗｉｄｅ\x1b[?2026l\x1b[1J');
    await written(emulator, '\x1b[?6l\x1b[r\x1b[Hstill parsing');
    assert.equal(errors.length, 1, 'the xterm.js bug no longer throws: this containment can be revisited');
    assert.equal(emulator.lines()[0].trimEnd(), 'still parsing');
    assert.equal(emulator.backlog, 0);
    emulator.dispose();
  },
);

test('output is cut only between complete sequences and characters', () => {
  const cutter = new SequenceBoundary();
  const pieces: string[] = [];
  const feed = (bytes: Buffer) => {
    const piece = cutter.cut(bytes);
    if (piece) pieces.push(piece.toString('latin1'));
  };
  const stream = Buffer.from(
    'plain \x1b[31mred\x1b[0m \x1b]0;a title\x07 \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ ' +
      '漢字😀 \x1b(B\x1bPq#0;1\x1b\\ end',
    'utf8',
  );
  // Every split point: whatever the reads were, each piece ends on a boundary and nothing is lost.
  for (let split = 1; split < stream.length; split++) {
    pieces.length = 0;
    feed(stream.subarray(0, split));
    feed(stream.subarray(split));
    assert.equal(Buffer.from(pieces.join(''), 'latin1').toString('utf8'), stream.toString('utf8'), `split at ${split}`);
    for (const piece of pieces.slice(0, -1)) {
      const probe = new SequenceBoundary();
      assert.equal(
        probe.cut(Buffer.from(piece, 'latin1'))?.length,
        Buffer.byteLength(piece, 'latin1'),
        `piece ${JSON.stringify(piece)} ends inside a sequence (split ${split})`,
      );
    }
  }
  // One byte at a time.
  pieces.length = 0;
  for (const byte of stream) feed(Buffer.from([byte]));
  assert.equal(Buffer.from(pieces.join(''), 'latin1').toString('utf8'), stream.toString('utf8'));
  assert.equal(cutter.flush(), null);
});

test('plain runs are skipped to their last characters: the cuts of a byte-by-byte scan (random streams)', () => {
  const parts = [
    ...['a'.repeat(40), 'plain text of a line ', 'é'.repeat(30), '漢字'.repeat(12), '😀'.repeat(10), '\r\n'],
    ...['\x1b[31m', '\x1b]0;a title\x07', '\x1b]8;;http://x\x1b\\', '\x1bPq#0;1\x1b\\', '\x1b(B', '\x07\x18'],
  ].map((part) => Buffer.from(part, 'utf8'));
  // Bytes a program may print that are not whole UTF-8: a cut character, stray continuations, never-valid bytes.
  parts.push(
    Buffer.from([0xe6, 0xbc]),
    Buffer.from([0x80, 0x80]),
    Buffer.from([0xff, 0xc0, 0xf5]),
    Buffer.from([0xf0]),
  );
  let seed = 7;
  const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) >>> 8) % n;
  for (let round = 0; round < 300; round++) {
    const stream = Buffer.concat(Array.from({ length: 1 + random(40) }, () => parts[random(parts.length)]));
    // Byte by byte no run is long enough to skip: each piece ends at the next boundary, so together they are all.
    const boundaries = new Set<number>([0]);
    const oneByOne = new SequenceBoundary();
    let delivered = 0;
    for (let i = 0; i < stream.length; i++) {
      delivered += oneByOne.cut(stream.subarray(i, i + 1))?.length ?? 0;
      boundaries.add(delivered);
    }
    const cutter = new SequenceBoundary();
    delivered = 0;
    for (let at = 0; at < stream.length;) {
      const end = Math.min(stream.length, at + 1 + random(200));
      const piece = cutter.cut(stream.subarray(at, end));
      if (piece) assert.ok(piece.equals(stream.subarray(delivered, delivered + piece.length)), `round ${round}`);
      delivered += piece?.length ?? 0;
      let expected = end;
      while (!boundaries.has(expected)) expected--;
      assert.equal(
        delivered,
        expected,
        `round ${round}: cut at ${delivered}, the last boundary before ${end} is ${expected}`,
      );
      at = end;
    }
  }
});

test('an incomplete tail is held, then released by flush when the program ends', () => {
  const cutter = new SequenceBoundary();
  assert.equal(cutter.cut(Buffer.from('abc\x1b[3'))?.toString(), 'abc');
  assert.equal(cutter.flush()?.toString(), '\x1b[3');
  assert.equal(cutter.cut(Buffer.from([0xe6, 0xbc])), null);
  assert.deepEqual([...cutter.cut(Buffer.from([0xa2, 0x41]))!], [0xe6, 0xbc, 0xa2, 0x41]);
});

test("an agent's desktop notification (OSC 9, OSC 777 notify) is a bell; a progress report is not", async () => {
  const emulator = new Emulator({ cols: 40, rows: 5, scrollback: 10 });
  let bells = 0;
  emulator.onBell(() => bells++);
  await written(emulator, '\x07');
  assert.equal(bells, 1);
  await written(emulator, '\x1b]9;Claude needs your permission\x07');
  assert.equal(bells, 2);
  await written(emulator, '\x1b]777;notify;Codex;Approve the command?\x1b\\');
  assert.equal(bells, 3);
  await written(emulator, '\x1b]9;4;1;50\x07\x1b]777;other;x\x07plain text');
  assert.equal(bells, 3, 'progress and other OSC 777 are not attention');
  assert.equal(emulator.lines()[0].trimEnd(), 'plain text', 'the notification text is not printed');
  emulator.dispose();
});
