// A tab not on screen is sent nothing (SessionTab + TabView against a real daemon, with a real xterm.js as its
// renderer): shown again it gets its last screen, then a scrollback that is the session's own, with no line
// lost or doubled; a tab restored hidden loads no screen until it is shown.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import type { HoldfastClient } from '../src/client/client';
import type { SessionInfo } from '../src/protocol/messages';
import { TabView } from '../src/extension/tabView';
import { startTestDaemon, type TestDaemon, waitFor, waitForText } from './helpers/daemon';
import { tabFor, tabWindow, type TabWindow } from './helpers/tabWindow';
import { ReplayTerminal } from './helpers/terminal';

interface Rig {
  daemon: TestDaemon;
  window: TabWindow;
  other: HoldfastClient;
  session: SessionInfo;
  shown: { value: boolean };
}

async function rig(argv: string[]): Promise<Rig> {
  const daemon = await startTestDaemon();
  const window = tabWindow(daemon);
  const shown = { value: true };
  window.host.isShown = () => shown.value;
  const other = await daemon.connect('cli');
  const { session } = await other.request('create', { argv, cols: 80, rows: 24, scrollback: 10_000 });
  return { daemon, window, other, session, shown };
}

async function dispose(r: Rig): Promise<void> {
  r.window.connection.dispose();
  r.other.close();
  await r.daemon.stop();
  fs.rmSync(r.daemon.dir, { recursive: true, force: true });
}

/** A tab on the session whose renderer is a real xterm.js (its answers to the tab's probes come back as input). */
function openTab(r: Rig) {
  const { tab, written } = tabFor(r.window, r.session);
  const replay = new ReplayTerminal(80, 24, 10_000);
  replay.terminal.onData((data) => tab.handleInput(data));
  tab.onDidWrite((text) => replay.terminal.write(text));
  tab.open({ columns: 80, rows: 24 });
  const numbers = async () =>
    (await replay.lines())
      .map((l) => l.trim())
      .filter((l) => /^\d+$/.test(l))
      .map(Number);
  return { tab, written, replay, numbers };
}

/** Every frame the daemon sent the tab's connection before now has arrived. */
async function synced(r: Rig): Promise<void> {
  await (await r.window.connection.get()).request('list', {});
}

function assertConsecutive(numbers: number[], first: number, last: number, what: string): void {
  assert.equal(numbers[0], first, `${what}: starts at ${numbers[0]}`);
  assert.equal(numbers[numbers.length - 1], last, `${what}: ends at ${numbers[numbers.length - 1]}`);
  for (let i = 1; i < numbers.length; i++) assert.equal(numbers[i], numbers[i - 1] + 1, `${what}: at ${numbers[i]}`);
}

test('a hidden tab is sent nothing; shown, it shows its last screen and whole scrollback, then streams', async () => {
  const r = await rig(['sh', '-c', 'seq 1 500; read a; seq 501 9000; read b; seq 9001 9100; exec sleep 60']);
  const { tab, written, replay, numbers } = openTab(r);
  try {
    await waitFor(async () => (await numbers()).includes(500), 10_000, 'the first lines');
    tab.setShown(false);
    await synced(r); // the view is set: the request went before this one on the same connection
    const before = written().length;
    await r.other.request('send', { session: r.session.id, data: '\n' });
    await waitForText(r.other, r.session.id, '^9000$', 20_000);
    await synced(r);
    assert.equal(written().length, before, 'nothing written while hidden');
    tab.setShown(true);
    await waitFor(async () => (await numbers()).includes(9000), 10_000, 'the screen once shown');
    await waitFor(async () => (await numbers())[0] === 1, 10_000, 'the scrollback after the screen');
    assertConsecutive(await numbers(), 1, 9000, 'shown again');
    const { lines } = await r.other.request('read', { session: r.session.id, scrollback: 10_000 });
    assert.deepEqual(
      (await replay.lines()).map((l) => l.trimEnd()).filter(Boolean),
      lines.map((l) => l.trimEnd()).filter(Boolean),
      "the tab's scrollback is the session's",
    );
    await r.other.request('send', { session: r.session.id, data: '\n' });
    await waitFor(async () => (await numbers()).includes(9100), 10_000, 'the stream');
    assertConsecutive(await numbers(), 1, 9100, 'streaming again');
  } finally {
    tab.dispose();
    replay.dispose();
    await dispose(r);
  }
});

test('a tab opened hidden (restored) loads no screen until it is shown', async () => {
  const r = await rig(['sh', '-c', 'seq 1 3000; exec sleep 60']);
  await waitForText(r.other, r.session.id, '^3000$', 10_000);
  r.shown.value = false;
  const { tab, written, numbers } = openTab(r);
  try {
    await waitFor(() => tab.status === 'live', 10_000, 'the attach');
    await new Promise((resolve) => setTimeout(resolve, 300)); // longer than a screen and its history take
    await synced(r);
    assert.equal(written(), '', 'nothing written while hidden');
    tab.setShown(true);
    await waitFor(async () => (await numbers())[0] === 1, 10_000, 'the screen, then the scrollback');
    assertConsecutive(await numbers(), 1, 3000, 'shown');
  } finally {
    tab.dispose();
    await dispose(r);
  }
});

test('against a daemon without views a tab streams as before, hidden or not', () => {
  const client = { supports: () => false } as unknown as HoldfastClient;
  const view = new TabView(() => undefined);
  assert.equal(view.set(false), false, 'the daemon cannot be told');
  assert.equal(view.attachView(client), undefined, 'attached live');
  assert.equal(
    view.redraw(() => undefined),
    false,
    'no redraw: the tab asks for a snapshot instead',
  );
});
