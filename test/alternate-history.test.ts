// Rows that scroll off a full-screen program's alternate screen become history (alternateScroll.ts):
// on the emulator (which regions count, redraws add nothing, the normal screen is untouched), then
// with a stand-in agent on a real PTY through a real daemon: `read`, `search` and `holdfast grep`.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { ALTERNATE_END, ALTERNATE_MARKER } from '../src/daemon/emulator/alternateScroll';
import { Emulator } from '../src/daemon/emulator/emulator';
import { parsed } from './helpers/emulatorParsed';
import type { HoldfastClient } from '../src/client/client';
import type { SearchResult } from '../src/protocol/messages';
import { startTestDaemon, type TestDaemon } from './helpers/daemon';
import { runCli } from './helpers/cli';

/** A full-screen program's frame: numbered lines scrolling through rows 1..rows-1, a status line below. */
function scrollingFrames(rows: number, from: number, to: number): string {
  let out = `\x1b[1;${rows - 1}r`;
  for (let i = from; i <= to; i++) out += `\x1b[${rows - 1};1H\r\nline ${i}\x1b[${rows};1H\x1b[2Kstatus ${i}`;
  return out;
}

describe('the emulator keeps what scrolls off the alternate screen', () => {
  test('a region from the top row above a status line counts; the status line does not scroll', async () => {
    const emulator = new Emulator({ cols: 30, rows: 6, scrollback: 1000 });
    try {
      await parsed(emulator, 'before\r\n\x1b[?1049h\x1b[H\x1b[2J' + scrollingFrames(6, 1, 20));
      // Rows 1-5 hold lines 16-20; 1-15 left the top (the blank rows before them are not history).
      const expected = [ALTERNATE_MARKER, ...Array.from({ length: 15 }, (_, i) => `line ${i + 1}`)];
      assert.deepEqual(emulator.lines(Infinity).slice(0, 16), expected);
      assert.equal(emulator.alternateLength, 16);
      assert.deepEqual(emulator.lines(Infinity).slice(16, 22), [
        'line 16',
        'line 17',
        'line 18',
        'line 19',
        'line 20',
        'status 20',
      ]);
      // `read` with a little scrollback: the newest rows behind the marker.
      assert.deepEqual(emulator.lines(3).slice(0, 3), [ALTERNATE_MARKER, 'line 14', 'line 15']);
      assert.deepEqual(emulator.lines(0).length, 6);
      // SU on a full-screen region: its top rows leave too.
      await parsed(emulator, '\x1b[r\x1b[2S');
      assert.deepEqual(emulator.lines(Infinity).slice(14, 18), ['line 14', 'line 15', 'line 16', 'line 17']);
      // Back on the normal screen: the rows come first, closed by the end line, then the normal history.
      await parsed(emulator, '\x1b[?1049l');
      const lines = emulator.lines(Infinity);
      assert.deepEqual(lines.slice(17, 20), ['line 17', ALTERNATE_END, 'before']);
      assert.equal(emulator.alternateLength, 19);
      // Another stay starts with its own marker.
      await parsed(emulator, '\x1b[?1049h\x1b[H\x1b[2J' + scrollingFrames(6, 100, 106));
      assert.deepEqual(emulator.lines(Infinity).slice(18, 21), [ALTERNATE_MARKER, 'line 100', 'line 101']);
    } finally {
      emulator.dispose();
    }
  });

  test('a region that starts lower, redraws and the normal screen add nothing', async () => {
    const emulator = new Emulator({ cols: 30, rows: 6, scrollback: 1000 });
    try {
      await parsed(emulator, Array.from({ length: 50 }, (_, i) => `normal ${i}\r\n`).join(''));
      emulator.compactHistory();
      await parsed(emulator, '\x1b[?1049h\x1b[H\x1b[2Jheader');
      // A pane below a header line: its rows scroll inside the program's own layout.
      await parsed(emulator, '\x1b[2;6r\x1b[6;1H' + Array.from({ length: 30 }, (_, i) => `pane ${i}\r\n`).join(''));
      // Frames redrawn in place, the way full-screen agents repaint.
      for (let i = 0; i < 30; i++) await parsed(emulator, `\x1b[r\x1b[H\x1b[2Jframe ${i}\x1b[6;1Hstatus ${i}`);
      assert.equal(emulator.alternateLength, 0);
      assert.deepEqual(emulator.lines(1000), ['frame 29', '', '', '', '', 'status 29']);
      await parsed(emulator, '\x1b[?1049l');
      assert.equal(emulator.alternateLength, 0);
      assert.equal(emulator.lines(1000)[0], 'normal 0');
    } finally {
      emulator.dispose();
    }
  });

  test('the rows keep to the scrollback setting, and RIS clears them', async () => {
    const emulator = new Emulator({ cols: 30, rows: 6, scrollback: 100 });
    try {
      await parsed(emulator, '\x1b[?1049h' + scrollingFrames(6, 1, 500));
      const lines = emulator.lines(Infinity);
      // The oldest rows (and their stored marker) went first; the marker is shown in front still.
      assert.equal(emulator.alternateLength, 101);
      assert.deepEqual(lines.slice(0, 2), [ALTERNATE_MARKER, 'line 396']);
      assert.equal(lines[100], 'line 495');
      emulator.scrollback = 10;
      assert.deepEqual(emulator.lines(Infinity).slice(0, 2), [ALTERNATE_MARKER, 'line 486']);
      await parsed(emulator, '\x1bc');
      assert.equal(emulator.alternateLength, 0);
      // DL on the top row deletes it out of the region's top, as vim scrolls; ED 3 on the normal screen clears.
      await parsed(emulator, '\x1b[?1049h\x1b[Htop row\x1b[2;1Hsecond\x1b[3;1H\x1b[M\x1b[H\x1b[M');
      assert.deepEqual(emulator.lines(10).slice(0, 3), [ALTERNATE_MARKER, 'top row', 'second']);
      await parsed(emulator, '\x1b[?1049l\x1b[3J');
      assert.equal(emulator.alternateLength, 0);
    } finally {
      emulator.dispose();
    }
  });
});

const cli = runCli;

/**
 * A stand-in full-screen agent: the alternate screen, a region above a status line, 400 numbered
 * unique lines scrolling through it; on a line of input it leaves the alternate screen.
 */
const STAND_IN = `
const rows = process.stdout.rows;
let out = '\\x1b[?1049h\\x1b[H\\x1b[2J\\x1b[1;' + (rows - 1) + 'r';
for (let i = 1; i <= 400; i++) {
  out += '\\x1b[' + (rows - 1) + ';1H\\r\\nagent says ' + i + ' uniq-' + (i * 7919);
  out += '\\x1b[' + rows + ';1H\\x1b[2Kstatus: ' + i;
}
process.stdout.write(out + ' READY');
process.stdin.once('data', () => process.stdout.write('\\x1b[r\\x1b[?1049lLEFT-ALT\\r\\n'));
setInterval(() => {}, 1000);
`;

/** A stand-in that only redraws its frames in place (no scroll). */
const REDRAWING = `
let out = '\\x1b[?1049h';
for (let i = 1; i <= 200; i++) out += '\\x1b[H\\x1b[2Jredraw-frame ' + i + '\\x1b[' + process.stdout.rows + ';1Hstatus';
process.stdout.write(out + ' DRAWN');
setInterval(() => {}, 1000);
`;

describe('a stand-in agent scrolling inside the alternate screen, through the daemon', () => {
  let daemon: TestDaemon;
  let client: HoldfastClient;
  let agent: string;
  before(async () => {
    daemon = await startTestDaemon();
    client = await daemon.connect();
    const created = await client.request('create', {
      name: 'agent',
      argv: [process.execPath, '-e', STAND_IN],
      cols: 80,
      rows: 24,
    });
    agent = created.session.id;
    await client.request('wait', { session: agent, condition: { kind: 'text', pattern: 'READY' }, timeoutMs: 10_000 });
    const redrawing = await client.request('create', {
      name: 'redraw',
      argv: [process.execPath, '-e', REDRAWING],
      cols: 80,
      rows: 24,
    });
    await client.request('wait', {
      session: redrawing.session.id,
      condition: { kind: 'text', pattern: 'DRAWN' },
      timeoutMs: 10_000,
    });
  });
  after(async () => {
    await daemon.stop();
    fs.rmSync(daemon.dir, { recursive: true, force: true });
  });

  test('search finds an early line that scrolled off, flagged, numbered as read numbers it', async () => {
    const { matches } = await client.request('search', { pattern: 'uniq-7919$', context: 1 });
    assert.equal(matches.length, 1);
    const [m] = matches;
    assert.deepEqual(
      [m.name, m.line, m.text, m.before, m.alternate],
      ['agent', 1, 'agent says 1 uniq-7919', [ALTERNATE_MARKER], true],
    );
    const { lines } = await client.request('read', { session: agent, scrollback: Number.MAX_SAFE_INTEGER });
    assert.equal(lines[m.line], m.text);
    const history = { kind: 'text', pattern: 'uniq-7919$', history: true } as const;
    assert.equal((await client.request('wait', { session: agent, condition: history, timeoutMs: 5000 })).met, true);
    // 400 lines, 23 rows of region: 377 left the top; the screen is the newest 23 and the status line.
    assert.equal(lines.length, 1 + 377 + 24);
    assert.equal(lines[lines.length - 1], 'status: 400 READY');
    // A line still on the screen is found unflagged.
    const onScreen = await client.request('search', { pattern: 'says 400 ', session: 'agent' });
    assert.deepEqual(
      onScreen.matches.map((s) => [s.line, s.alternate]),
      [[lines.length - 2, undefined]],
    );
  });

  test("the marker lines are the daemon's, not matched", async () => {
    const { matches } = await client.request('search', { pattern: 'full-screen program', session: 'agent' });
    assert.deepEqual(matches, []);
  });

  test('a program that only redraws adds nothing', async () => {
    const { matches } = await client.request('search', { pattern: 'redraw-frame', session: 'redraw' });
    assert.deepEqual(
      matches.map((m) => [m.line, m.text, m.alternate]),
      [[0, 'redraw-frame 200', undefined]],
    );
  });

  test('holdfast grep prints the marker as context; after the program leaves, the lines stay', async () => {
    const env = { ...daemon.env };
    delete env.HOLDFAST_SESSION;
    const found = await cli(env, ['grep', 'uniq-15838$', '--context', '1', '--session', 'agent']);
    assert.equal(found.code, 0, found.stderr);
    assert.equal(
      found.stdout,
      'agent-2- agent says 1 uniq-7919\n' +
        'agent[alternate]:3: agent says 2 uniq-15838\n' +
        'agent-4- agent says 3 uniq-23757\n',
    );
    const marker = await cli(env, ['grep', 'uniq-7919$', '--context', '1', '--session', 'agent']);
    assert.equal(marker.stdout.split('\n')[0], `agent-1- ${ALTERNATE_MARKER}`);
    await client.request('send', { session: agent, data: '\r' });
    await client.request('wait', {
      session: agent,
      condition: { kind: 'text', pattern: 'LEFT-ALT' },
      timeoutMs: 10_000,
    });
    const json = await cli(env, ['grep', 'uniq-7919$', '--json']);
    const result = JSON.parse(json.stdout) as SearchResult;
    assert.deepEqual(
      result.matches.map((m) => [m.name, m.line, m.alternate]),
      [['agent', 1, true]],
    );
    const { lines } = await client.request('read', { session: agent, scrollback: Number.MAX_SAFE_INTEGER });
    assert.deepEqual(lines.slice(377, 380), ['agent says 377 uniq-2985463', ALTERNATE_END, 'LEFT-ALT']);
  });
});
