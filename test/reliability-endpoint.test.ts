// Reliability 1: a daemon that loses its endpoint notices it. (Racing starters, stale and live
// sockets are in daemon-lifetime.test.ts.) The daemon watches its private socket directory: a
// socket path that no longer leads to it is re-published when free, and left alone (logged,
// existing clients still served) when another live server holds it.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { test } from 'node:test';
import { HoldfastClient } from '../src/client/client';
import { startTestDaemon, waitFor } from './helpers/daemon';
import { daemonLog, daemonLogNow, record } from './helpers/reliability';

async function connectsTo(socket: string, pid: number): Promise<boolean> {
  try {
    const client = await HoldfastClient.connect({ socket, client: 'probe', version: 'test', timeoutMs: 2000 });
    client.close();
    return client.hello.pid === pid;
  } catch {
    return false;
  }
}

test('a socket file unlinked under the daemon is noticed and re-published', async () => {
  const daemon = await startTestDaemon();
  try {
    const client = await daemon.connect();
    const { session } = await client.request('create', { argv: ['sleep', '100'] });
    const before = fs.statSync(daemon.socket).ino;
    const unlinkedAt = Date.now();
    fs.unlinkSync(daemon.socket);
    await waitFor(() => fs.existsSync(daemon.socket), 10_000, 'the socket path to be re-published');
    const noticeMs = Date.now() - unlinkedAt;
    assert.notEqual(fs.statSync(daemon.socket).ino, before);
    assert.equal(fs.statSync(daemon.socket).mode & 0o777, 0o600);
    const again = await daemon.connect('after');
    assert.equal(again.hello.pid, daemon.pid);
    assert.deepEqual(
      (await again.request('list', {})).sessions.map((s) => s.id),
      [session.id],
    );
    assert.ok((await client.request('show', { session: session.id })).session, 'the existing client is still served');
    assert.match(await daemonLogNow(daemon), /no longer leads to this daemon[\s\S]*re-published the socket path/);
    record({
      item: '1',
      name: 'socket unlinked: re-published after',
      value: noticeMs,
      unit: 'ms',
      bound: '< 10000 ms',
    });
  } finally {
    await daemon.stop();
  }
});

test('a socket path replaced by a stale socket file is taken back', async () => {
  const daemon = await startTestDaemon();
  try {
    const client = await daemon.connect();
    // A socket file with no listener behind it (its process died), renamed over ours.
    const stalePath = path.join(path.dirname(daemon.socket), 'stale.sock');
    const stale = net.createServer().listen(stalePath);
    await new Promise((r) => stale.once('listening', r));
    fs.linkSync(stalePath, `${stalePath}.keep`);
    await new Promise((r) => stale.close(r));
    const staleInode = fs.statSync(`${stalePath}.keep`).ino;
    fs.renameSync(`${stalePath}.keep`, daemon.socket);
    await waitFor(
      () => fs.statSync(daemon.socket, { throwIfNoEntry: false })?.ino !== staleInode,
      10_000,
      'the stale socket to be replaced',
    );
    assert.ok(await connectsTo(daemon.socket, daemon.pid), 'a new client does not reach the daemon');
    assert.ok((await client.request('list', {})).sessions);
  } finally {
    await daemon.stop();
  }
});

test('a socket path taken by another live server is left to it; the daemon logs it, serves its clients', async () => {
  const daemon = await startTestDaemon();
  const other = net.createServer((s) => s.destroy());
  try {
    const client = await daemon.connect();
    const { session } = await client.request('create', { argv: ['sleep', '100'] });
    const otherPath = path.join(path.dirname(daemon.socket), 'other.sock');
    other.listen(otherPath);
    await new Promise((r) => other.once('listening', r));
    const otherInode = fs.statSync(otherPath).ino;
    fs.renameSync(otherPath, daemon.socket);
    await waitFor(
      () => /lost the endpoint: another daemon serves the socket path now/.test(daemonLog(daemon.env)),
      10_000,
      'the daemon to log the lost endpoint',
    );
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(fs.statSync(daemon.socket).ino, otherInode, 'the daemon replaced a live server’s socket');
    assert.equal((await client.request('show', { session: session.id })).session.state, 'running');
  } finally {
    other.close();
    await daemon.stop();
  }
});

test(
  'the socket directory removed under the daemon: it notices and logs the lost endpoint; ' +
    'existing clients are still served',
  async () => {
    const daemon = await startTestDaemon();
    try {
      const client = await daemon.connect();
      const { session } = await client.request('create', { argv: ['sleep', '100'] });
      // rm -rf races the daemon, which re-publishes into the directory while it still exists.
      await waitFor(
        () => {
          try {
            fs.rmSync(path.dirname(daemon.socket), { recursive: true, force: true });
          } catch {
            // ENOTEMPTY: the daemon just published again
          }
          return !fs.existsSync(path.dirname(daemon.socket));
        },
        10_000,
        'the directory to be removed',
      );
      // It cannot publish into a directory that is gone; it says so instead of going on unaware.
      await waitFor(
        () => /no longer leads to this daemon[\s\S]*lost the endpoint: /.test(daemonLog(daemon.env)),
        10_000,
        'the daemon to notice and log it',
      );
      assert.equal((await client.request('show', { session: session.id })).session.state, 'running');
    } finally {
      await daemon.stop();
    }
  },
);
