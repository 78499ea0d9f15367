// Input to a program's terminal: what the kernel takes at once is written at once (no trip through
// libuv's thread pool), and what it does not take waits, in order, behind it. Both writers: the
// spawning daemon's (PtyProcess, through node-pty's queue) and a successor's (FdWriter, AdoptedPty).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { FdWriter } from '../src/daemon/pty/fdWriter';
import { openPty } from '../src/daemon/pty/nodePtyInternals';
import { PtyProcess } from '../src/daemon/pty/ptyProcess';
import { tempDir, waitFor } from './helpers/daemon';

/** More than a terminal's input buffer holds: most of it waits in the writer's queue. */
const LARGE = 300_000;

function pattern(bytes: number): Buffer {
  const data = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) data[i] = 0x61 + (i % 26);
  return data;
}

/** Reads the slave side (non-blocking) until `bytes` came, yielding between reads. */
async function readSlave(slave: number, bytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let got = 0;
  const buffer = Buffer.alloc(65536);
  await waitFor(
    () => {
      for (;;) {
        let n: number;
        try {
          n = fs.readSync(slave, buffer, 0, buffer.length, null);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'EAGAIN') return got >= bytes;
          throw err;
        }
        chunks.push(Buffer.from(buffer.subarray(0, n)));
        got += n;
      }
    },
    20_000,
    `${bytes} bytes on the slave side`,
  );
  return Buffer.concat(chunks);
}

test('FdWriter: a keystroke is on the terminal when write returns; a paste it cannot take waits in order', async () => {
  const { master, slave } = openPty(80, 24);
  const logged: string[] = [];
  const writer = new FdWriter(master, (line) => logged.push(line));
  try {
    const name = fs.readlinkSync(`/proc/self/fd/${slave}`);
    execFileSync('stty', ['-F', name, 'raw', '-echo']);
    writer.write(Buffer.from('k'));
    // No turn of the event loop in between: written by the call itself.
    const now = Buffer.alloc(16);
    assert.equal(fs.readSync(slave, now, 0, now.length, null), 1);
    assert.equal(now.toString('latin1', 0, 1), 'k');
    assert.equal(writer.queuedBytes, 0);

    const paste = pattern(LARGE);
    writer.write(paste);
    assert.ok(writer.queuedBytes > 0, 'the kernel took the paste whole: the test needs a larger one');
    writer.write(Buffer.from('after'));
    const read = await readSlave(slave, LARGE + 5);
    assert.ok(read.equals(Buffer.concat([paste, Buffer.from('after')])), 'every byte once, in order');
    await waitFor(() => writer.settled && writer.queuedBytes === 0, 5_000, 'the queue to empty');
    writer.write(Buffer.from('again'));
    assert.equal(writer.queuedBytes, 0, 'an empty queue writes at once again');
    assert.equal((await readSlave(slave, 5)).toString('latin1'), 'again');
    assert.deepEqual(logged, []);
  } finally {
    writer.dispose();
    fs.closeSync(master);
    fs.closeSync(slave);
  }
});

test('PtyProcess: a paste the program takes slowly, then keys: all of it, in order', async () => {
  const dir = tempDir('hf-pty-input-');
  const out = path.join(dir, 'out');
  const total = LARGE + 2;
  const pty = new PtyProcess({
    argv: ['sh', '-c', `stty raw -echo; echo READY; exec head -c ${total} > '${out}'`],
    cwd: dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color' },
    cols: 80,
    rows: 24,
  });
  try {
    let output = '';
    pty.onData((chunk) => (output += chunk.toString('latin1')));
    await waitFor(() => output.includes('READY'), 10_000, 'the program to set its terminal raw');
    const paste = pattern(LARGE);
    assert.equal(pty.write(paste), undefined);
    assert.equal(pty.write('x'), undefined);
    assert.equal(pty.write(Buffer.from('y')), undefined);
    await new Promise<void>((resolve) => pty.onExit(() => resolve()));
    assert.ok(fs.readFileSync(out).equals(Buffer.concat([paste, Buffer.from('xy')])), 'every byte once, in order');
  } finally {
    pty.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
