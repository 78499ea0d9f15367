// The history store and its capture: budget, blocks and compression, encoding of attribute runs and wraps.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HistoryStore, HistoryTuning } from '../src/daemon/historyStore';
import { plainText } from '../src/daemon/historyCapture';
import { Emulator } from '../src/daemon/emulator';

function parsed(emulator: Emulator, data: string): Promise<void> {
  emulator.write(Buffer.from(data, 'utf8'));
  return new Promise((resolve) => emulator.terminal.write('', resolve));
}

test('the store keeps the newest lines within its budget, across compressed blocks', () => {
  const store = new HistoryStore(1000);
  for (let i = 0; i < 3000; i++) store.push(`line ${i} ${'x'.repeat(40)}`);
  assert.equal(store.length, 1000);
  const all = store.slice();
  assert.equal(all[0], `line 2000 ${'x'.repeat(40)}`);
  assert.equal(all[999], `line 2999 ${'x'.repeat(40)}`);
  // Cold blocks are deflated: far fewer bytes than the text.
  assert.ok(store.footprint < 1000 * 48, `footprint ${store.footprint}`);
  assert.deepEqual(store.takeNewest(3), all.slice(997));
  assert.equal(store.length, 997);
  assert.equal(store.slice(996)[0], all[996]);
  assert.ok(HistoryTuning.BlockLines > 0);
});

test('lines leave the emulator as logical lines with their attributes and come back on a snapshot', async () => {
  const emulator = new Emulator({ cols: 20, rows: 5, scrollback: 1000, historyMargin: 0 });
  try {
    let data = '\x1b[31mred\x1b[0m plain ' + 'w'.repeat(30) + '\r\n';
    for (let i = 0; i < 20; i++) data += `row ${i}\r\n`;
    await parsed(emulator, data);
    assert.equal(emulator.historyLength, 0, 'while output flows, rows gather in xterm first');
    emulator.compactHistory();
    assert.ok(emulator.historyLength > 0);
    const lines = emulator.lines(1000);
    assert.equal(lines[0], 'red plain ' + 'w'.repeat(30), 'wrapped rows are one logical line');
    assert.equal(plainText('\x1b[0;31mab\x1b[0m\x1b[0;41m\x1b[3X'), 'ab');
    const replay = new Emulator({ cols: 20, rows: 5, scrollback: 1000, historyMargin: null });
    await parsed(replay, emulator.snapshot());
    const cell = replay.terminal.buffer.normal.getLine(0)!.getCell(0)!;
    assert.equal(cell.getFgColor(), 1);
    assert.equal(replay.terminal.buffer.normal.getLine(1)?.isWrapped, true);
    assert.deepEqual(replay.lines(1000).slice(0, 3), ['red plain wwwwwwwwww', 'wwwwwwwwwwwwwwwwwwww', 'row 0']);
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
    assert.deepEqual(emulator.lines(1000).filter((l) => l !== ''), []);
  } finally {
    emulator.dispose();
  }
});

test('regression: a cursor saved on a row that went to the store stays above the screen when a resize brings rows back', async () => {
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

test('while output flows, rows move to the store in batches; a quiet session moves all but the margin', async () => {
  const emulator = new Emulator({ cols: 20, rows: 5, scrollback: 10_000 });
  try {
    await parsed(emulator, Array.from({ length: HistoryTuning.CaptureRows + 100 }, (_, i) => `line ${i}`).join('\r\n'));
    const flowing = emulator.historyLength;
    assert.ok(flowing >= HistoryTuning.CaptureRows, `${flowing} lines in the store after ${HistoryTuning.CaptureRows + 100}`);
    // A second batch within CaptureIntervalMs waits.
    await parsed(emulator, '\r\n' + Array.from({ length: HistoryTuning.CaptureRows + 100 }, (_, i) => `more ${i}`).join('\r\n'));
    assert.equal(emulator.historyLength, flowing);
    emulator.compactHistory();
    const lines = emulator.lines(100_000);
    assert.equal(emulator.historyLength, lines.length - 5 - 5, 'xterm keeps the screen and one screen of scrollback');
    assert.equal(lines[0], 'line 0');
    assert.equal(lines[lines.length - 1], `more ${HistoryTuning.CaptureRows + 99}`);
  } finally {
    emulator.dispose();
  }
});
