// The history store and its capture: budget, blocks and compression, encoding of attribute runs and wraps.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HistoryStore, HistoryTuning } from '../src/daemon/common/historyStore';
import { plainText } from '../src/daemon/emulator/historyEncoding';
import { Emulator } from '../src/daemon/emulator/emulator';
import { parsed } from './helpers/emulatorParsed';

test('the store keeps the newest lines within its budget, across compressed blocks', () => {
  const store = new HistoryStore(5000);
  for (let i = 0; i < 12_000; i++) store.push(`line ${i} ${'x'.repeat(40)}`);
  assert.equal(store.length, 5000);
  const uncompressed = store.footprint;
  store.compress();
  const all = store.slice();
  assert.equal(all[0], `line 7000 ${'x'.repeat(40)}`);
  assert.equal(all[4999], `line 11999 ${'x'.repeat(40)}`);
  // Cold blocks are deflated: far fewer bytes than the text (the newest block stays as it is).
  assert.ok(store.footprint < uncompressed / 3, `footprint ${store.footprint} of ${uncompressed}`);
  assert.deepEqual(store.takeNewest(3), all.slice(4997));
  assert.equal(store.length, 4997);
  assert.equal(store.slice(4996)[0], all[4996]);
  // Taking more than the hot block holds unpacks a compressed one.
  assert.deepEqual(store.takeNewest(2000), all.slice(2997, 4997));
  assert.deepEqual(store.slice(), all.slice(0, 2997));
  assert.ok(HistoryTuning.BlockLines > 0);
});

test('lines leave the emulator as logical lines with their attributes and come back on a snapshot', async () => {
  const emulator = new Emulator({ cols: 20, rows: 5, scrollback: 1000, historyMargin: 0 });
  try {
    let data = '\x1b[31mred\x1b[0m plain ' + 'w'.repeat(30) + '\r\n';
    for (let i = 0; i < 20; i++) data += `row ${i}\r\n`;
    await parsed(emulator, data);
    assert.ok(emulator.historyLength > 0);
    const lines = emulator.lines(1000);
    assert.equal(lines[0], 'red plain ' + 'w'.repeat(30), 'wrapped rows are one logical line');
    assert.equal(plainText('\x1b[0;31mab\x1b[0m\x1b[0;41m\x1b[3X'), 'ab');
    const replay = new Emulator({ cols: 20, rows: 5, scrollback: 1000, historyMargin: null });
    await parsed(replay, emulator.snapshot());
    const cell = replay.terminal.buffer.normal.getLine(0)!.getCell(0)!;
    assert.equal(cell.getFgColor(), 1);
    assert.equal(replay.terminal.buffer.normal.getLine(1)?.isWrapped, true);
    // Read back as the same logical lines, though the replay holds them as wrapped rows.
    assert.deepEqual(replay.lines(1000).slice(0, 3), ['red plain ' + 'w'.repeat(30), 'row 0', 'row 1']);
    replay.dispose();
  } finally {
    emulator.dispose();
  }
});

test('ED 3 (what `clear` sends) erases the stored history with the scrollback', async () => {
  const emulator = new Emulator({ cols: 20, rows: 5, scrollback: 1000 });
  try {
    await parsed(emulator, Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\r\n'));
    emulator.compactHistory();
    assert.ok(emulator.historyLength > 30);
    await parsed(emulator, '\x1b[H\x1b[2J\x1b[3J');
    assert.equal(emulator.historyLength, 0);
    assert.deepEqual(
      emulator.lines(1000).filter((l) => l !== ''),
      [],
    );
  } finally {
    emulator.dispose();
  }
});

test('regression: a cursor saved on a stored row stays above the screen when a resize brings rows back', async () => {
  // Against a terminal that kept everything: before, the restored cursor landed 16 rows too low.
  const emulator = new Emulator({ cols: 20, rows: 4, scrollback: 1000 });
  const reference = new Emulator({ cols: 20, rows: 4, scrollback: 1000, historyMargin: null });
  try {
    const data = 'saved here\x1b7' + Array.from({ length: 30 }, (_, i) => `\r\nline ${i}`).join('');
    for (const e of [emulator, reference]) {
      await parsed(e, data);
      e.compactHistory();
      e.resize(20, 12);
      await parsed(e, '\x1b8restored');
    }
    assert.ok(emulator.historyLength > 0);
    assert.deepEqual(emulator.cursor(), reference.cursor());
    assert.deepEqual(emulator.lines(1000), reference.lines(1000));
  } finally {
    emulator.dispose();
    reference.dispose();
  }
});

// ...and a quiet session keeps one screen of them in xterm.
/** xterm's rows in the normal buffer (the screen, the rows it keeps above, and any not captured yet). */
function xtermRows(emulator: Emulator): number {
  return (emulator.terminal as unknown as { _core: { buffers: { normal: { lines: { length: number } } } } })._core
    .buffers.normal.lines.length;
}

/** The eager bound: the screen, the kept rows (a screen's height), the slack and one slice. */
const eagerRows = (rows: number) => rows + rows + HistoryTuning.KeptRowSlack + HistoryTuning.SliceBytes + 1;

/** `count` numbered lines, some coloured and some wide, joined without a last line break. */
function numberedLines(count: number): string[] {
  return Array.from({ length: count }, (_, i) =>
    i % 3 === 0 ? `\x1b[3${i % 8}mline ${i}\x1b[0m` : i % 7 === 0 ? `ｗｉｄｅ ${i}` : `line ${i}`,
  );
}

/** Writes `data` 64 KiB at a time (as a PTY read can deliver), all before any is parsed: a flood's backlog. */
function flood(emulator: Emulator, data: Buffer): void {
  for (let at = 0; at < data.length; at += 65_536) emulator.write(data.subarray(at, at + 65_536));
}

test('a flood keeps exactly the newest lines, and encodes only the ones left when it ends', async () => {
  const emulator = new Emulator({ cols: 20, rows: 5, scrollback: 3000 });
  try {
    const lines = numberedLines(20_000);
    flood(emulator, Buffer.from(lines.join('\r\n'), 'utf8'));
    await parsed(emulator, '');
    assert.equal(emulator.historyLostRows, 0);
    // The parser was behind: capture waited, and xterm held the scrollback itself.
    assert.equal(xtermRows(emulator), 5 + 3000, 'xterm holds the scrollback while capture is deferred');
    assert.ok(emulator.historyLength < 1000, `the store took ${emulator.historyLength} lines before the flood ended`);
    const expected = lines.slice(-3005).map((l) => l.replace(/\x1b\[[0-9;]*m/g, ''));
    assert.deepEqual(emulator.lines(100_000), expected);
    emulator.compactHistory();
    assert.equal(xtermRows(emulator), 10, 'the screen and one screen of scrollback');
    assert.deepEqual(emulator.lines(100_000), expected);
    // The next output is captured as it goes: the deferral's room went with it.
    await parsed(emulator, `\r\n${numberedLines(2000).join('\r\n')}`);
    assert.ok(xtermRows(emulator) <= eagerRows(5), `xterm holds ${xtermRows(emulator)} rows`);
    assert.equal(emulator.historyLostRows, 0);
  } finally {
    emulator.dispose();
  }
});

test('deferring is bounded per thread: past the budget a flooding session captures as it goes', async () => {
  // Each holds 200 x 10,010 cells while deferring: one fits in the budget, a second does not.
  const make = () => new Emulator({ cols: 200, rows: 10, scrollback: 10_000 });
  const cells = 200 * 10_010;
  assert.ok(cells <= HistoryTuning.DeferredCellsPerThread && 2 * cells > HistoryTuning.DeferredCellsPerThread);
  const emulators = [make(), make()];
  const data = Buffer.from(numberedLines(30_000).join('\r\n'), 'utf8');
  try {
    for (const e of emulators) flood(e, data);
    await Promise.all(emulators.map((e) => parsed(e, '')));
    // Both parse at once, in turns: whichever fills its scrollback first takes the budget.
    const deferred = emulators.filter((e) => xtermRows(e) > eagerRows(10));
    assert.equal(deferred.length, 1, 'one deferred, the other captured as it went');
    const expected = emulators[0].lines(100_000);
    assert.equal(expected.length, 10_010);
    for (const e of emulators) {
      assert.equal(e.historyLostRows, 0);
      assert.deepEqual(e.lines(100_000), expected, 'both keep the same lines');
    }
    // Disposing a deferring session gives its cells back: a new flood defers again.
    emulators.splice(emulators.indexOf(deferred[0]), 1);
    deferred[0].dispose();
    const next = make();
    emulators.push(next);
    flood(next, data);
    await parsed(next, '');
    assert.ok(xtermRows(next) > eagerRows(10), 'the budget came back');
  } finally {
    for (const e of emulators) e.dispose();
  }
});

test('output that fills the scrollback no more than once is captured as it goes', async () => {
  const emulator = new Emulator({ cols: 20, rows: 5, scrollback: 3000 });
  try {
    flood(emulator, Buffer.from(numberedLines(2900).join('\r\n'), 'utf8'));
    await parsed(emulator, '');
    assert.ok(xtermRows(emulator) <= eagerRows(5), `xterm holds ${xtermRows(emulator)} rows`);
    assert.equal(emulator.historyLength, 2900 - 5 - 5, 'all but the screen and the kept rows in the store');
  } finally {
    emulator.dispose();
  }
});

test('a snapshot taken while capture is deferred rebuilds the same lines', async () => {
  const emulator = new Emulator({ cols: 20, rows: 5, scrollback: 3000 });
  try {
    let taken: { snapshot: string; lines: string[] } | undefined;
    const listener = emulator.onParsed(() => {
      // Mid-flood, once xterm holds more rows than capturing as it goes would leave it.
      if (taken || emulator.backlog === 0 || xtermRows(emulator) <= eagerRows(5) + 1000) return;
      taken = { snapshot: emulator.snapshot(), lines: emulator.lines(100_000) };
    });
    flood(emulator, Buffer.from(numberedLines(20_000).join('\r\n'), 'utf8'));
    await parsed(emulator, '');
    listener.dispose();
    assert.ok(taken, 'a snapshot was taken while deferring');
    assert.ok(taken.lines.length > 1000);
    const replay = new Emulator({ cols: 20, rows: 5, scrollback: 10_000, historyMargin: null });
    await parsed(replay, taken.snapshot);
    assert.deepEqual(replay.lines(100_000), taken.lines);
    replay.dispose();
  } finally {
    emulator.dispose();
  }
});

test('a resize in the middle of a flood ends its deferral without losing or repeating a line', async () => {
  const emulator = new Emulator({ cols: 30, rows: 8, scrollback: 3000 });
  try {
    const count = 40_000;
    flood(emulator, Buffer.from(numberedLines(count).join('\r\n'), 'utf8'));
    // Between two of xterm's parse batches, as a client's resize reaches a flooding session.
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.ok(emulator.backlog > 0, 'the flood is still being parsed');
    emulator.resize(25, 6);
    await parsed(emulator, '');
    assert.equal(emulator.historyLostRows, 0);
    emulator.compactHistory();
    const numbers = emulator.lines(100_000).map((line) => Number(/(\d+)$/.exec(line)?.[1] ?? NaN));
    assert.ok(numbers.length >= 3000, `${numbers.length} lines kept`);
    const first = numbers[0];
    assert.deepEqual(
      numbers,
      Array.from({ length: numbers.length }, (_, i) => first + i),
      'consecutive lines',
    );
    assert.equal(numbers.at(-1), count - 1);
  } finally {
    emulator.dispose();
  }
});

test('a line longer than xterm keeps is stored in pieces that snapshots and reflow join again', async () => {
  const emulator = new Emulator({ cols: 20, rows: 5, scrollback: 10_000 });
  const reference = new Emulator({ cols: 20, rows: 5, scrollback: 10_000, historyMargin: null });
  try {
    const long = Array.from({ length: 600 }, (_, i) => (i % 5 === 0 ? `\x1b[3${i % 8}m${i}ｗ\x1b[0m` : `${i}-`)).join(
      '',
    );
    const data = `before\r\n${long}\r\nafter\r\n`;
    for (const e of [emulator, reference]) await parsed(e, data);
    assert.equal(emulator.historyLostRows, 0);
    emulator.compactHistory();
    assert.ok(emulator.historyLength > 2, 'pieces in the store');
    for (const [cols, rows] of [
      [57, 9],
      [13, 4],
      [20, 5],
    ]) {
      for (const e of [emulator, reference]) e.resize(cols, rows);
      emulator.compactHistory();
      const replayOf = async (e: Emulator) => {
        const replay = new Emulator({ cols, rows, scrollback: 10_000, historyMargin: null });
        await parsed(replay, e.snapshot());
        const lines = replay.lines(10_000);
        replay.dispose();
        return lines;
      };
      assert.deepEqual(await replayOf(emulator), await replayOf(reference), `at ${cols}x${rows}`);
    }
  } finally {
    emulator.dispose();
    reference.dispose();
  }
});
