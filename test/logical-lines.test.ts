// Long lines read whole: a line longer than the rows the emulator keeps is stored in pieces, across
// history blocks, and goes on into the emulator's rows and onto the screen; `read` with scrollback,
// search and text waits see one line, numbered as one, with a needle straddling each kind of seam.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Emulator } from '../src/daemon/emulator/emulator';
import { parsed } from './helpers/emulatorParsed';
import { decodeStoredLines, pieceText } from '../src/daemon/common/historyStore';
import { logicalLines, type SessionTextCopy } from '../src/daemon/common/sessionText';
import { runJob } from '../src/daemon/search/textJobs';
import { MAX_LINE_CHARS } from '../src/protocol/limits';
import type { SearchResult } from '../src/protocol/messages';

/** Line `l`: 125 tokens `LlllMmmmm`, 1,125 characters, every 9-character window unique to it. */
function longLine(l: number): string {
  let line = '';
  for (let m = 0; m < 125; m++) line += `L${String(l).padStart(3, '0')}M${String(m).padStart(4, '0')}`;
  return line;
}

interface Seam {
  line: number;
  /** Characters of the line before the seam. */
  offset: number;
}

/** Where the copy's text is cut, by kind: between stored pieces, between history blocks, store to rows, rows. */
function seams(copy: SessionTextCopy): Record<'piece' | 'block' | 'storeToRows' | 'row' | 'screen', Seam[]> {
  const found = {
    piece: [] as Seam[],
    block: [] as Seam[],
    storeToRows: [] as Seam[],
    row: [] as Seam[],
    screen: [] as Seam[],
  };
  const blockStarts = new Set<number>();
  let item = 0;
  for (const block of copy.stored) blockStarts.add((item += block.to - block.from));
  const items = decodeStoredLines(copy.stored);
  let line = 0;
  let offset = 0;
  items.forEach((encoded, i) => {
    const { text, continues } = pieceText(encoded);
    offset += text.length;
    if (!continues) return void ((line += 1), (offset = 0));
    if (i === items.length - 1) found.storeToRows.push({ line, offset });
    else if (blockStarts.has(i + 1)) found.block.push({ line, offset });
    else found.piece.push({ line, offset });
  });
  copy.rows.forEach((row, i) => {
    if (i > 0 && !copy.wrapped[i]) [line, offset] = [line + 1, 0];
    if (copy.wrapped[i] && i > 0) (i === copy.screenRow ? found.screen : found.row).push({ line, offset });
    offset += row.length;
  });
  return found;
}

async function search(copy: SessionTextCopy, pattern: string): Promise<SearchResult> {
  const answer = await runJob({
    kind: 'search',
    pattern,
    flags: '',
    context: 0,
    limit: 10,
    sessions: [{ session: 's', name: 's', text: copy, cwd: '/' }],
  });
  assert.ok(answer.ok, JSON.stringify(answer));
  return answer.result as SearchResult;
}

test('a needle straddling a stored piece, a history block, the store and the screen is found on its line', async () => {
  // At 21 columns the 1,024th stored piece ends inside a line (the test checks each kind of seam is there).
  const emulator = new Emulator({ cols: 21, rows: 5, scrollback: 100_000 });
  try {
    const expected = Array.from({ length: 300 }, (_, l) => longLine(l));
    await parsed(emulator, expected.join('\r\n'));
    // Quiet: the older blocks are compressed, so the block seam is between a compressed and a plain one.
    emulator.compactHistory();
    const copy = emulator.textCopy(true);
    const found = seams(copy);
    for (const kind of ['piece', 'block', 'storeToRows', 'row', 'screen'] as const)
      assert.ok(found[kind].length > 0, `the text has a seam of kind ${kind}`);

    // `read` with scrollback and the worker's decoding give the lines as printed, whole.
    assert.deepEqual(emulator.lines(Infinity), expected);
    assert.deepEqual(logicalLines(copy).lines, expected);

    for (const [kind, seamsOfKind] of Object.entries(found)) {
      const seam = seamsOfKind[0];
      const needle = expected[seam.line].slice(seam.offset - 9, seam.offset + 9);
      const { matches } = await search(copy, needle);
      assert.deepEqual(
        matches.map((m) => [m.line, m.text]),
        [[seam.line, expected[seam.line]]],
        `${kind} seam at line ${seam.line}, offset ${seam.offset}: ${needle}`,
      );
    }

    // A text wait sees whole lines too: on the screen alone, the last line's end straddles two rows.
    const test = async (pattern: string, history: boolean) => {
      const answer = await runJob({ kind: 'test', pattern, flags: '', text: emulator.textCopy(history) });
      assert.ok(answer.ok);
      return answer.result;
    };
    assert.equal(await test('L299M0124', false), true);
    assert.equal(await test('L000M0000', false), false);
    assert.equal(await test(expected[5].slice(1100, 1125), true), true);
  } finally {
    emulator.dispose();
  }
});

test('a line longer than MAX_LINE_CHARS goes on in the next line, nothing lost', () => {
  const long = 'x'.repeat(MAX_LINE_CHARS + 10);
  const copy: SessionTextCopy = {
    stored: [{ lines: [long.slice(0, 40_000) + '\u0000', long.slice(40_000)], from: 0, to: 2 }],
    rows: ['next'],
    wrapped: [false],
    screenRow: 0,
  };
  const { lines, screenFrom } = logicalLines(copy);
  assert.deepEqual(
    lines.map((l) => l.length),
    [MAX_LINE_CHARS, 10, 4],
  );
  assert.equal(screenFrom, 2);
});
