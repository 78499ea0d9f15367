// A client's output leaves in few writes: all of one turn at its end; in a stream (a flood), all of a
// few milliseconds; never a keystroke's echo held back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OutputCork, OutputCorkTuning } from '../src/daemon/clients/outputCork';

/** A socket that counts cork/uncork, and a clock the test moves. */
function fixture() {
  const socket = { corks: 0, uncorks: 0, cork: () => void socket.corks++, uncork: () => void socket.uncorks++ };
  const clock = { ms: 1000 };
  const cork = new OutputCork(socket, () => clock.ms);
  return { socket, clock, cork };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

function uncorked(socket: { uncorks: number }, count: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + 5000;
    const check = () => {
      if (socket.uncorks >= count) return resolve();
      if (Date.now() > deadline) return reject(new Error(`still ${socket.uncorks} uncork(s), waited for ${count}`));
      setTimeout(check, 1);
    };
    check();
  });
}

test('output of one turn leaves in one write at its end; small output is never held longer', async () => {
  const { socket, clock, cork } = fixture();
  try {
    cork.gather(10);
    cork.gather(10);
    assert.deepEqual([socket.corks, socket.uncorks], [1, 0], 'gathered, not written yet');
    await turn();
    assert.deepEqual([socket.corks, socket.uncorks], [1, 1], 'written at the end of the turn');
    clock.ms += 0.5; // an echo right after: not a stream, it goes at the end of its turn too
    cork.gather(1);
    await turn();
    assert.equal(socket.uncorks, 2);
  } finally {
    cork.dispose();
  }
});

test('a stream (a big write, more output right after) is gathered for a few ms, then written', async () => {
  const { socket, clock, cork } = fixture();
  try {
    cork.gather(OutputCorkTuning.StreamBytes);
    await turn();
    assert.equal(socket.uncorks, 1);
    clock.ms += 0.4; // the next PTY read of the flood
    cork.gather(4096);
    await turn();
    assert.equal(socket.uncorks, 1, 'held past the end of its turn');
    cork.gather(4096);
    assert.equal(socket.corks, 2, 'one cork for all of it');
    await uncorked(socket, 2);
    clock.ms += OutputCorkTuning.StreamGapMs + 1; // the flood ended: the next output is not held
    cork.gather(OutputCorkTuning.StreamBytes);
    await turn();
    assert.equal(socket.uncorks, 3);
  } finally {
    cork.dispose();
  }
});

test('disposed while gathering: what was gathered is written, no timer is left', async () => {
  const { socket, clock, cork } = fixture();
  cork.gather(OutputCorkTuning.StreamBytes);
  await turn();
  clock.ms += 0.1;
  cork.gather(100);
  cork.dispose();
  assert.deepEqual([socket.corks, socket.uncorks], [2, 2]);
});
