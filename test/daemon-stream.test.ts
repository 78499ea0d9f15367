// Snapshot + stream: what a client sees is exactly what the program wrote, whenever it attaches.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { encodeJson, FrameDecoder, FrameKind, splitRaw } from '../src/protocol/frame';
import { PROTOCOL_VERSION } from '../src/protocol/messages';
import { tokenPathFor } from '../src/host/paths';
import { startTestDaemon, type TestDaemon, waitFor, waitForText } from './helpers/daemon';
import { ReplayTerminal } from './helpers/terminal';
import { absenceWindow } from './helpers/absence';
import type { HoldfastClient, SnapshotReason } from '../src/client/client';
import { SnapshotTiming } from '../src/daemon/clients/snapshotQueue';

let daemon: TestDaemon;
before(async () => {
  daemon = await startTestDaemon();
});
after(async () => {
  await daemon.stop();
});

/**
 * A watcher that logs its redraws: whether each held the scrollback (a flood's end, or more lines than a screen)
 * or the visible screen only (mid-flood), and how many bytes were streamed after it before the next one.
 */
class RedrawLog extends ReplayTerminal {
  readonly redraws: { full: boolean; streamedAfter: number }[] = [];

  override onSnapshot(bytes: Buffer, why: SnapshotReason): void {
    super.onSnapshot(bytes, why);
    // A screen of 24 rows of numbers is under 2 KB; the scrollback of 1000 of them is over 6 KB.
    if (why === 'resync') this.redraws.push({ full: bytes.length > 4096, streamedAfter: 0 });
  }

  override onOutput(bytes: Buffer): void {
    super.onOutput(bytes);
    const last = this.redraws.at(-1);
    if (last) last.streamedAfter += bytes.length;
  }
}

function assertConsecutive(lines: string[], what: string): number {
  const numbers = lines
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map(Number);
  assert.ok(numbers.length > 0, `${what}: no numbers on screen`);
  for (let i = 1; i < numbers.length; i++) {
    assert.equal(
      numbers[i],
      numbers[i - 1] + 1,
      `${what}: line ${i} is ${numbers[i]} after ${numbers[i - 1]} (lost or doubled output)`,
    );
  }
  return numbers[numbers.length - 1];
}

test('clients attaching during a flood see every line exactly once; watchers are redrawn, then whole', async () => {
  const client = await daemon.connect();
  const { session } = await client.request('create', {
    argv: ['seq', '1', '300000'],
    cols: 80,
    rows: 24,
    scrollback: 2000,
  });
  // Each attaches as the input owner at a later point of the flood and streams every byte from its snapshot
  // on; the next one takes over, and the one before is a watcher from then on, redrawn (WatcherRedraw).
  const clients: { replay: ReplayTerminal; client: HoldfastClient }[] = [];
  const exited = async () => (await client.request('show', { session: session.id })).session.state === 'exited';
  for (let i = 0; i < 6; i++) {
    const replay = new ReplayTerminal(80, 24, 400_000);
    const ownerClient = await daemon.connect(`client-${i}`);
    clients.push({ replay, client: ownerClient });
    await ownerClient.attach({ session: session.id, role: 'owner' }, replay);
    await waitFor(async () => replay.outputBytes > 0 || (await exited()), 60_000, `output at client ${i}`);
  }
  const { met } = await client.request('wait', { session: session.id, condition: { kind: 'exit' }, timeoutMs: 60_000 });
  assert.ok(met, 'seq did not finish');
  // The exit is reported once every byte went out: a reply on each connection comes after all of it.
  for (const { client: c } of clients) await c.request('list', {});
  const owner = clients[clients.length - 1].replay;
  assert.equal(owner.snapshots, 1, `the last owner got ${owner.snapshots} snapshots`);
  assert.equal(assertConsecutive(await owner.lines(), 'the last owner'), 300000);
  for (const [i, { replay }] of clients.slice(0, -1).entries()) {
    // Redrawn once the flood is over: the whole scrollback, so it ends where the program did.
    await waitFor(
      async () => (await replay.lines()).some((l) => l.trim() === '300000'),
      10_000,
      `watcher ${i} redrawn with the end of the flood`,
    );
    assertConsecutive(await replay.lines(), `watcher ${i}`);
  }
  const { lines } = await client.request('read', { session: session.id, scrollback: 5000 });
  assert.equal(assertConsecutive(lines, 'daemon screen'), 300000);
  await client.request('remove', { session: session.id });
});

test('watchers of a flood are redrawn: screens while it lasts, scrollback at its end, then the stream', async () => {
  const client = await daemon.connect();
  // 7.1 MB: under the 8 MiB a client may fall behind by before it is resynced, so the owner gets every byte
  // however slowly this process reads; about half a second of parsing, two redraws at least.
  const lines = 900_000;
  const { session } = await client.request('create', {
    argv: [
      'sh',
      '-c',
      // The flood is a file written out by cat, made before READY: seq itself, starved by a loaded machine, could
      // print slower than a flood is told apart (256 KiB in 100 ms), and its watcher would then rightly be streamed.
      `f=$(mktemp); seq 1 ${lines} >"$f"; stty -echo; printf READY; read go; cat "$f"; rm -f "$f"; echo FLOOD-DONE; ` +
        'read again; echo AFTER-$((6*7)); sleep 30',
    ],
    cols: 80,
    rows: 24,
    scrollback: 1000,
  });
  // The owner counts bytes (parsing them here would slow this process's reading); the watcher shows them.
  const owner = { bytes: 0, snapshots: 0, tail: '' };
  const watcher = new RedrawLog(80, 24, 1000);
  const watcherClient = await daemon.connect('watcher');
  await client.attach(
    { session: session.id, role: 'owner' },
    {
      onSnapshot: (bytes) => ((owner.snapshots += 1), (owner.tail = bytes.toString('latin1'))),
      onOutput: (bytes) => ((owner.bytes += bytes.length), (owner.tail = bytes.toString('latin1'))),
    },
  );
  await watcherClient.attach({ session: session.id, role: 'watcher' }, watcher);
  await waitFor(async () => (await watcher.lines()).some((l) => l.startsWith('READY')), 10_000, 'the program ready');
  await waitFor(() => owner.tail.includes('READY'), 10_000, 'the program ready at the owner');
  const [ownerBefore, watcherBefore] = [owner.bytes, watcher.outputBytes];
  await client.request('send', { session: session.id, data: '\r' });
  const { met } = await waitForText(client, session.id, '^FLOOD-DONE$', 60_000);
  assert.ok(met);
  await client.request('list', {}); // after every byte of the flood on this connection

  let floodBytes = 'FLOOD-DONE\r\n'.length;
  for (let n = 1; n <= lines; n++) floodBytes += String(n).length + 2;
  assert.equal(owner.bytes - ownerBefore, floodBytes, 'the owner gets every byte');
  assert.equal(owner.snapshots, 1, 'the owner is never redrawn');

  // The end's redraw is whole: the scrollback the daemon keeps, consecutive up to the last line.
  const flooded = async () => (await watcher.lines()).filter((l) => /^\d+$/.test(l.trim()));
  await waitFor(
    async () => (await watcher.lines()).includes('FLOOD-DONE') && (await flooded()).length >= 1000,
    10_000,
    'the watcher redrawn with its scrollback and the end of the flood',
  );
  // How much is streamed depends on the machine: a flood the daemon reads slower than 256 KiB in 100 ms (a
  // starved machine) is rightly streamed. What holds at any speed: while it floods, a watcher gets screens and no
  // stream; after a screen-only redraw the next thing it gets is another redraw, never output.
  const screens = watcher.redraws.filter((r) => !r.full);
  assert.ok(
    screens.length >= 1,
    `the watcher was redrawn mid-flood (${watcher.redraws.length} redraws, none a screen)`,
  );
  const streamedInFlood = screens.reduce((sum, r) => sum + r.streamedAfter, 0);
  assert.equal(streamedInFlood, 0, `the watcher was streamed ${streamedInFlood} bytes after a mid-flood redraw`);
  const watcherBytes = watcher.outputBytes - watcherBefore;
  assert.ok(watcherBytes < floodBytes, `the watcher was streamed all ${watcherBytes} of the flood's bytes`);
  assert.equal(assertConsecutive(await flooded(), 'the watcher after the flood'), lines);

  // Quiet again: the watcher is streamed, not redrawn.
  const snapshots = watcher.snapshots;
  await client.request('send', { session: session.id, data: '\r' });
  await waitFor(async () => (await watcher.lines()).includes('AFTER-42'), 10_000, 'the next output at the watcher');
  assert.equal(watcher.snapshots, snapshots, 'streamed, not redrawn');
  assert.ok(watcher.outputBytes > watcherBefore + watcherBytes);
  watcherClient.close();
  await client.request('remove', { session: session.id });
});

test('the last output of a program that exits right after writing is never lost', async () => {
  const file = path.join(daemon.dir, 'big.txt');
  const lines: string[] = [];
  for (let i = 0; i < 200_000; i++) lines.push(`line ${i} ${'x'.repeat(20)}`);
  fs.writeFileSync(file, lines.join('\n') + '\nTHE-END\n');
  const expectedBytes = fs.statSync(file).size + lines.length + 1; // onlcr: \n -> \r\n
  const client = await daemon.connect();
  for (let run = 0; run < 3; run++) {
    // The program turns echo off, says so, and waits for a line: the owner is live and counting
    // before the first byte of the file, and the line sent to start it is not echoed.
    const { session } = await client.request('create', {
      argv: ['sh', '-c', `stty -echo; printf READY; read go; cat ${file}`],
      cols: 120,
      rows: 30,
      scrollback: 100,
    });
    // The input owner: it gets every byte, also in a flood (watchers are redrawn).
    const replay = new ReplayTerminal(120, 30, 100);
    await client.attach({ session: session.id, role: 'owner' }, replay);
    await waitFor(
      async () => (await replay.lines()).some((l) => l.startsWith('READY')),
      10_000,
      'the program to be ready',
    );
    const before = replay.outputBytes;
    await client.request('send', { session: session.id, data: '\r' });
    const { met } = await client.request('wait', {
      session: session.id,
      condition: { kind: 'exit' },
      timeoutMs: 60_000,
    });
    assert.ok(met);
    await waitFor(() => replay.outputBytes - before >= expectedBytes, 5000, 'all output at the owner').catch(
      () => undefined,
    );
    assert.equal(
      replay.outputBytes - before,
      expectedBytes,
      `run ${run}: the owner got ${replay.outputBytes - before} of ${expectedBytes} bytes`,
    );
    const screen = await client.request('read', { session: session.id });
    assert.ok(screen.lines.includes('THE-END'), `run ${run}: the emulator lacks the last line`);
    await client.request('remove', { session: session.id });
  }
});

test(
  'a watcher that never reads (more than its 8 MiB queue) does not slow the program, ' +
    'and is resynced when it reads again',
  async () => {
    const client = await daemon.connect();
    const { session } = await client.request('create', {
      argv: ['sh', '-c', 'read go; seq 1 1500000; echo FLOOD-DONE; sleep 30'],
      cols: 80,
      rows: 24,
      scrollback: 100,
    });
    // A raw client that attaches and then stops reading its socket; the flood starts after that.
    const socket = net.createConnection(daemon.socket);
    await new Promise((r) => socket.once('connect', r));
    const decoder = new FrameDecoder();
    let attached!: () => void;
    const attachAnswered = new Promise<void>((resolve) => (attached = resolve));
    let resynced = false;
    let lastSnapshot = '';
    socket.on('data', (chunk: Buffer) => {
      for (const frame of decoder.push(chunk)) {
        if (frame.kind === FrameKind.Response) {
          socket.pause(); // at once, in this handler: nothing more is read until resume()
          attached();
        }
        if (frame.kind === FrameKind.Event && frame.payload.toString().includes('"resync"')) resynced = true;
        if (frame.kind === FrameKind.Snapshot && resynced) lastSnapshot = splitRaw(frame.payload).bytes.toString();
      }
    });
    const token = fs.readFileSync(tokenPathFor(daemon.socket), 'utf8').trim();
    socket.write(
      encodeJson(FrameKind.Hello, {
        protocol: PROTOCOL_VERSION,
        client: 'stalled',
        version: 'test',
        token,
        capabilities: [],
      }),
    );
    socket.write(
      encodeJson(FrameKind.Request, {
        id: 1,
        method: 'attach',
        params: { session: session.id, channel: 7, role: 'watcher' },
      }),
    );
    await attachAnswered;
    await client.request('send', { session: session.id, data: '\r' });
    const started = Date.now();
    const { met } = await waitForText(client, session.id, '^FLOOD-DONE$', 60_000);
    assert.ok(met, 'the program was held up by a watcher that does not read');
    const floodMs = Date.now() - started;
    // Now read everything: there must be a resync event followed by a fresh snapshot holding the end.
    socket.resume();
    await waitFor(
      () => lastSnapshot.includes('FLOOD-DONE'),
      20_000,
      `a resync snapshot with the end of the flood (flood took ${floodMs} ms)`,
    );
    socket.destroy();
    await client.request('remove', { session: session.id });
  },
);

test('a snapshot waits for a synchronized update (DEC 2026) to end, at most one second', async () => {
  const client = await daemon.connect();
  // The update ends when the test says so (a line on stdin), after it attached inside it.
  const script = [
    "stty -echo; printf 'before\\n\\033[?2026hpartial'",
    'read go',
    "printf ' complete\\033[?2026l\\n'",
    'sleep 30',
  ].join('; ');
  const { session } = await client.request('create', { argv: ['sh', '-c', script], cols: 80, rows: 10 });
  await waitForText(client, session.id, 'partial', 5000);
  const replay = new ReplayTerminal(80, 10);
  let snapshotAt = 0;
  await client.attach(
    { session: session.id, role: 'watcher' },
    {
      onSnapshot: (bytes, why) => {
        snapshotAt = Date.now();
        replay.onSnapshot(bytes, why);
      },
      onOutput: (bytes) => replay.onOutput(bytes),
    },
  );
  // The program is idle: without the update, the snapshot would have gone out before the attach's
  // reply, and surely before the reply to a later request on the same connection.
  await client.request('list', {});
  assert.equal(snapshotAt, 0, 'the snapshot did not wait for the update to end');
  await client.request('send', { session: session.id, data: '\r' });
  await waitFor(() => snapshotAt > 0, 3000, 'the snapshot');
  assert.ok(
    (await replay.lines()).some((l) => l.includes('partial complete')),
    'the snapshot was taken inside the update',
  );

  // An update that never ends: the snapshot comes after the one-second cap.
  const { session: stuck } = await client.request('create', {
    argv: ['sh', '-c', `printf 'stuck\\033[?2026h'; sleep 30`],
    cols: 80,
    rows: 10,
  });
  await waitForText(client, stuck.id, 'stuck', 5000);
  const start = Date.now();
  let stuckSnapshotAt = 0;
  await client.attach(
    { session: stuck.id, role: 'watcher' },
    { onSnapshot: () => (stuckSnapshotAt = Date.now()), onOutput: () => undefined },
  );
  await waitFor(() => stuckSnapshotAt > 0, 3000, 'the capped snapshot');
  const waited = stuckSnapshotAt - start;
  assert.ok(waited >= 900 && waited < 2000, `waited ${waited} ms for a never-ending update`);
  await client.request('remove', { session: session.id });
  await client.request('remove', { session: stuck.id });
});

test(
  'a screenFirst attach gets the visible screen first, then the whole scrollback, ' +
    'and no line is lost or doubled while the program prints',
  async () => {
    const client = await daemon.connect();
    // 3000 numbered lines, then one more every few milliseconds while the snapshots go out.
    const { session } = await client.request('create', {
      argv: [
        'sh',
        '-c',
        'seq 1 3000; i=3001; ' +
          'while [ $i -le 3400 ]; do echo $i; i=$((i+1)); [ $((i % 20)) -eq 0 ] && sleep 0.01; done; ' +
          'exec sleep 60',
      ],
      cols: 80,
      rows: 24,
      scrollback: 10_000,
    });
    await client.request('wait', {
      session: session.id,
      condition: { kind: 'text', pattern: '^2999$', history: true },
      timeoutMs: 10_000,
    });
    const replay = new ReplayTerminal(80, 24, 20_000);
    const reasons: string[] = [];
    let screenLines: string[] | undefined;
    const watcher = await daemon.connect('screen-first');
    await watcher.attach(
      { session: session.id, role: 'watcher', screenFirst: true },
      {
        onSnapshot: (bytes, why) => {
          reasons.push(why);
          if (why === 'attach') screenLines = bytes.toString('utf8').split('\r\n');
          replay.onSnapshot(bytes, why);
        },
        onOutput: (bytes) => replay.onOutput(bytes),
        onEvent: (event) => replay.onEvent(event),
      },
    );
    await waitFor(() => reasons.includes('history'), 10_000, 'the history snapshot');
    await waitForText(client, session.id, '^3400$', 10_000);
    await waitFor(
      async () => (await replay.lines()).some((l) => l.trim() === '3400'),
      10_000,
      'the replay to show 3400',
    );
    assert.deepEqual(reasons, ['attach', 'history']);
    assert.ok(screenLines!.length <= 24 + 1, `the first snapshot is the screen only (${screenLines!.length} lines)`);
    const last = assertConsecutive(await replay.lines(), 'replay after the history snapshot');
    assert.equal(last, 3400);
    const numbers = (await replay.lines()).map((l) => l.trim()).filter((l) => l !== '');
    assert.equal(numbers[0], '1', 'the scrollback reaches back to the first line');
  },
);

test('a historyLater attach gets the screen only, and the scrollback when it asks for it', async () => {
  const client = await daemon.connect();
  const { session } = await client.request('create', {
    argv: ['sh', '-c', 'seq 1 500; exec sleep 60'],
    cols: 80,
    rows: 24,
    scrollback: 10_000,
  });
  await waitForText(client, session.id, '^500$', 10_000);
  const watcher = await daemon.connect('history-later');
  const reasons: string[] = [];
  const replay = new ReplayTerminal(80, 24, 2000);
  const attachment = await watcher.attach(
    { session: session.id, role: 'watcher', screenFirst: true, historyLater: true },
    {
      onSnapshot: (bytes, why) => {
        reasons.push(why);
        replay.onSnapshot(bytes, why);
      },
      onOutput: (bytes) => replay.onOutput(bytes),
    },
  );
  await waitFor(() => reasons.length > 0, 5000, 'the screen');
  // Absence: longer than a screenFirst attach's history waits (HistoryAfterScreenMs), then a request
  // on the same connection: every frame the daemon sent before its answer has arrived.
  await absenceWindow(SnapshotTiming.HistoryAfterScreenMs * 3);
  await watcher.request('list', {});
  assert.deepEqual(reasons, ['attach'], 'no history until asked for');
  assert.equal((await replay.lines()).filter((l) => l.trim() !== '')[0].trim(), '478', 'the screen only');
  await attachment.requestHistory();
  await waitFor(() => reasons.includes('history'), 5000, 'the history');
  assert.equal((await replay.lines()).filter((l) => l.trim() !== '')[0].trim(), '1');
  assert.equal(assertConsecutive(await replay.lines(), 'after the history'), 500);
});
