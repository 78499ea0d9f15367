// A channel's view (the `view` request): a hidden tab is sent nothing, and shown again gets its screen, then its
// scrollback, then the stream, with no line lost or doubled; while its owner is hidden the daemon answers the
// program's queries; an owner whose terminal fell behind is redrawn as a watcher until the flood is over.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { HoldfastClient } from '../src/client/client';
import type { ChannelView } from '../src/protocol/messages';
import { absenceWindow } from './helpers/absence';
import { startTestDaemon, type TestDaemon, waitFor, waitForText } from './helpers/daemon';
import { ReplayTerminal } from './helpers/terminal';

let daemon: TestDaemon;
before(async () => {
  daemon = await startTestDaemon();
});
after(async () => {
  await daemon.stop();
});

/** The numbers on `lines` follow each other; returns the first and the last. */
function consecutive(lines: string[], what: string): [number, number] {
  const numbers = lines
    .map((l) => l.trim())
    .filter((l) => /^\d+$/.test(l))
    .map(Number);
  assert.ok(numbers.length > 0, `${what}: no numbers`);
  for (let i = 1; i < numbers.length; i++)
    assert.equal(numbers[i], numbers[i - 1] + 1, `${what}: ${numbers[i]} after ${numbers[i - 1]}`);
  return [numbers[0], numbers[numbers.length - 1]];
}

const setView = (client: HoldfastClient, channel: number, view: ChannelView) =>
  client.request('view', { channel, view });

test('the daemon offers the view capability', async () => {
  const client = await daemon.connect();
  assert.ok(client.supports('view'));
});

test('a hidden owner is sent nothing; shown, it gets its screen, its scrollback, then the stream', async () => {
  const client = await daemon.connect();
  // Numbered lines in two bursts: the second while the tab is hidden, the third after it is shown again.
  const { session } = await client.request('create', {
    argv: ['sh', '-c', 'seq 1 500; read a; seq 501 8000; read b; seq 8001 8100; exec sleep 60'],
    cols: 80,
    rows: 24,
    scrollback: 10_000,
  });
  const tab = await daemon.connect('tab');
  const replay = new ReplayTerminal(80, 24, 10_000);
  const attachment = await tab.attach({ session: session.id, role: 'owner' }, replay);
  await waitFor(async () => (await replay.lines()).some((l) => l.trim() === '500'), 10_000, 'the first burst');
  await setView(tab, attachment.channel, 'hidden');
  const [bytes, snapshots] = [replay.outputBytes, replay.snapshots];
  await client.request('send', { session: session.id, data: '\n' });
  await waitForText(client, session.id, '^8000$', 20_000);
  await tab.request('list', {}); // every frame sent before this answer has arrived
  assert.deepEqual([replay.outputBytes, replay.snapshots], [bytes, snapshots], 'nothing while hidden');
  await setView(tab, attachment.channel, 'live');
  await waitFor(() => replay.events.some((e) => e.type === 'history'), 10_000, 'the scrollback after the screen');
  await client.request('send', { session: session.id, data: '\n' });
  await waitFor(async () => (await replay.lines()).some((l) => l.trim() === '8100'), 10_000, 'the stream');
  assert.equal(replay.resyncs, 1, 'one resync: the screen, then the history');
  const shown = await replay.lines();
  assert.deepEqual(consecutive(shown, 'the tab'), [1, 8100]);
  const { lines } = await client.request('read', { session: session.id, scrollback: 10_000 });
  assert.deepEqual(
    shown.map((l) => l.trimEnd()).filter(Boolean),
    lines.map((l) => l.trimEnd()).filter(Boolean),
    'the tab holds what the session kept',
  );
  await client.request('remove', { session: session.id });
});

test('attached hidden, a tab is sent no snapshot until it is shown', async () => {
  const client = await daemon.connect();
  const { session } = await client.request('create', {
    argv: ['sh', '-c', 'seq 1 3000; exec sleep 60'],
    cols: 80,
    rows: 24,
    scrollback: 10_000,
  });
  await waitForText(client, session.id, '^3000$', 10_000);
  const tab = await daemon.connect('restored');
  const replay = new ReplayTerminal(80, 24, 10_000);
  const attachment = await tab.attach(
    { session: session.id, role: 'owner', screenFirst: true, view: 'hidden' },
    replay,
  );
  await absenceWindow(300); // longer than a screen-first attach takes to send its screen and history
  await tab.request('list', {});
  assert.deepEqual([replay.snapshots, replay.outputBytes], [0, 0], 'nothing while hidden');
  await setView(tab, attachment.channel, 'live');
  await waitFor(() => replay.events.some((e) => e.type === 'history'), 10_000, 'the scrollback');
  await waitFor(() => replay.snapshots === 2, 10_000, 'the screen and the scrollback');
  assert.deepEqual(consecutive(await replay.lines(), 'the tab'), [1, 3000]);
  await client.request('remove', { session: session.id });
});

test("while the owner's tab is hidden the daemon answers the program's queries; shown, the tab does", async () => {
  const client = await daemon.connect();
  // For each line read, asks for the terminal's attributes (DA1) and prints the answer it gets.
  const script =
    'stty -echo; while read -r line; do printf "\\033[c"; IFS= read -r -s -d c answer; ' +
    'printf "answer:%s\\n" "$(printf %s "$answer" | tr -d "\\033")"; done';
  const { session } = await client.request('create', { argv: ['bash', '-c', script], cols: 80, rows: 24 });
  const tab = await daemon.connect('tab');
  const replay = new ReplayTerminal(80, 24);
  const attachment = await tab.attach({ session: session.id, role: 'owner' }, replay);
  await waitFor(() => replay.snapshots === 1, 10_000, 'the attach');
  // Live: the query reaches the tab, and only the tab answers it (this one with its own attributes).
  await client.request('send', { session: session.id, data: 'one\n' });
  await waitFor(() => replay.outputBytes > 0, 10_000, 'the query at the tab');
  await absenceWindow(300);
  assert.ok(!(await client.request('read', { session: session.id })).lines.some((l) => l.includes('answer:')));
  attachment.write('\x1b[?6c');
  await waitForText(client, session.id, 'answer:\\[\\?6$', 10_000);
  // Hidden: the tab is sent nothing, so the daemon answers (xterm's own attributes).
  await setView(tab, attachment.channel, 'hidden');
  await client.request('send', { session: session.id, data: 'two\n' });
  await waitForText(client, session.id, 'answer:\\[\\?1;2$', 10_000);
  // Shown again: the tab answers once more.
  await setView(tab, attachment.channel, 'live');
  await client.request('send', { session: session.id, data: 'three\n' });
  await waitFor(async () => (await replay.lines()).some((l) => l.includes('answer:[?1;2')), 10_000, 'the resync');
  await absenceWindow(300);
  const screen = (await client.request('read', { session: session.id })).lines.filter((l) => l.includes('answer:'));
  assert.equal(screen.length, 2, `only the tab may answer the third: ${screen.join(' | ')}`);
  attachment.write('\x1b[?62c');
  await waitForText(client, session.id, 'answer:\\[\\?62$', 10_000);
  await client.request('remove', { session: session.id });
});

test('an owner that fell behind a flood is redrawn until it is over, then gets it whole and streams', async () => {
  const client = await daemon.connect();
  const { session } = await client.request('create', {
    argv: ['sh', '-c', 'read go; seq 1 2000000; read again; seq 2000001 2000010; exec sleep 60'],
    cols: 80,
    rows: 24,
    scrollback: 2000,
  });
  const tab = await daemon.connect('tab');
  const replay = new ReplayTerminal(80, 24, 2000);
  const attachment = await tab.attach({ session: session.id, role: 'owner' }, replay);
  await waitFor(() => replay.snapshots === 1, 10_000, 'the attach');
  await client.request('send', { session: session.id, data: '\n' });
  await waitFor(() => replay.outputBytes > 1_000_000, 30_000, 'the flood');
  await setView(tab, attachment.channel, 'redraw');
  // Frames sent before the answer came before it: from here on the tab is sent screens while the flood lasts (on
  // a starved machine it may pause long enough to count as over: then the tab streams again, as it asked).
  const afterAsking = replay.outputBytes;
  await waitForText(client, session.id, '^2000000$', 120_000);
  await waitFor(async () => (await replay.lines()).some((l) => l.trim() === '2000000'), 30_000, 'the flood whole');
  assert.ok(replay.resyncs >= 1, 'redrawn');
  console.log(`after the tab fell behind: ${replay.outputBytes - afterAsking} bytes, ${replay.resyncs} redraws`);
  consecutive(await replay.lines(), 'the tab after the flood');
  await client.request('send', { session: session.id, data: '\n' });
  await waitFor(async () => (await replay.lines()).some((l) => l.trim() === '2000010'), 10_000, 'the stream again');
  assert.equal(consecutive(await replay.lines(), 'the tab streaming again')[1], 2000010);
  await client.request('remove', { session: session.id });
});
