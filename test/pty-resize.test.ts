// Resizing a program's terminal, both PTY kinds (PtyProcess, AdoptedPty: resizeUnlessClosed in
// nodePtyInternals.ts): the one race a resize expects, the terminal closed between its end and the
// resize (EBADF), is no error; any other failure is thrown, so that it is answered and logged.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { openPty, resizeFd, resizeUnlessClosed } from '../src/daemon/pty/nodePtyInternals';
import { PtyProcess } from '../src/daemon/pty/ptyProcess';

test('a resize of a closed terminal is no error; of something that is not a terminal, thrown', () => {
  const { master, slave } = openPty(80, 24);
  fs.closeSync(slave);
  fs.closeSync(master);
  assert.throws(() => resizeFd(master, 100, 30), /EBADF/, 'node-pty says EBADF');
  resizeUnlessClosed(() => resizeFd(master, 100, 30));
  const notATerminal = fs.openSync('/dev/null', 'r');
  try {
    assert.throws(() => resizeUnlessClosed(() => resizeFd(notATerminal, 100, 30)), /ENOTTY/);
  } finally {
    fs.closeSync(notATerminal);
  }
});

test('regression: PtyProcess swallowed every resize failure; one it does not expect is thrown', async () => {
  const proc = new PtyProcess({
    argv: ['sleep', '1000'],
    cwd: '/',
    env: { PATH: process.env.PATH! },
    cols: 80,
    rows: 24,
  });
  try {
    proc.resize(100, 30);
    assert.deepEqual([proc.cols, proc.rows], [100, 30]);
    assert.throws(() => proc.resize(0, 30), /positive cols and rows/);
  } finally {
    proc.dispose();
  }
});
