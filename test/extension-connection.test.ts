// The extension's connection to the daemon and its session list, without VS Code: both are pure
// Node, run here against a real daemon on a private socket. A daemon that goes away is
// reconnected to when it comes back, without the connection holding on to each attempt; the
// list follows the daemon's pushed events.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import type { IDisposable } from '../src/base/disposable';
import { startDaemon } from '../src/client/launch';
import { DaemonConnection, type DaemonState } from '../src/extension/daemonConnection';
import type { Log } from '../src/extension/log';
import { SessionList } from '../src/extension/sessionList';
import { DAEMON_SCRIPT, isAlive, startTestDaemon, type TestDaemon, waitFor } from './helpers/daemon';

type Event<T> = (listener: (value: T) => void) => IDisposable;

/** Resolves with the first value `event` fires that `accept` takes (with none, the first). */
function nextEvent<T>(event: Event<T>, accept: (value: T) => boolean = () => true): Promise<T> {
  return new Promise((resolve) => {
    const listener = event((value) => {
      if (!accept(value)) return;
      listener.dispose();
      resolve(value);
    });
  });
}

/** Resolves once `check` holds, looked at now and after each change of the list. */
function listShows(list: SessionList, check: () => boolean): Promise<void> {
  if (check()) return Promise.resolve();
  return nextEvent(list.onDidChange, check).then(() => undefined);
}

function connectionTo(daemon: TestDaemon): DaemonConnection {
  return new DaemonConnection({
    socket: daemon.socket,
    daemonScript: () => DAEMON_SCRIPT,
    execPath: process.execPath,
    env: daemon.env,
    wrapper: async () => undefined,
  });
}

/** A log that keeps its lines, for the assertions. */
function memoryLog(): Log & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(`info: ${m}`), warn: (m) => lines.push(`warn: ${m}`) };
}

/** How many disposables the connection's own store holds (it must not grow with reconnects). */
function storeSize(connection: DaemonConnection): number {
  return connection['store'].size;
}

test('DaemonConnection adopts a running daemon and reports it connected', async () => {
  const daemon = await startTestDaemon();
  const connection = connectionTo(daemon);
  try {
    const states: DaemonState['kind'][] = [];
    connection.onDidChangeState((state) => states.push(state.kind));
    const client = await connection.adopt();
    assert.ok(client);
    assert.equal(client.hello.pid, daemon.pid);
    assert.equal(connection.client, client);
    assert.deepEqual(states, ['connecting', 'connected']);
    // Asked again, it hands out the same client.
    assert.equal(await connection.get(), client);
  } finally {
    connection.dispose();
    await daemon.stop();
    fs.rmSync(daemon.dir, { recursive: true, force: true });
  }
});

// Regression: each reconnect attempt stayed in the connection's store until the connection was disposed.
test('a reconnect after the daemon restarts leaves the connection holding what it held before', async () => {
  const daemon = await startTestDaemon();
  const connection = connectionTo(daemon);
  const list = new SessionList(connection, memoryLog());
  let restartedPid: number | undefined;
  try {
    await connection.adopt();
    const sizeBefore = storeSize(connection);

    const lost = nextEvent(connection.onDidLose);
    // An attempt is 'connecting' then, with no daemon there, 'stopped' (or 'failed').
    let attempting = false;
    const attemptFailed = nextEvent(connection.onDidChangeState, (state) => {
      if (state.kind === 'connecting') attempting = true;
      return attempting && (state.kind === 'stopped' || state.kind === 'failed');
    });
    process.kill(daemon.pid, 'SIGTERM');
    assert.deepEqual(await lost, { daemonGone: false, expected: false });
    await attemptFailed;

    // The same socket, a new daemon: a later attempt finds it.
    const reconnected = nextEvent(connection.onDidConnect);
    const ready = await startDaemon({
      socket: daemon.socket,
      daemonScript: DAEMON_SCRIPT,
      env: daemon.env,
      args: ['--persistent'],
    });
    assert.ok('pid' in ready, 'the daemon restarted');
    restartedPid = ready.pid;
    const client = await reconnected;
    assert.equal(client.hello.pid, restartedPid);
    assert.equal(connection.state.kind, 'connected');
    assert.equal(storeSize(connection), sizeBefore, 'the connection holds what it held before the restart');

    // The list follows the new daemon too.
    const other = await daemon.connect('other');
    const { session } = await other.request('create', { name: 'after-restart', argv: ['/bin/sh', '-c', 'sleep 30'] });
    await listShows(list, () => list.get(session.id) !== undefined);
    other.close();
  } finally {
    list.dispose();
    connection.dispose();
    if (restartedPid !== undefined) {
      process.kill(restartedPid, 'SIGTERM');
      const pid = restartedPid;
      await waitFor(() => !isAlive(pid), 10_000, 'the restarted daemon to exit');
    }
    await daemon.stop();
    fs.rmSync(daemon.dir, { recursive: true, force: true });
  }
});

test('SessionList sees a session appear, exit and disappear', async () => {
  const daemon = await startTestDaemon();
  const connection = connectionTo(daemon);
  const log = memoryLog();
  const list = new SessionList(connection, log);
  try {
    const loaded = nextEvent(list.onDidChange);
    await connection.adopt();
    await loaded; // the subscribe answered (no session yet)
    assert.equal(list.all.length, 0);

    const other = await daemon.connect('other');
    const { session } = await other.request('create', {
      name: 'short',
      argv: ['/bin/sh', '-c', 'read line; exit 3'],
      cols: 80,
      rows: 24,
    });
    await listShows(list, () => list.get(session.id)?.state === 'running');
    assert.equal(list.running, 1);
    assert.equal(list.all[0].name, 'short');

    await other.request('send', { session: session.id, data: 'go\r' });
    await listShows(list, () => list.get(session.id)?.state === 'exited');
    assert.equal(list.get(session.id)?.exit?.code, 3);
    assert.equal(list.running, 0);

    await other.request('remove', { session: session.id });
    await listShows(list, () => list.get(session.id) === undefined);
    assert.deepEqual(list.all, []);
    other.close();
    assert.deepEqual(
      log.lines.filter((l) => l.startsWith('warn')),
      [],
    );
  } finally {
    list.dispose();
    connection.dispose();
    await daemon.stop();
    fs.rmSync(daemon.dir, { recursive: true, force: true });
  }
});
