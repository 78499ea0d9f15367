// A Holdfast tab (SessionTab, plain Node) against a real daemon whose connection is cut at each
// moment of the tab's life: while opening, attaching, live, reconnecting and replacing. Each time the
// tab ends live, showing the same session (same id, same process), and takes keys again; keys typed
// while it was away reach the program once it is back. A resize the daemon refuses leaves the tab
// live, with a line in the window's log. A relaunch whose connection fails leaves the tab as it was.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import type { SessionInfo } from '../src/protocol/messages';
import { startNewRun } from '../src/extension/newRun';
import type { SessionTab } from '../src/extension/pseudoterminal';
import { startTestDaemon, type TestDaemon, waitFor } from './helpers/daemon';
import { SocketProxy } from './helpers/socketProxy';
import { tabFor, type TabWindow, tabWindow } from './helpers/tabWindow';

const STEP_MS = 20_000;
const SIZE = { columns: 80, rows: 24 };

interface Rig extends TabWindow {
  daemon: TestDaemon;
  proxy: SocketProxy;
  session: SessionInfo;
}

/** A daemon with one shell session, and a window's connection to it through a proxy the test can cut. */
async function rig(argv = ['/bin/sh']): Promise<Rig> {
  const daemon = await startTestDaemon();
  const proxy = await SocketProxy.start(daemon.socket, daemon.dir);
  const window = tabWindow(daemon, proxy.socket);
  const other = await daemon.connect('setup');
  const { session } = await other.request('create', { name: 'cut', argv, cols: 80, rows: 24 });
  other.close();
  await window.connection.adopt();
  return { ...window, daemon, proxy, session };
}

async function teardown(r: Rig, tab: SessionTab): Promise<void> {
  tab.dispose();
  r.connection.dispose();
  await r.proxy.close();
  await r.daemon.stop();
  fs.rmSync(r.daemon.dir, { recursive: true, force: true });
}

/** Cuts the window's connection; resolves once the window knows (the tabs have heard). */
async function cut(r: Rig): Promise<void> {
  const lost = new Promise<void>((resolve) => {
    const listener = r.connection.onDidLose(() => {
      listener.dispose();
      resolve();
    });
  });
  r.proxy.drop();
  await lost;
}

function isLive(tab: SessionTab): Promise<void> {
  return waitFor(() => tab.status === 'live', STEP_MS, `the tab to be live (it is ${tab.status})`);
}

/** The tab is live on the same session, and a key typed in it reaches that session's shell. */
async function endsLiveOnSameSession(
  r: Rig,
  tab: SessionTab,
  written: () => string,
  session: SessionInfo,
  mark: string,
): Promise<void> {
  await isLive(tab);
  assert.equal(tab.sessionId, session.id, 'the same session');
  assert.equal(tab.session?.pid, session.pid, 'the same process');
  tab.handleInput(`echo ${mark}-$((40+2))\r`);
  await waitFor(() => written().includes(`${mark}-42`), STEP_MS, `${mark}-42 in the tab`);
  assert.deepEqual(r.errors, []);
}

test('the connection cut before the tab opens: it attaches once open', async () => {
  const r = await rig();
  const { tab, written } = tabFor(r, r.session);
  try {
    const back = new Promise<void>((resolve) => r.connection.onDidConnect(() => resolve()));
    await cut(r);
    assert.equal(tab.status, 'opening');
    await back;
    tab.open(SIZE);
    await endsLiveOnSameSession(r, tab, written, r.session, 'opening');
  } finally {
    await teardown(r, tab);
  }
});

test('the connection cut while the attach is in flight: the tab attaches again on the next one', async () => {
  const r = await rig();
  const { tab, written } = tabFor(r, r.session);
  try {
    r.proxy.holdAnswerTo('"attach"'); // the attach's answer does not come back
    const attachSent = r.proxy.sent('"attach"');
    tab.open(SIZE);
    await attachSent;
    assert.equal(tab.status, 'attaching');
    await cut(r);
    r.proxy.release();
    await new Promise((resolve) => setImmediate(resolve)); // the lost attach's rejection is handled
    assert.equal(tab.status, 'reconnecting', 'not failed: the session lives');
    await endsLiveOnSameSession(r, tab, written, r.session, 'attaching');
  } finally {
    await teardown(r, tab);
  }
});

test('the connection cut while live: the tab reconnects and shows what was there', async () => {
  const r = await rig();
  const { tab, written } = tabFor(r, r.session);
  try {
    tab.open(SIZE);
    await endsLiveOnSameSession(r, tab, written, r.session, 'before');
    const accepted = r.proxy.accepted;
    await cut(r);
    assert.equal(tab.status, 'reconnecting');
    await endsLiveOnSameSession(r, tab, written, r.session, 'after');
    assert.equal(r.proxy.accepted, accepted + 1, 'one new connection');
  } finally {
    await teardown(r, tab);
  }
});

test('the connection cut again while reconnecting: before the new one is up, and during its attach', async () => {
  const r = await rig();
  const { tab, written } = tabFor(r, r.session);
  try {
    tab.open(SIZE);
    await isLive(tab);
    r.proxy.refuseNext(1); // the first reconnect attempt is cut at once
    r.proxy.holdAnswerTo('"attach"'); // and the reattach on the next one gets no answer
    const reattachSent = r.proxy.sent('"attach"');
    await cut(r);
    assert.equal(tab.status, 'reconnecting');
    await reattachSent;
    assert.equal(r.proxy.refused, 1);
    assert.equal(tab.status, 'attaching');
    await cut(r);
    r.proxy.release();
    await endsLiveOnSameSession(r, tab, written, r.session, 'reconnecting');
  } finally {
    await teardown(r, tab);
  }
});

test('keys typed while the tab reconnects and while it attaches again reach the shell once it is live', async () => {
  const r = await rig();
  const { tab, written } = tabFor(r, r.session);
  try {
    tab.open(SIZE);
    await isLive(tab);
    r.proxy.holdAnswerTo('"attach"'); // the reattach waits: the tab stays attaching
    const reattachSent = r.proxy.sent('"attach"');
    await cut(r);
    assert.equal(tab.status, 'reconnecting');
    tab.handleInput('echo away-$((40');
    await reattachSent;
    assert.equal(tab.status, 'attaching');
    tab.handleInput('+2))\r');
    r.proxy.release();
    await isLive(tab);
    await waitFor(() => written().includes('away-42'), STEP_MS, 'the held keys to reach the shell, in order');
    assert.deepEqual(r.errors, []);
  } finally {
    await teardown(r, tab);
  }
});

test('the connection cut while replacing: before the new run exists, and while the tab attaches to it', async () => {
  const r = await rig(['/bin/sh', '-c', 'exit 3']);
  const { tab, written } = tabFor(r, r.session);
  try {
    tab.open(SIZE);
    await waitFor(() => tab.status === 'exited', STEP_MS, 'the tab to show the exit');
    tab.expectReplacement();
    await cut(r); // cut while replacing: the relaunch goes through another client
    assert.equal(tab.status, 'replacing');
    const other = await r.daemon.connect('relauncher');
    const { session } = await other.request('relaunch', { session: r.session.id, argv: ['/bin/sh'] });
    other.close();
    await waitFor(() => r.connection.client !== undefined, STEP_MS, 'the window to reconnect');
    r.proxy.holdAnswerTo('"attach"');
    const attachSent = r.proxy.sent('"attach"');
    const replaced = tab.replaceSession(session, 'relaunched');
    await attachSent;
    await cut(r); // cut while the tab attaches to the new run
    r.proxy.release();
    await replaced; // it resolves: the tab attaches again with the next connection
    await endsLiveOnSameSession(r, tab, written, session, 'replacing');
  } finally {
    await teardown(r, tab);
  }
});

test('regression: the connection fails as a relaunch asks for it: the tab is as it was, not replacing', async () => {
  const r = await rig();
  const { tab, written } = tabFor(r, r.session);
  try {
    tab.open(SIZE);
    await isLive(tab);
    r.proxy.refuseNext(1); // the next connection, the relaunch's, is cut as soon as it arrives
    await cut(r);
    const ctx = {
      connection: r.connection,
      windowCliHook: undefined,
      sessionStart: () => ({ cwd: '/', env: {} }),
      sessionStarted: () => undefined,
    };
    const request = { id: r.session.id, how: 'relaunch' as const, known: r.session };
    await assert.rejects(startNewRun(ctx, request, tab));
    assert.equal(tab.status, 'reconnecting', 'back as it was: live, with its connection lost');
    tab.handleInput('echo held'); // held while it reconnects, typed once it is back
    await r.connection.get(); // as any later command does
    tab.handleInput('-$((40+2))\r');
    await waitFor(() => written().includes('held-42'), STEP_MS, 'the held keys to reach the shell');
    await endsLiveOnSameSession(r, tab, written, r.session, 'after-failed-relaunch');
  } finally {
    await teardown(r, tab);
  }
});

test('a resize the daemon refuses is a line in the log, and the tab stays live', async () => {
  const r = await rig();
  const { tab, written } = tabFor(r, r.session);
  try {
    tab.open(SIZE);
    await isLive(tab);
    tab.setDimensions({ columns: 5000, rows: 24 }); // wider than a session may be
    await waitFor(() => r.warnings.length > 0, STEP_MS, 'a warning about the resize');
    assert.match(r.warnings[0], new RegExp(`^resizing ${r.session.id} to 5000x24: cols must be`));
    await endsLiveOnSameSession(r, tab, written, r.session, 'resized');
  } finally {
    await teardown(r, tab);
  }
});
