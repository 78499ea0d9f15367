// A 'screens' watcher (a remote preview) is never sent the stream: only the visible screen once it changed, at most
// every 250 ms, so its traffic is bounded by screens, not by what the program prints; an owner may not ask for it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RequestError } from '../src/client/client';
import { WatcherRedrawTuning } from '../src/daemon/clients/watcherRedraw';
import { startTestDaemon, type TestDaemon, waitFor, waitForText } from './helpers/daemon';
import { ReplayTerminal } from './helpers/terminal';

let daemon: TestDaemon;
before(async () => {
  daemon = await startTestDaemon();
});
after(async () => {
  await daemon.stop();
});

const trimmed = (lines: string[]) => lines.map((l) => l.trimEnd());

test('a screens watcher of a session printing below the flood rate gets screens only, at most 4 a second', async () => {
  const client = await daemon.connect();
  assert.ok(client.supports('screens'));
  // ~50 lines a second for 3 s: far below the flood rate, so a live watcher would be sent every byte.
  const { session } = await client.request('create', {
    argv: ['sh', '-c', 'read go; for i in $(seq 1 150); do echo line $i; sleep 0.02; done; echo done; exec sleep 60'],
    cols: 80,
    rows: 24,
  });
  const preview = await daemon.connect('preview');
  const replay = new ReplayTerminal(80, 24, 0);
  const started = Date.now();
  await preview.attach({ session: session.id, role: 'watcher', view: 'screens' }, replay);
  await waitFor(() => replay.snapshots === 1, 10_000, 'the first screen');
  await client.request('send', { session: session.id, data: '\n' });
  await waitForText(client, session.id, '^done$', 30_000);
  await waitFor(async () => (await replay.lines()).some((l) => l.trim() === 'done'), 10_000, 'the final screen');
  const elapsed = Date.now() - started;
  await preview.request('list', {}); // every frame sent before this answer has arrived
  assert.equal(replay.outputBytes, 0, 'no output bytes, only screens');
  assert.ok(replay.resyncs >= 2, `redrawn as it printed: ${replay.resyncs}`);
  const most = Math.floor(elapsed / WatcherRedrawTuning.RedrawMs) + 1;
  assert.ok(replay.snapshots <= most, `${replay.snapshots} screens in ${elapsed} ms: at most ${most}`);
  const { lines } = await client.request('read', { session: session.id });
  assert.deepEqual(trimmed(await replay.lines()), trimmed(lines), 'the final screen is the session’s');
  await client.request('remove', { session: session.id });
});

test('an owner asking for screens only is refused, at attach and by the view request', async () => {
  const client = await daemon.connect();
  const { session } = await client.request('create', { argv: ['sh', '-c', 'exec sleep 60'], cols: 80, rows: 24 });
  const tab = await daemon.connect('tab');
  await assert.rejects(
    tab.attach({ session: session.id, role: 'owner', view: 'screens' }, new ReplayTerminal(80, 24)),
    (err: unknown) => err instanceof RequestError && err.code === 'bad-request' && /watchers/.test(err.message),
  );
  const attachment = await tab.attach({ session: session.id, role: 'owner' }, new ReplayTerminal(80, 24));
  await assert.rejects(
    tab.request('view', { channel: attachment.channel, view: 'screens' }),
    (err: unknown) => err instanceof RequestError && err.code === 'bad-request',
  );
  await client.request('remove', { session: session.id });
});
