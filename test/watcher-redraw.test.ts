// Watchers of a flood are redrawn: the owner streams every byte, small output is never held, a watcher
// that takes input over mid-flood gets its scrollback at once, a detached one is forgotten.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClientRoles, type Subscriber } from '../src/daemon/clients/clientRoles';
import type { SnapshotKind } from '../src/daemon/clients/snapshotQueue';
import { WatcherRedraw, WatcherRedrawTuning } from '../src/daemon/clients/watcherRedraw';
import type { Role } from '../src/protocol/messages';

class FakeSubscriber implements Subscriber {
  phase: 'pending' | 'live' = 'live';
  lagging = false;
  stale = false;
  bytes = 0;
  resyncs = 0;
  constructor(
    readonly channel: number,
    public role: Role,
  ) {}
  sendSnapshot(): void {}
  sendOutput(bytes: Buffer): void {
    this.bytes += bytes.length;
  }
  sendEvent(event: { type: string }): void {
    if (event.type === 'resync') this.resyncs++;
  }
}

function fixture() {
  const roles = new ClientRoles();
  const clock = { ms: 1000 };
  const redraws: [number, SnapshotKind][] = [];
  const backlog = { bytes: 0 };
  const redraw = new WatcherRedraw(
    roles,
    (s, kind) => redraws.push([s.channel, kind]),
    () => backlog.bytes,
    () => clock.ms,
  );
  const owner = new FakeSubscriber(1, 'owner');
  const watcher = new FakeSubscriber(2, 'watcher');
  roles.add(owner);
  roles.add(watcher);
  /** The session's output: counted, then sent to each subscriber as the session does. */
  const output = (bytes: number) => {
    redraw.output(bytes);
    for (const s of roles.all) redraw.send(s, Buffer.alloc(bytes));
  };
  return { roles, clock, backlog, redraws, redraw, owner, watcher, output };
}

const chunk = 64 * 1024;
const tick = () => new Promise((resolve) => setTimeout(resolve, WatcherRedrawTuning.RedrawMs + 50));

test('output below the flood rate streams to every client; none is held', () => {
  const { clock, redraw, owner, watcher, output, redraws } = fixture();
  try {
    for (let i = 0; i < 40; i++) {
      output(chunk); // 64 KiB every 100 ms: 640 KB/s
      clock.ms += WatcherRedrawTuning.WindowMs + 1;
    }
    assert.equal(redraw.flooding, false);
    assert.deepEqual([owner.bytes, watcher.bytes], [40 * chunk, 40 * chunk]);
    assert.deepEqual(redraws, []);
  } finally {
    redraw.dispose();
  }
});

test('in a flood the owner streams, a watcher is redrawn: screens while it lasts, everything at its end', async () => {
  const { redraw, owner, watcher, output, redraws, backlog } = fixture();
  try {
    for (let i = 0; i < 4; i++) output(chunk); // 256 KiB within one window
    assert.equal(redraw.flooding, true);
    assert.equal(watcher.bytes, 3 * chunk, 'the output before the flood was streamed');
    for (let i = 0; i < 8; i++) output(chunk); // 512 KiB in this period: still a flood
    await tick();
    assert.deepEqual(redraws, [[2, 'screen-only']]);
    assert.equal(redraw.flooding, true);
    backlog.bytes = 1; // no output, but some not parsed yet (reading the program paused): not over
    await tick();
    assert.equal(redraw.flooding, true);
    backlog.bytes = 0;
    await tick(); // nothing more: the flood is over
    assert.deepEqual(redraws, [
      [2, 'screen-only'],
      [2, 'full'],
    ]);
    assert.equal(redraw.flooding, false);
    assert.equal(watcher.resyncs, 2);
    assert.deepEqual([owner.bytes, watcher.bytes], [12 * chunk, 3 * chunk]);
    output(10);
    assert.equal(watcher.bytes, 3 * chunk + 10, 'streamed again');
  } finally {
    redraw.dispose();
  }
});

test('a watcher that takes input over mid-flood streams from then on, its scrollback redrawn at once', async () => {
  const { roles, redraw, owner, watcher, output, redraws } = fixture();
  try {
    for (let i = 0; i < 8; i++) output(chunk);
    roles.claim(watcher, 'took over');
    assert.equal(owner.role, 'watcher');
    for (let i = 0; i < 8; i++) output(chunk);
    assert.equal(watcher.bytes, 3 * chunk + 8 * chunk, 'the new owner streams');
    await tick();
    assert.deepEqual(redraws.sort(), [
      [1, 'screen-only'],
      [2, 'full'],
    ]);
  } finally {
    redraw.dispose();
  }
});

test('a watcher that does not read is not redrawn: it is marked stale, for the resync its reading brings', async () => {
  const { redraw, watcher, output, redraws } = fixture();
  try {
    for (let i = 0; i < 8; i++) output(chunk);
    watcher.lagging = true;
    await tick();
    assert.deepEqual(redraws, []);
    assert.equal(watcher.stale, true);
  } finally {
    redraw.dispose();
  }
});

test('a watcher detached mid-flood is not redrawn; dispose leaves no timer', async () => {
  const { roles, redraw, watcher, output, redraws } = fixture();
  for (let i = 0; i < 8; i++) output(chunk);
  roles.remove(watcher);
  await tick();
  assert.deepEqual(redraws, []);
  redraw.dispose();
  assert.equal(redraw.flooding, false);
});

test('a hidden channel is sent nothing and watches nothing; shown with output missed, it gets its screen again', () => {
  const { redraw, owner, output, redraws } = fixture();
  try {
    redraw.setView(owner, 'hidden');
    assert.equal(redraw.streamsTo(owner), false, 'its terminal sees nothing: the daemon answers its queries');
    output(10);
    assert.equal(owner.bytes, 0);
    assert.equal(owner.stale, true, 'it missed output');
    assert.equal(redraw.fanOut(Buffer.alloc(1)), true, 'the watcher still streams');
    redraw.setView(owner, 'live');
    assert.deepEqual(redraws, [[1, 'screen']], 'the screen now, the history after it');
    assert.equal(owner.resyncs, 1);
    assert.equal(redraw.streamsTo(owner), true);
  } finally {
    redraw.dispose();
  }
});

test('shown again without having missed output, a channel is sent no snapshot', () => {
  const { redraw, owner, redraws } = fixture();
  try {
    redraw.setView(owner, 'hidden');
    redraw.setView(owner, 'live');
    assert.deepEqual(redraws, []);
  } finally {
    redraw.dispose();
  }
});

test('an owner that fell behind is redrawn as a watcher until the flood is over, then streams', async () => {
  const { redraw, owner, watcher, output, redraws } = fixture();
  try {
    for (let i = 0; i < 4; i++) output(chunk);
    assert.equal(redraw.flooding, true);
    redraw.setView(owner, 'redraw');
    assert.equal(redraw.streamsTo(owner), false);
    const before = owner.bytes;
    for (let i = 0; i < 8; i++) output(chunk);
    assert.equal(owner.bytes, before, 'held back like a watcher');
    await tick();
    assert.deepEqual(redraws.sort(), [
      [1, 'screen-only'],
      [2, 'screen-only'],
    ]);
    await tick(); // nothing more: over
    assert.equal(redraw.flooding, false);
    assert.equal(redraw.viewOf(owner), 'live', 'live again after its full snapshot');
    output(10);
    assert.equal(owner.bytes, before + 10);
    assert.equal(watcher.bytes, 3 * chunk + 10);
  } finally {
    redraw.dispose();
  }
});

test('not flooding, an owner that fell behind gets a full snapshot at once and streams on', () => {
  const { redraw, owner, redraws } = fixture();
  try {
    redraw.setView(owner, 'redraw');
    assert.deepEqual(redraws, [[1, 'full']]);
    assert.equal(redraw.streamsTo(owner), true);
  } finally {
    redraw.dispose();
  }
});
