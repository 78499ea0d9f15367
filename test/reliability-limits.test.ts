// Reliability 7 and 8: permissions and auth, resource bounds. Each refused case names the limit or
// the problem; none makes the daemon allocate without bound. (Already elsewhere: a 0777 socket
// directory and a 0600 token in daemon-lifetime.test.ts; checkpoint files 0600 in a 0700 directory
// in recovery.test.ts; the 8 MiB output queue of a slow client in daemon-stream.test.ts.)
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { HoldfastClient, type RequestError } from '../src/client/client';
import { encodeJson, encodeRaw, FrameKind, MAX_FRAME_PAYLOAD } from '../src/protocol/frame';
import { InputLimit } from '../src/protocol/limits';
import { startDaemon } from '../src/client/launch';
import { tokenPathFor } from '../src/host/paths';
import { DAEMON_SCRIPT, isAlive, isolatedEnv, startTestDaemon, tempDir, waitFor, waitForText } from './helpers/daemon';
import { daemonLog, daemonLogNow, helloFrame, RawConnection, record, RssSampler, sleep } from './helpers/reliability';

async function stopPid(pid: number): Promise<void> {
  process.kill(pid, 'SIGTERM');
  await waitFor(() => !isAlive(pid), 10_000, 'the daemon to stop');
}

/** Sends `bytes` on a fresh connection and waits until the daemon closes it. */
async function refused(socket: string, bytes: Buffer): Promise<RawConnection> {
  const raw = new RawConnection(socket);
  await raw.connected();
  raw.socket.write(bytes);
  await raw.closedWithin(20_000, 'a refused client');
  return raw;
}

test(
  'permissions: a socket directory owned by someone else or writable by the group is refused; ' +
    'socket and token are 0600, a loose token refused',
  async () => {
    const dir = tempDir();
    const env = isolatedEnv(dir);
    const socket = env.HOLDFAST_SOCKET!;
    const socketDir = path.dirname(socket);
    fs.mkdirSync(socketDir, { recursive: true, mode: 0o700 });
    fs.chownSync(socketDir, 65534, 65534); // nobody
    await assert.rejects(
      startDaemon({ socket, daemonScript: DAEMON_SCRIPT, env, args: ['--persistent'] }),
      /owned by uid 65534, not by you.*refusing to use it/,
    );
    fs.chownSync(socketDir, process.getuid!(), process.getgid!());
    fs.chmodSync(socketDir, 0o720);
    await assert.rejects(
      startDaemon({ socket, daemonScript: DAEMON_SCRIPT, env, args: ['--persistent'] }),
      /has mode 720.*chmod 700/,
    );
    fs.chmodSync(socketDir, 0o700);
    const ready = await startDaemon({ socket, daemonScript: DAEMON_SCRIPT, env, args: ['--persistent'] });
    assert.ok('ready' in ready);
    assert.equal(fs.statSync(socketDir).mode & 0o777, 0o700);
    assert.equal(fs.statSync(socketDir).uid, process.getuid!());
    assert.equal(fs.statSync(socket).mode & 0o777, 0o600);
    assert.equal(fs.statSync(tokenPathFor(socket)).mode & 0o777, 0o600);
    const logFile = path.join(env.XDG_STATE_HOME!, 'holdfast', 'daemon.log');
    await daemonLogNow({ env, pid: ready.pid }); // the log is written in the background
    assert.equal(fs.statSync(logFile).mode & 0o777, 0o600);
    await stopPid(ready.pid);
    // A token file others can read is not trusted: the daemon does not start with it.
    fs.chmodSync(tokenPathFor(socket), 0o644);
    await assert.rejects(
      startDaemon({ socket, daemonScript: DAEMON_SCRIPT, env, args: ['--persistent'] }),
      /token file: .* has mode 644; others could read or change the token \(fix: chmod 600 /,
    );
  },
);

test('auth: a missing, empty or wrong token is refused before any session data', async () => {
  const daemon = await startTestDaemon();
  try {
    const client = await daemon.connect();
    const { session } = await client.request('create', { argv: ['sh', '-c', 'echo SECRET-SCREEN; sleep 100'] });
    await waitForText(client, session.id, 'SECRET-SCREEN', 10_000);
    const attach = encodeJson(FrameKind.Request, {
      id: 1,
      method: 'attach',
      params: { session: session.id, channel: 1, role: 'watcher' },
    });
    const list = encodeJson(FrameKind.Request, { id: 2, method: 'list', params: {} });
    for (const [what, token] of [
      ['missing', null],
      ['empty', ''],
      ['wrong', 'f'.repeat(64)],
    ] as const) {
      const raw = await refused(daemon.socket, Buffer.concat([helloFrame(daemon.socket, token), attach, list]));
      assert.deepEqual(raw.kinds(), [FrameKind.Error], `${what} token: the daemon sent ${raw.kinds().join(',')}`);
      assert.equal(raw.errorFrame()?.code, 'auth');
      assert.equal(raw.errorFrame()?.message, 'wrong or missing token');
      assert.ok(
        !raw.frames.some((f) => f.payload.includes('SECRET-SCREEN') || f.payload.includes(session.id)),
        `${what} token: session data leaked`,
      );
    }
  } finally {
    await daemon.stop();
  }
});

test(
  'regression: before its hello a client made the daemon buffer up to 32 MiB per connection, after it 25 MiB a ' +
    'request; a frame is refused at its header: a hello over 64 KiB, any other over 8 MiB',
  async () => {
    const daemon = await startTestDaemon();
    try {
      const client = await daemon.connect();
      // A frame exactly at the cap is read (an Input for no channel: ignored); one byte more is refused.
      const atCap = new RawConnection(daemon.socket);
      await atCap.connected();
      atCap.socket.write(helloFrame(daemon.socket));
      atCap.socket.write(encodeRaw(FrameKind.Input, 999, Buffer.alloc(InputLimit.RequestBytes - 4)));
      atCap.socket.write(encodeJson(FrameKind.Request, { id: 1, method: 'list', params: {} }));
      await waitFor(() => atCap.kinds().includes(FrameKind.Response), 30_000, 'the answer after a frame at the cap');
      atCap.destroy();
      const over = Buffer.alloc(5);
      over.writeUInt32BE(InputLimit.RequestBytes + 1, 0);
      over[4] = FrameKind.Request;
      const raw = await refused(daemon.socket, Buffer.concat([helloFrame(daemon.socket), over]));
      assert.deepEqual(raw.errorFrame(), {
        code: 'limit',
        message: `a request must be at most ${InputLimit.RequestBytes} bytes`,
      });
      over[4] = FrameKind.Input;
      const input = await refused(daemon.socket, Buffer.concat([helloFrame(daemon.socket), over]));
      assert.deepEqual(input.errorFrame(), {
        code: 'protocol',
        message: `frame of ${InputLimit.RequestBytes + 1} bytes exceeds the ${InputLimit.RequestBytes}-byte limit`,
      });

      // Before the hello, no client gets the daemon to hold more than a hello's worth per connection.
      const rss = new RssSampler(daemon.pid);
      const base = rss.sample();
      const connections: RawConnection[] = [];
      for (let i = 0; i < 20; i++) {
        const c = new RawConnection(daemon.socket);
        await c.connected();
        const head = Buffer.alloc(5);
        head.writeUInt32BE(MAX_FRAME_PAYLOAD, 0);
        head[4] = FrameKind.Hello;
        c.socket.write(head);
        c.socket.write(Buffer.alloc(16 * 1024 * 1024, 0x20));
        connections.push(c);
      }
      await Promise.all(connections.map((c) => c.closedWithin(30_000, 'an oversized hello')));
      const grown = rss.stop() - base;
      // They keep writing, so the error frame may be lost in the reset; the daemon's log names it.
      const refusals =
        (await daemonLogNow(daemon)).match(/\(no hello\): protocol: the hello must be at most 65536 bytes/g) ?? [];
      assert.equal(refusals.length, 20);
      // A client that stops writing gets the error frame.
      const polite = new RawConnection(daemon.socket);
      await polite.connected();
      const head = Buffer.alloc(5);
      head.writeUInt32BE(MAX_FRAME_PAYLOAD, 0);
      head[4] = FrameKind.Hello;
      polite.socket.write(Buffer.concat([head, Buffer.alloc(100_000, 0x20)]));
      await polite.closedWithin(20_000, 'an oversized hello');
      assert.deepEqual(polite.errorFrame(), { code: 'protocol', message: 'the hello must be at most 65536 bytes' });
      record({
        item: '8',
        name: 'daemon RSS growth, 20 unauthenticated clients each sending 16 MiB of a 32 MiB hello',
        value: Math.round(grown),
        unit: 'MiB',
        bound: '< 100 MiB',
      });
      assert.ok(grown < 100, `the daemon grew by ${grown.toFixed(0)} MiB`);
      assert.ok((await client.request('list', {})).sessions);
    } finally {
      await daemon.stop();
    }
  },
);

test(
  'regression: a client that never read its answers grew the daemon; its requests now wait once 8 MiB of ' +
    'answers do, and one whose events pile up is dropped at the 256 MiB queue cap',
  async () => {
    const daemon = await startTestDaemon();
    try {
      const client = await daemon.connect();
      // Metadata is at most 64 KiB a session: 16 sessions of 64,000 bytes make a 1 MiB list.
      const ids: string[] = [];
      for (let i = 0; i < 16; i++) {
        const { session } = await client.request('create', { argv: ['sleep', '100'] });
        await client.request('update', { session: session.id, metadata: { blob: 'x'.repeat(64_000) } });
        ids.push(session.id);
      }
      const rss = new RssSampler(daemon.pid);
      const base = rss.sample();
      const ANSWERS = 200;
      const raw = new RawConnection(daemon.socket);
      await raw.connected();
      raw.socket.pause(); // never reads
      raw.socket.write(helloFrame(daemon.socket));
      // Each answer is 1 MiB (the sessions' metadata): 200 of them asked for, none read. Without the pace the
      // daemon holds them all (238 MiB more, over the bound below); 400 proved no more.
      const frames = Array.from({ length: ANSWERS }, (_, i) =>
        encodeJson(FrameKind.Request, { id: i + 1, method: 'list', params: {} }),
      );
      raw.socket.write(Buffer.concat(frames));
      await sleep(3000);
      const held = rss.sample() - base;
      // The others are served meanwhile; the non-reader is still there, its requests waiting.
      assert.equal((await client.request('status', {})).clients, 2);
      assert.ok(held < 150, `the daemon holds ${held.toFixed(0)} MiB more for a client that reads nothing`);
      // Once it reads, every answer comes.
      raw.keep = 0;
      raw.socket.resume();
      await waitFor(() => raw.answered.size === ANSWERS, 60_000, 'every answer once it reads');
      record({
        item: '8',
        name: `daemon RSS growth while a client asked for ${ANSWERS} MiB of answers and read none (for 3 s)`,
        value: Math.round(held),
        unit: 'MiB',
        bound: '< 150 MiB (was: grew to the 256 MiB cap, then dropped)',
      });
      raw.destroy();

      // Events it did not ask for one by one: a subscriber that never reads is dropped at the cap.
      const deaf = new RawConnection(daemon.socket);
      await deaf.connected();
      deaf.socket.pause();
      deaf.socket.write(helloFrame(daemon.socket));
      deaf.socket.write(encodeJson(FrameKind.Request, { id: 1, method: 'subscribe', params: {} }));
      const dropped = new RegExp(
        String.raw`limit: \d+ bytes are queued for this client, over the 268435456-byte limit: ` +
          'it does not read what it asked for',
      );
      // Each update is a 64 KB 'session' event for the subscriber: 4,200 of them are over the cap.
      for (let round = 0; round < 4200 / 16 && !dropped.test(daemonLog(daemon.env)); round++)
        await Promise.all(
          ids.map((session) =>
            client.request('update', { session, metadata: { blob: String(round % 10).repeat(64_000) } }),
          ),
        );
      await waitFor(() => dropped.test(daemonLog(daemon.env)), 60_000, 'the limit in the log');
      deaf.keep = 0;
      deaf.socket.resume(); // a paused socket never sees the close
      await deaf.closedWithin(30_000, 'a client over the queue cap');
      const peak = rss.stop();
      record({
        item: '8',
        name: 'daemon RSS peak while a subscriber never read 256 MiB of events',
        value: Math.round(peak),
        unit: 'MiB',
        bound: `< base ${Math.round(base)} MiB + 600 MiB`,
      });
      assert.ok(peak - base < 600, `the daemon grew by ${(peak - base).toFixed(0)} MiB`);
      assert.equal((await client.request('status', {})).clients, 1, 'the non-readers are gone');
    } finally {
      await daemon.stop();
    }
  },
);

test(
  'regression: a bad --max-sessions turned the session limit off; ' +
    'sessions per daemon (configurable), scrollback, channels per connection, each with a clear error',
  async () => {
    const daemon = await startTestDaemon(['--max-sessions', '3']);
    try {
      const client = await daemon.connect();
      for (let i = 0; i < 3; i++) await client.request('create', { argv: ['sleep', '100'], scrollback: 50 });
      await assert.rejects(
        client.request('create', { argv: ['sleep', '100'] }),
        (err: RequestError) =>
          err.code === 'limit' && err.message === 'this daemon already has 3 sessions, its limit (maxSessions)',
      );
      const [first] = (await client.request('list', {})).sessions;
      await client.request('remove', { session: first.id });
      await assert.rejects(
        client.request('create', { argv: ['sleep', '1'], scrollback: 200_001 }),
        (err: RequestError) => err.code === 'limit' && err.message === 'scrollback must be from 0 to 200000 lines',
      );
      // The scrollback kept is the one asked for, whatever the program prints.
      const { session } = await client.request('create', {
        argv: ['sh', '-c', 'seq 1 2000; echo SEQ-DONE; sleep 100'],
        rows: 10,
        scrollback: 50,
      });
      await waitForText(client, session.id, 'SEQ-DONE', 20_000);
      const { lines } = await client.request('read', { session: session.id, scrollback: 100_000 });
      assert.ok(lines.length <= 60, `${lines.length} lines kept for a scrollback of 50 and 10 rows`);
      // Channels: 1024 per connection.
      const many = await daemon.connect('many');
      for (let channel = 1; channel <= 1024; channel++)
        many.writeWire(
          encodeJson(FrameKind.Request, {
            id: 10_000 + channel,
            method: 'attach',
            params: { session: session.id, channel, role: 'watcher' },
          }),
        );
      await assert.rejects(
        many.request('attach', { session: session.id, channel: 1025, role: 'watcher' }),
        (err: RequestError) => err.code === 'limit' && err.message === 'at most 1024 channels per connection',
      );
    } finally {
      await daemon.stop();
    }
    // Bad limits on the command line or in the environment are refused, not silently ignored.
    const dir = tempDir();
    const env = isolatedEnv(dir);
    await assert.rejects(
      startDaemon({
        socket: env.HOLDFAST_SOCKET!,
        daemonScript: DAEMON_SCRIPT,
        env,
        args: ['--persistent', '--max-sessions', 'lots'],
      }),
      /--max-sessions must be an integer from 1 to 100000, not "lots"/,
    );
    await assert.rejects(
      startDaemon({
        socket: env.HOLDFAST_SOCKET!,
        daemonScript: DAEMON_SCRIPT,
        env: { ...env, HOLDFAST_MAX_SESSIONS: '0' },
        args: ['--persistent'],
      }),
      /HOLDFAST_MAX_SESSIONS must be an integer from 1 to 100000, not "0"/,
    );
    const ready = await startDaemon({
      socket: env.HOLDFAST_SOCKET!,
      daemonScript: DAEMON_SCRIPT,
      env: { ...env, HOLDFAST_MAX_SESSIONS: '1' },
      args: ['--persistent'],
    });
    assert.ok('ready' in ready);
    const client = await HoldfastClient.connect({ socket: env.HOLDFAST_SOCKET!, client: 't', version: 't' });
    await client.request('create', { argv: ['sleep', '100'] });
    await assert.rejects(client.request('create', { argv: ['sleep', '100'] }), /already has 1 sessions, its limit/);
    client.close();
    await stopPid(ready.pid);
  },
);
