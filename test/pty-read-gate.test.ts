// When a PTY is read (ptyReadGate.ts): paused while the parse backlog is long; while someone types, a
// session nobody watches is read at a pace. Real PTYs with `yes` flooding them, and a real daemon.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { PtyProcess } from '../src/daemon/pty/ptyProcess';
import { PtyReadGate, type ReadPace, ReadTuning, TypingSignal } from '../src/daemon/pty/ptyReadGate';
import { startTestDaemon, waitFor } from './helpers/daemon';
import { sleep } from './helpers/reliability';

/** A small pace, far below what `yes` gives on any machine: 80 KiB/s. */
const PACE: ReadPace = { windowMs: 50, bytes: 4096 };
/**
 * What a window may let through past its pace: the read that crossed it, and what the PTY's stream
 * reads on until its buffer is full (16 KiB on Node 20, 64 KiB on later ones) once it is paused.
 */
const OVERSHOOT = 4096 + 64 * 1024;

interface Flood {
  /** Bytes read over `ms`, the largest chunk, and how often the gate paused the PTY. */
  measure(ms: number): Promise<{ bytes: number; largest: number; pauses: number }>;
  dispose(): void;
}

/** `yes` on a real PTY, read through a gate; `watched` as the session's clients would say. */
function flood(typing: TypingSignal, watched: () => boolean): Flood {
  const pty = new PtyProcess({
    argv: ['yes'],
    cwd: process.cwd(),
    env: { PATH: process.env.PATH! },
    cols: 80,
    rows: 24,
  });
  let pauses = 0;
  const gate = new PtyReadGate(
    {
      pause: () => {
        pauses++;
        pty.pause();
      },
      resume: () => pty.resume(),
    },
    typing,
    PACE,
  );
  let bytes = 0;
  let largest = 0;
  pty.onData((chunk) => {
    bytes += chunk.length;
    largest = Math.max(largest, chunk.length);
    gate.read(chunk.length, 0, watched());
  });
  return {
    async measure(ms) {
      [bytes, largest, pauses] = [0, 0, 0];
      await sleep(ms);
      return { bytes, largest, pauses };
    },
    dispose() {
      gate.dispose();
      pty.dispose(); // SIGKILLs the group in this turn
    },
  };
}

test('while someone types, a PTY nobody watches is read at a pace; watched, or nobody typing, in full', async () => {
  const typing = new TypingSignal(60_000);
  let watched = false;
  const yes = flood(typing, () => watched);
  try {
    const free = await yes.measure(500);
    assert.equal(free.pauses, 0, 'nobody typed: never held back');
    typing.typed();
    const ms = 1000;
    const paced = await yes.measure(ms);
    const windows = Math.ceil(ms / PACE.windowMs) + 1;
    assert.ok(paced.bytes <= windows * (PACE.bytes + OVERSHOOT), `${paced.bytes} bytes in ${ms} ms`);
    assert.ok(paced.bytes > 0 && paced.pauses > 0, 'paced, not stopped');
    assert.ok(free.bytes * 2 > paced.bytes * 3, `free ${free.bytes} in 500 ms, paced ${paced.bytes} in ${ms} ms`);
    watched = true;
    await sleep(2 * PACE.windowMs);
    const shown = await yes.measure(500);
    assert.equal(shown.pauses, 0, 'a watched session is never held back');
    assert.ok(shown.bytes > paced.bytes, `watched ${shown.bytes} in 500 ms against ${paced.bytes} paced in ${ms} ms`);
  } finally {
    yes.dispose();
  }
});

test('the pace ends when the typing does', async () => {
  const typing = new TypingSignal(300);
  const yes = flood(typing, () => false);
  try {
    typing.typed();
    const paced = await yes.measure(250);
    assert.ok(paced.pauses > 0);
    await sleep(100);
    const after = await yes.measure(500);
    assert.equal(after.pauses, 0, 'no keystroke for 300 ms: read at full speed again');
    assert.ok(after.bytes > paced.bytes * 2, `${after.bytes} after, ${paced.bytes} paced`);
  } finally {
    yes.dispose();
  }
});

test('a long parse backlog pauses reading until it is short; it and the pace each hold the PTY', async () => {
  const calls: string[] = [];
  const typing = new TypingSignal(60_000);
  const gate = new PtyReadGate({ pause: () => calls.push('pause'), resume: () => calls.push('resume') }, typing, PACE);
  try {
    gate.read(4096, ReadTuning.BacklogPauseBytes + 1, true);
    assert.deepEqual(calls, ['pause']);
    gate.parsed(ReadTuning.BacklogResumeBytes);
    assert.deepEqual(calls, ['pause'], 'not short enough yet');
    typing.typed();
    gate.read(PACE.bytes, 0, false);
    gate.parsed(0);
    assert.deepEqual(calls, ['pause'], 'the backlog is short, but the window is used up');
    await waitFor(() => calls.length === 2, 1000, 'the next window');
    assert.deepEqual(calls, ['pause', 'resume']);
  } finally {
    gate.dispose();
  }
});

/** Bytes the process `pid` has written so far. */
function written(pid: number): number {
  const io = fs.readFileSync(`/proc/${pid}/io`, 'latin1');
  return Number(/^wchar: (\d+)$/m.exec(io)![1]);
}

test("an owner's keystrokes in one session pace another that floods with nobody attached", async () => {
  const daemon = await startTestDaemon();
  try {
    const client = await daemon.connect();
    // Lines of 1,491 bytes: parsed fast enough (15 MB/s here) that the pace is what holds it back.
    const line = '"$(seq -s " " 1 400)"';
    const { session: busy } = await client.request('create', {
      argv: ['sh', '-c', `exec yes ${line}`],
      cols: 80,
      rows: 24,
    });
    const { session: typed } = await client.request('create', { argv: ['cat'], cols: 80, rows: 24 });
    const attachment = await client.attach(
      { session: typed.id, role: 'owner', cols: 80, rows: 24 },
      { onSnapshot: () => undefined, onOutput: () => undefined },
    );
    const keys = setInterval(() => attachment.write('k'), 50);
    try {
      await sleep(300);
      const ms = 1000;
      const before = written(busy.pid);
      await sleep(ms);
      const bytes = written(busy.pid) - before;
      // The pace, plus a read past it per window and what the PTY buffers (its program's writes end there).
      const windows = Math.ceil(ms / ReadTuning.PacedWindowMs) + 1;
      const bound = windows * (ReadTuning.PacedBytes + 4096) + 256 * 1024;
      assert.ok(
        bytes <= bound,
        `yes wrote ${bytes} bytes in ${ms} ms while a key went in every 50 ms (bound ${bound})`,
      );
    } finally {
      clearInterval(keys);
      await attachment.detach();
    }
  } finally {
    await daemon.stop();
  }
});
