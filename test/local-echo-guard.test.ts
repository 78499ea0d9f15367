// What a tab writes for VS Code's local echo (localEchoGuard.ts): one NUL before each write's first line
// feed, and a screen that stays exactly what it would be without it. The e2e (test/e2e/localEcho) shows the
// guard keeps a command's output off the command's row in VS Code itself.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Terminal } from '@xterm/headless';
import { guardLocalEcho } from '../src/extension/localEchoGuard';

test('a NUL goes before the first line feed of a write, and nowhere else', () => {
  assert.equal(guardLocalEcho('1\r\n\x1b[?2004l\rtyped-42\r\nbash$ '), '1\r\0\n\x1b[?2004l\rtyped-42\r\nbash$ ');
  assert.equal(guardLocalEcho('\n'), '\0\n');
  assert.equal(guardLocalEcho('yped-$((6*7))'), 'yped-$((6*7))', 'a write without a line feed is unchanged');
  assert.equal(guardLocalEcho(''), '');
});

/** The screen's rows, cursor and the first row's colours after `writes`, each written as one piece. */
function screenAfter(writes: string[]): Promise<string> {
  const terminal = new Terminal({ cols: 20, rows: 6, allowProposedApi: true });
  for (const text of writes) terminal.write(text);
  return new Promise((resolve) =>
    terminal.write('', () => {
      const buffer = terminal.buffer.active;
      const rows = [];
      for (let y = 0; y < buffer.length; y++) rows.push(buffer.getLine(y)!.translateToString(true));
      const colours = Array.from({ length: 20 }, (_, x) => buffer.getLine(buffer.baseY)!.getCell(x)!.getFgColor());
      resolve(JSON.stringify({ rows, x: buffer.cursorX, y: buffer.cursorY, colours }));
      terminal.dispose();
    }),
  );
}

test('the screen is the same with the NUL as without: line breaks, colours, wide characters, scrolling', async () => {
  const cases = [
    ['bash$ echo typed-$((6*7))', '\r\n\x1b[?2004l\rtyped-42\r\n\x1b[?2004hbash$ '],
    ['\x1b[31mred\x1b[0m\r\n', 'a\nb\rc\r\n', '宽字符\r\n'],
    [Array.from({ length: 12 }, (_, i) => `line ${i}`).join('\r\n')],
    ['\x1b]0;title\x07\x1b[2J\x1b[H', 'top\r', '\n\n', 'end'],
  ];
  for (const writes of cases) {
    assert.equal(await screenAfter(writes.map(guardLocalEcho)), await screenAfter(writes), JSON.stringify(writes));
  }
});
