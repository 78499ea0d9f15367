// Daemon lifetime: exits, kills, stop, on-demand exit, racing starters, endpoint ownership, bad input.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { test } from 'node:test';
import { HoldfastClient, NoDaemonError } from '../src/client/client';
import { encodeJson, FrameDecoder, FrameKind } from '../src/protocol/frame';
import { PROTOCOL_VERSION } from '../src/protocol/messages';
import { tokenPathFor } from '../src/host/paths';
import { startDaemon } from '../src/client/launch';
import { elsewhereTest } from './helpers/portablePass';
import { DAEMON_SCRIPT, isAlive, isolatedEnv, startTestDaemon, tempDir, waitFor, waitForText } from './helpers/daemon';

test('exit code and signal are recorded, the last screen stays until removal', async () => {
  const daemon = await startTestDaemon();
  try {
    const client = await daemon.connect();
    const { session: coded } = await client.request('create', { argv: ['sh', '-c', 'echo bye; exit 3'] });
    await client.request('wait', { session: coded.id, condition: { kind: 'exit' }, timeoutMs: 5000 });
    const { session: codedInfo } = await client.request('show', { session: coded.id });
    assert.equal(codedInfo.state, 'exited');
    assert.deepEqual([codedInfo.exit?.code, codedInfo.exit?.signal], [3, null]);
    assert.ok((await client.request('read', { session: coded.id })).lines.includes('bye'));

    const { session: signalled } = await client.request('create', { argv: ['sleep', '100'] });
    const { session: killed } = await client.request('kill', { session: signalled.id, signal: 'TERM' });
    assert.deepEqual([killed.exit?.code, killed.exit?.signal], [null, 'SIGTERM']);

    // A program that ignores SIGHUP is killed after the grace period.
    const { session: stubborn } = await client.request('create', {
      argv: ['sh', '-c', "trap '' HUP; echo ready; while :; do sleep 0.05; done"],
    });
    await waitForText(client, stubborn.id, 'ready', 5000);
    const start = Date.now();
    const { session: stubbornInfo } = await client.request('kill', { session: stubborn.id, graceMs: 300 });
    assert.ok(Date.now() - start >= 300);
    assert.equal(stubbornInfo.exit?.signal, 'SIGKILL');

    await client.request('remove', { session: coded.id });
    await assert.rejects(client.request('show', { session: coded.id }), /no session/);
  } finally {
    await daemon.stop();
  }
});

test(
  "regression: a kill right after create reaches the program (it raced the child's setsid, " +
    'so SIGKILL came after the grace period)',
  async () => {
    const daemon = await startTestDaemon();
    try {
      const client = await daemon.connect();
      for (let i = 0; i < 10; i++) {
        const { session } = await client.request('create', { argv: ['sleep', '100'] });
        const started = Date.now();
        const { session: killed } = await client.request('kill', {
          session: session.id,
          signal: 'TERM',
          graceMs: 10_000,
        });
        assert.deepEqual([killed.exit?.code, killed.exit?.signal], [null, 'SIGTERM'], `run ${i}`);
        assert.ok(Date.now() - started < 9_000, `run ${i}: the kill waited for the grace period`);
      }
    } finally {
      await daemon.stop();
    }
  },
);

test('stop leaves no process of any session, grandchildren and SIGHUP-ignorers included', async () => {
  const daemon = await startTestDaemon();
  const pidFiles: string[] = [];
  const client = await daemon.connect();
  for (let i = 0; i < 3; i++) {
    const file = path.join(daemon.dir, `pids-${i}`);
    pidFiles.push(file);
    const script =
      `sleep 1000 & echo $! >> ${file}; (trap '' HUP; exec sleep 1001) & echo $! >> ${file}; ` +
      `echo $$ >> ${file}; echo started; wait`;
    const { session } = await client.request('create', { argv: ['sh', '-c', script] });
    await waitForText(client, session.id, 'started', 5000);
  }
  const pids = pidFiles.flatMap((f) => fs.readFileSync(f, 'utf8').trim().split('\n').map(Number));
  assert.equal(pids.length, 9);
  assert.ok(pids.every(isAlive));
  await client.request('stop', {});
  await waitFor(() => !isAlive(daemon.pid), 10_000, 'the daemon to stop');
  const survivors = pids.filter(isAlive);
  assert.deepEqual(survivors, [], `processes survived the stop: ${survivors.join(' ')}`);
});

test('an on-demand daemon exits when its last session is removed', async () => {
  const daemon = await startTestDaemon([], '--on-demand');
  const client = await daemon.connect();
  const { session: a } = await client.request('create', { argv: ['sleep', '100'] });
  const { session: b } = await client.request('create', { argv: ['sleep', '100'] });
  await client.request('remove', { session: a.id });
  await new Promise((r) => setTimeout(r, 300));
  assert.ok(isAlive(daemon.pid), 'exited with a session left');
  await client.request('kill', { session: b.id, remove: true });
  await waitFor(() => !isAlive(daemon.pid), 10_000, 'the on-demand daemon to exit');
  await assert.rejects(HoldfastClient.connect({ socket: daemon.socket, client: 't', version: 't' }), NoDaemonError);
  assert.ok(fs.existsSync(daemon.socket), 'the canonical socket path must never be removed');
});

elsewhereTest("a session's environment is clean of the daemon's launch", async () => {
  const dir = tempDir();
  const env: NodeJS.ProcessEnv = {
    ...isolatedEnv(dir),
    NODE_OPTIONS: '--max-old-space-size=512',
    VSCODE_PID: '1234',
    KEEP_ME: 'yes',
  };
  const ready = await startDaemon({
    socket: env.HOLDFAST_SOCKET!,
    daemonScript: DAEMON_SCRIPT,
    env,
    args: ['--persistent'],
  });
  const client = await HoldfastClient.connect({ socket: env.HOLDFAST_SOCKET!, client: 't', version: 't' });
  try {
    const { session } = await client.request('create', {
      argv: ['env'],
      cols: 200,
      env: { FROM_CLIENT: 'ok', NODE_OPTIONS: '--inspect' },
    });
    await client.request('wait', { session: session.id, condition: { kind: 'exit' }, timeoutMs: 5000 });
    const lines = (await client.request('read', { session: session.id, scrollback: 1000 })).lines;
    const vars = new Map(
      lines.filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    assert.equal(vars.get('ELECTRON_RUN_AS_NODE'), undefined);
    assert.equal(vars.get('NODE_OPTIONS'), undefined);
    assert.equal(vars.get('VSCODE_PID'), undefined);
    assert.equal(vars.get('KEEP_ME'), 'yes');
    assert.equal(vars.get('FROM_CLIENT'), 'ok');
    assert.equal(vars.get('HOLDFAST_SOCKET'), env.HOLDFAST_SOCKET);
    assert.equal(vars.get('HOLDFAST_SESSION'), session.id);
    assert.equal(vars.get('TERM'), 'xterm-256color');
  } finally {
    await client.request('stop', {}).catch(() => undefined);
    await waitFor(() => !('pid' in ready) || !isAlive(ready.pid), 10_000, 'stop');
  }
});

for (const starters of [2, 20]) {
  elsewhereTest(`${starters} racing starters end with exactly one daemon, and no session is lost`, async () => {
    const dir = tempDir();
    const env = isolatedEnv(dir);
    const socket = env.HOLDFAST_SOCKET!;
    const results = await Promise.all(
      Array.from({ length: starters }, () =>
        startDaemon({ socket, daemonScript: DAEMON_SCRIPT, env, args: ['--persistent'], timeoutMs: 30_000 }),
      ),
    );
    const winners = results.filter((r) => 'ready' in r);
    assert.equal(winners.length, 1, `${winners.length} daemons reported ready`);
    const clients = await Promise.all(
      Array.from({ length: starters }, (_, i) => HoldfastClient.connect({ socket, client: `c${i}`, version: 't' })),
    );
    assert.equal(new Set(clients.map((c) => c.hello.pid)).size, 1);
    const created = await Promise.all(clients.map((c) => c.request('create', { argv: ['sleep', '100'] })));
    const { sessions } = await clients[0].request('list', {});
    assert.deepEqual(new Set(sessions.map((s) => s.id)), new Set(created.map((c) => c.session.id)));
    for (const result of results)
      if (!('ready' in result) && 'pid' in result) await waitFor(() => !isAlive(result.pid), 5000, 'a loser to exit');
    const winnerPid = (winners[0] as { pid: number }).pid;
    await clients[0].request('stop', {});
    await waitFor(() => !isAlive(winnerPid), 10_000, 'stop');
  });
}

elsewhereTest('a stale socket is replaced; a live daemon’s socket is never replaced', async () => {
  const dir = tempDir();
  const env = isolatedEnv(dir);
  const socket = env.HOLDFAST_SOCKET!;
  fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
  // A stale socket: bound, then its process vanished without cleaning up (no listener behind it).
  const stale = net.createServer().listen(socket);
  await new Promise((r) => stale.once('listening', r));
  fs.linkSync(socket, `${socket}.keep`);
  stale.close();
  fs.renameSync(`${socket}.keep`, socket);
  const first = await startDaemon({ socket, daemonScript: DAEMON_SCRIPT, env, args: ['--persistent'] });
  assert.ok('ready' in first, 'a stale socket blocked the start');
  const inode = fs.statSync(socket).ino;
  const second = await startDaemon({ socket, daemonScript: DAEMON_SCRIPT, env, args: ['--persistent'] });
  assert.ok('adopt' in second, 'a second daemon replaced a live one');
  assert.equal(fs.statSync(socket).ino, inode);
  const client = await HoldfastClient.connect({ socket, client: 't', version: 't' });
  assert.equal(client.hello.pid, (first as { pid: number }).pid);
  await client.request('stop', {});
  await waitFor(() => !isAlive((first as { pid: number }).pid), 10_000, 'stop');
  assert.equal(fs.statSync(socket).ino, inode, 'stop removed or replaced the socket path');
});

elsewhereTest('garbage, oversized and out-of-order frames close that connection only', async () => {
  const daemon = await startTestDaemon();
  try {
    const client = await daemon.connect();
    const { session } = await client.request('create', { argv: ['sh', '-c', 'while read l; do echo "echo:$l"; done'] });
    const token = fs.readFileSync(tokenPathFor(daemon.socket), 'utf8').trim();
    const hello = encodeJson(FrameKind.Hello, {
      protocol: PROTOCOL_VERSION,
      client: 'bad',
      version: 't',
      token,
      capabilities: [],
    });
    const oversized = Buffer.alloc(5);
    oversized.writeUInt32BE(0xfffffff0, 0);
    oversized[4] = FrameKind.Request;
    const cases: [string, Buffer][] = [
      ['garbage before hello', Buffer.from('GET / HTTP/1.1\r\n\r\n')],
      ['oversized frame', Buffer.concat([hello, oversized])],
      ['bad JSON', Buffer.concat([hello, Buffer.from([0, 0, 0, 3, FrameKind.Request, 0x7b, 0x7b, 0x7b])])],
      [
        'wrong token',
        encodeJson(FrameKind.Hello, {
          protocol: PROTOCOL_VERSION,
          client: 'bad',
          version: 't',
          token: 'nope',
          capabilities: [],
        }),
      ],
      ['a daemon-only kind', Buffer.concat([hello, encodeJson(FrameKind.Response, { id: 1, ok: true })])],
    ];
    for (const [what, bytes] of cases) {
      const socket = net.createConnection(daemon.socket);
      const decoder = new FrameDecoder();
      const kinds: number[] = [];
      let errorBody = '';
      socket.on('data', (chunk: Buffer) => {
        for (const f of decoder.push(chunk)) {
          kinds.push(f.kind);
          if (f.kind === FrameKind.Error) errorBody = f.payload.toString();
        }
      });
      socket.on('error', () => undefined);
      const closed = new Promise((r) => socket.once('close', r));
      socket.write(bytes);
      await closed;
      assert.ok(kinds.includes(FrameKind.Error), `${what}: no error frame (got kinds ${kinds.join(',')})`);
      assert.ok(
        !kinds.includes(FrameKind.Snapshot) && !kinds.includes(FrameKind.Output),
        `${what}: session data was sent`,
      );
      assert.match(errorBody, /"message"/);
    }
    // The daemon and the well-behaved client carry on.
    await client.request('send', { session: session.id, data: 'still here\r' });
    const { met } = await waitForText(client, session.id, '^echo:still here$', 5000);
    assert.ok(met);
    // An unknown method is answered, not fatal.
    await assert.rejects(client.request('frobnicate' as 'list', {}), /unsupported method/);
    assert.ok((await client.request('list', {})).sessions.length === 1);
  } finally {
    await daemon.stop();
  }
});

elsewhereTest('the socket directory must be private; the token file is 0600', async () => {
  const dir = tempDir();
  const env = isolatedEnv(dir);
  const socketDir = path.dirname(env.HOLDFAST_SOCKET!);
  fs.mkdirSync(socketDir, { recursive: true, mode: 0o777 });
  fs.chmodSync(socketDir, 0o777);
  await assert.rejects(
    startDaemon({ socket: env.HOLDFAST_SOCKET!, daemonScript: DAEMON_SCRIPT, env, args: ['--persistent'] }),
    /mode 777.*chmod 700/,
  );
  fs.chmodSync(socketDir, 0o700);
  const ready = await startDaemon({
    socket: env.HOLDFAST_SOCKET!,
    daemonScript: DAEMON_SCRIPT,
    env,
    args: ['--persistent'],
  });
  assert.equal(fs.statSync(tokenPathFor(env.HOLDFAST_SOCKET!)).mode & 0o777, 0o600);
  process.kill((ready as { pid: number }).pid, 'SIGTERM');
  await waitFor(() => !isAlive((ready as { pid: number }).pid), 10_000, 'stop');
});

elsewhereTest('a starter reads all its daemon wrote, even when the daemon exits before the pipe is read', async () => {
  // The regression: a losing starter writes "adopt" and exits at once; under load the exit was
  // handled before its readiness line and the start failed with "exited during startup (code 0)".
  // Here the line comes after the exit, from a child that inherited the pipe: only a launcher that
  // waits for the pipe to close reads it.
  const dir = tempDir();
  const fake = path.join(dir, 'fake-daemon.js');
  fs.writeFileSync(
    fake,
    "const { spawn } = require('node:child_process');\n" +
      'spawn(process.execPath, ["-e", "setTimeout(() => require(\'node:fs\').writeSync(3, ' +
      '\'{\\"adopt\\":true,\\"pid\\":7}\\\\n\'), 300)"], ' +
      '{ stdio: ["ignore", "ignore", "ignore", 3], detached: true });\n' +
      'process.exit(0);\n',
  );
  const started = await startDaemon({ socket: path.join(dir, 's.sock'), daemonScript: fake, env: isolatedEnv(dir) });
  assert.deepEqual(started, { adopt: true, pid: 7 });
});
