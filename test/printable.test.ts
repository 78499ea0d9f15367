// Units of text/printable.ts (what reaches a terminal from programs and clients) and of the
// OSC 7 reading (which directories a program may report).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cwdFromOsc7, MAX_OSC7_LENGTH } from '../src/daemon/emulator/programReports';
import { hasControl, printable, printableLines, safeJson } from '../src/text/printable';

test('printable: C0, DEL, C1 and bidi controls become visible escapes; other text is kept', () => {
  assert.equal(printable('a\x1b]52;c;eA==\x07b'), 'a\\u{1b}]52;c;eA==\\u{7}b');
  assert.equal(printable('\x00\t\n\x7f\x80\x9b\x9f'), '\\u{0}\\u{9}\\u{a}\\u{7f}\\u{80}\\u{9b}\\u{9f}');
  assert.equal(printable('x\u202ey\u2066z\u2069\u200f'), 'x\\u{202e}y\\u{2066}z\\u{2069}\\u{200f}');
  assert.equal(printable('~/dev/проект 日本 émoji 🦀 a\\b'), '~/dev/проект 日本 émoji 🦀 a\\b');
  assert.equal(printableLines('one\x1b[2J\ntwo\t\n'), 'one\\u{1b}[2J\ntwo\\u{9}\n', 'newlines kept, the rest escaped');
});

test('safeJson: the same JSON value, with DEL, C1 and bidi escaped too', () => {
  const value = { name: 'a\x1b\x07\x7f\x9b\u202e\u2066', n: 1 };
  const text = safeJson(value);
  assert.doesNotMatch(text, /[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/);
  assert.deepEqual(JSON.parse(text), value);
  assert.equal(safeJson(undefined), 'null');
  assert.ok(hasControl('a\x9bb') && hasControl('\x1b') && !hasControl('a\u202eb'));
});

test('OSC 7: only this host, absolute, no control characters after decoding, bounded', () => {
  assert.equal(cwdFromOsc7('file:///home/u/dev', 'box'), '/home/u/dev');
  assert.equal(cwdFromOsc7('file://localhost/home/u/a%20b', 'box'), '/home/u/a b');
  assert.equal(cwdFromOsc7('file://BOX/home/u', 'box'), '/home/u', 'the hostname in any case');
  assert.equal(cwdFromOsc7('file://other/home/u', 'box'), undefined, 'another machine');
  assert.equal(cwdFromOsc7('file://box.evil/home/u', 'box'), undefined);
  assert.equal(cwdFromOsc7('file:///tmp/%1b]52;c;eA==%07', 'box'), undefined, 'ESC / BEL after decoding');
  assert.equal(cwdFromOsc7('file:///tmp/%C2%9B31m', 'box'), undefined, 'C1 CSI after decoding');
  assert.equal(cwdFromOsc7('file:///tmp/a%0Ab', 'box'), undefined, 'a newline');
  assert.equal(cwdFromOsc7('file://box', 'box'), undefined, 'no path');
  assert.equal(cwdFromOsc7('http://box/tmp', 'box'), undefined);
  assert.equal(cwdFromOsc7(`file:///${'a'.repeat(MAX_OSC7_LENGTH)}`, 'box'), undefined, 'longer than PATH_MAX');
  assert.equal(cwdFromOsc7('file:///tmp/100%', 'box'), '/tmp/100%', 'not percent-encoding: as written');
});
