// A screenFirst attach's scrollback (a second snapshot, which starts with a reset) waits while its owner
// types: VS Code's local echo drops the guesses of keys whose echo has not come at a reset, then guesses the
// next keys at the wrong cells and writes their echo over the keys before (docs/vscode.md, "Local echo").
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SnapshotTiming } from '../src/daemon/clients/snapshotQueue';
import { startTestDaemon, type TestDaemon, waitFor, waitForText } from './helpers/daemon';
import { ReplayTerminal } from './helpers/terminal';

let daemon: TestDaemon;
before(async () => {
  daemon = await startTestDaemon();
});
after(async () => {
  await daemon.stop();
});

test('the history after a screenFirst attach waits for its owner to stop typing, then comes whole', async () => {
  const client = await daemon.connect();
  const { session } = await client.request('create', {
    argv: ['sh', '-c', 'seq 1 500; exec cat'],
    cols: 80,
    rows: 24,
    scrollback: 10_000,
  });
  await waitForText(client, session.id, '^500$', 10_000);
  const owner = await daemon.connect('typist');
  const snapshots: { why: string; at: number }[] = [];
  const replay = new ReplayTerminal(80, 24, 2000);
  const attachment = await owner.attach(
    { session: session.id, role: 'owner', screenFirst: true },
    {
      onSnapshot: (bytes, why) => {
        snapshots.push({ why, at: Date.now() });
        replay.onSnapshot(bytes, why);
      },
      onOutput: (bytes) => replay.onOutput(bytes),
    },
  );
  await waitFor(() => snapshots.length > 0, 5000, 'the screen');
  // A key every 50 ms for a second: ten times as long as the history waits after the screen.
  let lastKeyAt = 0;
  for (let i = 0; i < 20; i++) {
    attachment.write('k');
    lastKeyAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await waitFor(() => snapshots.some((s) => s.why === 'history'), 10_000, 'the history');
  const history = snapshots.find((s) => s.why === 'history')!;
  assert.ok(history.at > lastKeyAt, `the history came ${lastKeyAt - history.at} ms before the last key`);
  assert.ok(
    history.at - lastKeyAt >= SnapshotTiming.HistoryAfterKeysMs - 50,
    `the history came ${history.at - lastKeyAt} ms after the last key`,
  );
  attachment.write('\r');
  await waitFor(async () => (await replay.lines()).some((l) => l.startsWith('k'.repeat(20))), 5000, 'the keys');
  const lines = (await replay.lines()).map((l) => l.trim()).filter((l) => l !== '');
  assert.equal(lines[0], '1', 'the scrollback reaches back to the first line');
  await client.request('remove', { session: session.id });
});
