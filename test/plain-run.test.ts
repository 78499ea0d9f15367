// Plain text that scrolls out of all a session keeps is skipped, not parsed (src/daemon/emulator/plainRun.ts):
// an emulator that skips must end in exactly the state of one that parses every byte.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Emulator } from '../src/daemon/emulator/emulator';
import { skipTarget } from '../src/daemon/emulator/plainRun';
import { allParsed } from './helpers/emulatorParsed';
import { rng } from './helpers/vtFuzz';

const RUNS = Math.ceil(Number(process.env.HOLDFAST_FUZZ_RUNS ?? 300) / 3);

const bytes = (text: string) => Buffer.from(text, 'latin1');
const resumeAt = (...args: Parameters<typeof skipTarget>) => skipTarget(...args)?.resume;

test('the skip lands on the last CR that enough LFs of the same plain run follow', () => {
  const chunks = [bytes('a\r\nb\r\n'), bytes('c\r\nd\r'), bytes('\ne\r\n')];
  // Five LFs in all: two must follow the CR, the last such CR is the one before "d"'s LF.
  assert.deepEqual(resumeAt(chunks, { chunk: 0, offset: 0 }, 2), { chunk: 1, offset: 4 });
  assert.deepEqual(resumeAt(chunks, { chunk: 0, offset: 0 }, 4), { chunk: 0, offset: 4 });
  assert.deepEqual(resumeAt(chunks, { chunk: 0, offset: 0 }, 5), { chunk: 0, offset: 1 });
  assert.equal(resumeAt(chunks, { chunk: 0, offset: 0 }, 6), undefined, 'not enough LFs');
  assert.equal(resumeAt(chunks, { chunk: 0, offset: 1 }, 5), undefined, 'the CR is where parsing is');
  // A byte that is not plain (ESC) ends the run: the LFs after it do not count.
  const broken = [bytes('a\r\nb\r\n\x1b[31m'), bytes('c\r\nd\r\ne\r\n')];
  assert.equal(resumeAt(broken, { chunk: 0, offset: 0 }, 3), undefined);
  assert.deepEqual(resumeAt(broken, { chunk: 1, offset: 0 }, 2), { chunk: 1, offset: 4 });
  // The screen is exact again at the run's end: the ESC, or the end of the queue.
  assert.deepEqual(skipTarget(broken, { chunk: 0, offset: 0 }, 1)?.runEnd, { chunk: 0, offset: 6 });
  assert.deepEqual(skipTarget(chunks, { chunk: 0, offset: 0 }, 2)?.runEnd, { chunk: 3, offset: 0 });
  // Bare LFs count; a run with no CR to land on is parsed whole.
  assert.equal(resumeAt([bytes('a\nb\nc\nd\n')], { chunk: 0, offset: 0 }, 2), undefined);
});

interface Case {
  cols: number;
  rows: number;
  scrollback: number;
  /** Groups of writes; each group is written at once and parsed before the next (and a resize, maybe). */
  groups: { data: string; resize?: { cols: number; rows: number } }[];
}

/** Streams of long plain runs between the sequences that change what plain text does. */
function randomCase(seed: number): Case {
  const r = rng(seed);
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(items: T[]): T => items[int(items.length)];
  const cols = 8 + int(33);
  const rows = 3 + int(10);
  // Above what xterm holds while capturing as it goes (rows, 64 kept, 256 a slice): below it, a line
  // that wraps over more rows than are left loses its first rows whether or not text was skipped.
  const scrollback = 400 + int(300);
  const capacity = scrollback + 2 * rows;
  const plainLine = () => {
    let line = '';
    const length = int(r() < 0.2 ? 3 * cols : cols);
    for (let i = 0; i < length; i++) line += r() < 0.05 ? '\t' : String.fromCharCode(0x20 + int(0x5f));
    if (r() < 0.1) line += '\r' + 'x'.repeat(int(cols));
    return line + pick(['\r\n', '\r\n', '\r\n', '\n', '\r\n\r\n']);
  };
  const state = [
    '\x1b[31m',
    '\x1b[42;1m',
    '\x1b[0m',
    '\x1b[2;4r',
    '\x1b[r',
    '\x1b[?1049h',
    '\x1b[?1049l',
    '\x1b[H',
    '\x1b[3;2H',
    '\x1b[2J',
    '\x1b]0;title\x07',
    'é中\r\n',
    '\x1b7',
    '\x1b8',
    '\x1b[4h',
    '\x1b[4l',
    '\x1b[?7l',
    '\x1b[?7h',
    '\x1b[?6h',
    '\x1b[?6l',
    '\x1b(0',
    '\x1b(B',
    '\x08\x08',
    '\x1b[3J',
    '\x1b[1;1H\x1b[2K',
  ];
  const groups: Case['groups'] = [];
  const count = 1 + int(3);
  for (let g = 0; g < count; g++) {
    let data = '';
    for (let s = 0, segments = 2 + int(4); s < segments; s++) {
      if (r() < 0.6) data += pick(state);
      const lines = int(r() < 0.6 ? 2.5 * capacity : capacity / 2);
      for (let l = 0; l < lines; l++) data += plainLine();
    }
    const resize = r() < 0.3 ? { cols: 8 + int(33), rows: 3 + int(10) } : undefined;
    groups.push({ data, resize });
  }
  return { cols, rows, scrollback, groups };
}

/** `data` cut in random pieces (anywhere, even inside a sequence or a character). */
function pieces(data: Buffer, r: () => number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < data.length;) {
    const end = Math.min(data.length, at + 1 + Math.floor(r() * 6000));
    out.push(data.subarray(at, end));
    at = end;
  }
  return out;
}

/**
 * Writes the pieces, waiting for the emulator to parse every 48 KiB: past 64 KiB waiting, a flood
 * defers history capture (historyCapture.ts), and a deferring emulator keeps the scrollback's rows,
 * not its lines, so of wrapped lines it keeps fewer. Which one defers is a matter of timing in a
 * daemon; here neither does.
 */
async function writeAll(emulator: Emulator, data: Buffer[]): Promise<void> {
  let unparsed = 0;
  for (const piece of data) {
    emulator.write(piece);
    unparsed += piece.length;
    if (unparsed < 48 * 1024) continue;
    await allParsed(emulator);
    unparsed = 0;
  }
  await allParsed(emulator);
}

/** What a reader sees at a cut: every line, the cursor. */
function atCut(emulator: Emulator): string {
  return JSON.stringify([emulator.lines(Infinity), emulator.cursor()]);
}

function state(emulator: Emulator): unknown {
  return {
    snapshot: emulator.snapshot(),
    lines: emulator.lines(Infinity),
    cursor: emulator.cursor(),
    title: emulator.title,
    historyLength: emulator.historyLength,
  };
}

test(`skipping plain text, an emulator is at each cut it reports as one parsing all (${RUNS} streams)`, async () => {
  let skipped = 0;
  let seedsThatSkipped = 0;
  for (let seed = 1; seed <= RUNS; seed++) {
    const c = randomCase(seed);
    const options = { cols: c.cols, rows: c.rows, scrollback: c.scrollback };
    const skipping = new Emulator(options);
    const parsing = new Emulator(options);
    parsing.skipsPlainText = false;
    // The skipping one goes first; the other is compared with it at each cut it reported.
    const cuts = new Map<number, string>();
    let reported = 0;
    skipping.onParsed((count) => {
      reported += count;
      cuts.set(reported, atCut(skipping));
    });
    let chunks = 0;
    const wrongCuts: number[] = [];
    parsing.onParsed(() => {
      const seen = cuts.get(++chunks);
      if (seen !== undefined && seen !== atCut(parsing)) wrongCuts.push(chunks);
    });
    try {
      const r = rng(seed * 7919);
      for (const group of c.groups) {
        const data = pieces(Buffer.from(group.data, 'utf8'), r);
        await writeAll(skipping, data);
        await writeAll(parsing, data);
        assert.equal(reported, chunks, `seed ${seed}: every chunk reported parsed, skipped ones too`);
        assert.deepEqual(wrongCuts, [], `seed ${seed}: cuts where the screens differ`);
        assert.deepEqual(state(skipping), state(parsing), `seed ${seed}: the state after a group`);
        if (group.resize) {
          for (const e of [skipping, parsing]) e.resize(group.resize.cols, group.resize.rows);
          assert.deepEqual(state(skipping), state(parsing), `seed ${seed}: the state after a resize`);
        }
        for (const e of [skipping, parsing]) e.compactHistory();
        assert.deepEqual(state(skipping), state(parsing), `seed ${seed}: the state once compacted`);
      }
      assert.equal(skipping.parsed, parsing.parsed, `seed ${seed}: every byte counted as parsed`);
      assert.equal(parsing.plainBytesSkipped, 0);
      skipped += skipping.plainBytesSkipped;
      if (skipping.plainBytesSkipped > 0) seedsThatSkipped++;
    } finally {
      skipping.dispose();
      parsing.dispose();
    }
  }
  // The streams must keep exercising the skip.
  assert.ok(seedsThatSkipped > RUNS / 3, `${seedsThatSkipped} of ${RUNS} streams skipped (${skipped} bytes)`);
});
