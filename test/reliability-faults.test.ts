// Reliability 5: faults. A client killed in the middle of a frame; a client that never says hello;
// the disk full while a checkpoint is written; a log the disk does not take; the daemon killed with
// SIGKILL; a program that closes its terminal but keeps running; a grandchild after kill.
// (SIGHUP-ignorers killed after the grace period and grandchildren after stop: daemon-lifetime.test.ts;
// checkpoints under SIGKILL: recovery.test.ts.)
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { test } from 'node:test';
import { HoldfastClient } from '../src/client/client';
import { startDaemon } from '../src/client/launch';
import { DAEMON_SCRIPT, isAlive, isolatedEnv, startTestDaemon, tempDir, waitFor } from './helpers/daemon';
import { daemonLog, daemonToken, RawConnection, record } from './helpers/reliability';

/** Fills the file system holding `dir` to its last byte with a file there; returns its path. */
function fillUp(dir: string): string {
  const filler = path.join(dir, 'filler');
  const fd = fs.openSync(filler, 'w');
  const chunk = Buffer.alloc(64 * 1024, 0x78);
  try {
    for (;;) if (fs.writeSync(fd, chunk) === 0) break;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    fs.closeSync(fd);
  }
  return filler;
}

function pidsIn(file: string): number[] {
  return fs.readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);
}

test('a client killed in the middle of a frame: the daemon and its other clients carry on', async () => {
  const daemon = await startTestDaemon();
  try {
    const client = await daemon.connect();
    const { session } = await client.request('create', {
      argv: ['sh', '-c', 'i=0; while :; do i=$((i+1)); echo "tick $i"; sleep 0.05; done'],
    });
    const watcher = await daemon.connect('watcher');
    let bytes = 0;
    await watcher.attach(
      { session: session.id, role: 'watcher' },
      { onSnapshot: () => undefined, onOutput: (b) => (bytes += b.length) },
    );
    // A separate process: hello, then half of a request frame, then it is SIGKILLed.
    const script = `
      const net = require('net');
      const frame = (kind, obj) => {
        const p = Buffer.from(JSON.stringify(obj));
        const h = Buffer.alloc(5);
        h.writeUInt32BE(p.length);
        h[4] = kind;
        return Buffer.concat([h, p]);
      };
      const s = net.createConnection(process.argv[1], () => {
        s.write(frame(1, { protocol: 1, client: 'doomed', version: 't', token: process.argv[2], capabilities: [] }));
        const req = frame(2, { id: 1, method: 'list', params: { pad: 'x'.repeat(1000) } });
        s.write(req.subarray(0, 600), () => process.stdout.write('HALF\\n'));
      });
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['-e', script, daemon.socket, daemonToken(daemon.socket)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (d: Buffer) => d.toString().includes('HALF') && resolve()),
    );
    await waitFor(
      async () => (await client.request('status', {})).clients === 3,
      5000,
      'the doomed client to be connected',
    );
    child.kill('SIGKILL');
    await waitFor(
      async () => (await client.request('status', {})).clients === 2,
      5000,
      'the daemon to drop the killed client',
    );
    const before = bytes;
    await waitFor(() => bytes > before + 50, 5000, 'the watcher to keep receiving');
    assert.equal((await client.request('show', { session: session.id })).session.state, 'running');
    assert.ok(isAlive(daemon.pid));
  } finally {
    await daemon.stop();
  }
});

test('a client that connects and never sends a hello is dropped after the 5 s handshake timeout', async () => {
  const daemon = await startTestDaemon();
  try {
    const raw = new RawConnection(daemon.socket);
    await raw.connected();
    const connectedAt = Date.now();
    const closedAt = await raw.closedWithin(20_000, 'a silent client');
    const after = closedAt - connectedAt;
    assert.ok(after >= 4900, `dropped after ${after} ms`);
    assert.deepEqual(raw.errorFrame(), { code: 'protocol', message: 'no hello within 5000 ms' });
    record({
      item: '5',
      name: 'silent client dropped after',
      value: after,
      unit: 'ms',
      bound: '≥ 5000 ms (timeout), closed with an error frame',
    });
  } finally {
    await daemon.stop();
  }
});

test('regression: a log the disk does not take (a FIFO nobody reads yet): served, then all logged', async () => {
  const logDir = tempDir('hf-hung-log-');
  const log = path.join(logDir, 'daemon.log');
  execFileSync('mkfifo', ['-m', '600', log]);
  // Each line was written on the main thread: opening the log for the first one, at start, never returned.
  const daemon = await startTestDaemon(['--log', log]);
  let reader: net.Socket | undefined;
  try {
    const client = await daemon.connect();
    const argv = ['sh', '-c', 'read line; echo "GOT $line"; sleep 100'];
    const { session } = await client.request('create', { argv, name: 'while-the-log-hangs' });
    await client.request('send', { session: session.id, data: 'typed\r' });
    const condition = { kind: 'text' as const, pattern: 'GOT typed' };
    assert.ok((await client.request('wait', { session: session.id, condition, timeoutMs: 10_000 })).met);
    // The disk comes back: a reader (read and write: it never sees the end when the daemon closes the file).
    let text = '';
    reader = new net.Socket({ fd: fs.openSync(log, fs.constants.O_RDWR | fs.constants.O_NONBLOCK), writable: false });
    reader.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    await daemon.stop();
    await waitFor(() => / stopped\n$/.test(text), 10_000, 'the last line');
    const lines = text.split('\n').map((line) => line.replace(/^\S+ \[\d+\] /, ''));
    const said = [
      'daemon \\S+ started',
      'session \\S+ "while-the-log-hangs" started',
      'stopping: received SIGTERM',
      'stopped$',
    ];
    let at = 0;
    for (const line of said) {
      const next = lines.findIndex((each, i) => i >= at && new RegExp(`^${line}`).test(each));
      assert.ok(next >= 0, `"${line}" logged, after the lines before it: ${text}`);
      at = next + 1;
    }
  } finally {
    reader?.destroy();
    await daemon.stop();
    fs.rmSync(logDir, { recursive: true, force: true });
  }
});

test(
  'regression: the disk full while a checkpoint is written: the failed write removes its temp file ' +
    '(it kept the disk full); the previous checkpoint stays intact, the daemon carries on',
  async () => {
    const dir = tempDir('hf-diskfull-');
    const env = isolatedEnv(dir);
    fs.mkdirSync(path.join(env.XDG_CONFIG_HOME!, 'holdfast'), { recursive: true });
    fs.writeFileSync(
      path.join(env.XDG_CONFIG_HOME!, 'holdfast', 'config.json'),
      JSON.stringify({ recovery: { screenText: true, intervalSeconds: 0.05 } }),
    );
    const recovery = path.join(env.XDG_STATE_HOME!, 'holdfast', 'recovery');
    fs.mkdirSync(recovery, { recursive: true, mode: 0o700 });
    // A real full disk: a 256 KiB tmpfs for the checkpoints only (the log stays writable).
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k,mode=0700', 'tmpfs', recovery]);
    let pid = 0;
    try {
      const ready = await startDaemon({
        socket: env.HOLDFAST_SOCKET!,
        daemonScript: DAEMON_SCRIPT,
        env,
        args: ['--persistent'],
      });
      assert.ok('ready' in ready);
      pid = ready.pid;
      const client = await HoldfastClient.connect({ socket: env.HOLDFAST_SOCKET!, client: 't', version: 't' });
      await client.request('create', { name: 'small', argv: ['sh', '-c', 'echo small; sleep 100'], cwd: dir });
      const files = () => fs.readdirSync(recovery);
      await waitFor(() => files().some((n) => n.startsWith('checkpoint-')), 10_000, 'a first checkpoint');
      const file = path.join(
        recovery,
        files().find((n) => n.startsWith('checkpoint-'))!,
      );
      // A checkpoint written (by rename: never half a file) after the session printed its line.
      const screenSaved = () =>
        (
          JSON.parse(fs.readFileSync(file, 'utf8')) as { sessions: { screen?: string }[] }
        ).sessions[0]?.screen?.includes('small') === true;
      await waitFor(screenSaved, 10_000, 'a checkpoint with the session’s screen');
      const previous = fs.readFileSync(file, 'utf8');
      assert.equal(JSON.parse(previous).sessions.length, 1);
      // ~2,000 lines of 150 characters of screen: a checkpoint that holds them does not fit in the
      // tmpfs. The session prints them only once the checkpoint that adds it (still empty) is written
      // and the disk is then filled up: a write of its first lines would fit otherwise, and the file
      // would change before the disk is full (a race seen under load).
      const { session: big } = await client.request('create', {
        name: 'big',
        argv: ['sh', '-c', 'read go; seq -f "%0.0f ' + 'y'.repeat(140) + '" 1 2000; sleep 100'],
        cols: 160,
        scrollback: 3000,
        cwd: dir,
      });
      await waitFor(
        () => JSON.parse(fs.readFileSync(file, 'utf8')).sessions.length === 2,
        10_000,
        'the checkpoint with the new, empty session',
      );
      const withEmpty = fs.readFileSync(file, 'utf8');
      const filler = fillUp(recovery);
      await client.request('send', { session: big.id, data: '\n' });
      await waitFor(
        () => /checkpoint not written: ENOSPC/.test(daemonLog(env)),
        20_000,
        'a checkpoint write to fail with ENOSPC',
      );
      await assert.rejects(
        client.request('recovery.checkpoint', {}),
        /checkpoint not written: ENOSPC: no space left on device/,
      );
      assert.equal(fs.readFileSync(file, 'utf8'), withEmpty, 'the previous checkpoint changed');
      assert.deepEqual(
        files().filter((n) => n.startsWith('.tmp-')),
        [],
        'a failed write left its temp file, keeping the disk full',
      );
      assert.ok(isAlive(pid));
      assert.equal((await client.request('list', {})).sessions.length, 2);
      // Space again, but not for the whole big screen: its write fails part way, and must remove its
      // temp file; without the big session, the next checkpoint is written.
      fs.rmSync(filler);
      await client.request('wait', {
        session: big.id,
        condition: { kind: 'text', pattern: '^2000 y' },
        timeoutMs: 10_000,
      });
      await assert.rejects(client.request('recovery.checkpoint', {}), /checkpoint not written: ENOSPC/);
      assert.deepEqual(
        files().filter((n) => n.startsWith('.tmp-')),
        [],
        'a failed write left its temp file',
      );
      await client.request('remove', { session: big.id });
      await waitFor(
        () =>
          JSON.parse(fs.readFileSync(file, 'utf8')).sessions.length === 1 && fs.readFileSync(file, 'utf8') !== previous,
        10_000,
        'a checkpoint once there is space',
      );
      client.close();
    } finally {
      if (pid && isAlive(pid)) {
        process.kill(pid, 'SIGTERM');
        await waitFor(() => !isAlive(pid), 10_000, 'the daemon to stop');
      }
      execFileSync('umount', [recovery]);
    }
  },
);

test(
  'the daemon killed with SIGKILL: its sessions get SIGHUP, nothing is left running, ' +
    'the next daemon starts cleanly',
  async () => {
    const dir = tempDir();
    const env = isolatedEnv(dir);
    const socket = env.HOLDFAST_SOCKET!;
    const first = await startDaemon({ socket, daemonScript: DAEMON_SCRIPT, env, args: ['--persistent'] });
    assert.ok('ready' in first);
    const client = await HoldfastClient.connect({ socket, client: 't', version: 't' });
    const pidFile = path.join(dir, 'pids');
    const scripts = [
      `echo $$ >> ${pidFile}; exec sleep 1000`,
      `sleep 1000 & echo $! >> ${pidFile}; echo $$ >> ${pidFile}; wait`,
      `bash -c 'echo $$ >> ${pidFile}; while :; do sleep 1; done' & echo $! >> ${pidFile}; echo $$ >> ${pidFile}; wait`,
    ];
    // Each script writes its pids (1, 2 and 3 of them) before the next session starts.
    let written = 0;
    for (const [i, script] of scripts.entries()) {
      await client.request('create', { argv: ['sh', '-c', script] });
      written += i + 1;
      await waitFor(() => fs.existsSync(pidFile) && pidsIn(pidFile).length === written, 5000, `${written} pids`);
    }
    const pids = pidsIn(pidFile);
    assert.ok(pids.every(isAlive));
    client.close();
    process.kill(first.pid, 'SIGKILL');
    const killedAt = Date.now();
    await waitFor(
      () => pids.every((p) => !isAlive(p)),
      10_000,
      `every session process to end (left: ${pids.filter(isAlive).join(' ')})`,
    );
    record({
      item: '5',
      name: 'daemon SIGKILLed: all 6 session processes (grandchildren included) gone after',
      value: Date.now() - killedAt,
      unit: 'ms',
    });
    const second = await startDaemon({ socket, daemonScript: DAEMON_SCRIPT, env, args: ['--persistent'] });
    assert.ok('ready' in second, 'the next daemon did not start cleanly');
    const again = await HoldfastClient.connect({ socket, client: 't', version: 't' });
    assert.equal(again.hello.pid, second.pid);
    assert.deepEqual((await again.request('list', {})).sessions, []);
    const { session } = await again.request('create', { argv: ['sh', '-c', 'echo alive; sleep 100'] });
    assert.ok(
      (
        await again.request('wait', {
          session: session.id,
          condition: { kind: 'text', pattern: '^alive$' },
          timeoutMs: 5000,
        })
      ).met,
    );
    await again.request('stop', {});
    await waitFor(() => !isAlive(second.pid), 10_000, 'stop');
  },
);

test(
  'a program that closes its terminal but keeps running stays a running session; ' + 'kill ends it and its grandchild',
  async () => {
    const daemon = await startTestDaemon();
    try {
      const client = await daemon.connect();
      const pidFile = path.join(daemon.dir, 'closer');
      const script =
        `sleep 1000 & echo $! >> ${pidFile}; echo $$ >> ${pidFile}; echo CLOSING; ` +
        'exec >/dev/null 2>&1 </dev/null; while :; do sleep 1; done';
      const { session } = await client.request('create', { argv: ['sh', '-c', script] });
      await client.request('wait', {
        session: session.id,
        condition: { kind: 'text', pattern: '^CLOSING$' },
        timeoutMs: 5000,
      });
      await waitFor(() => fs.existsSync(pidFile) && pidsIn(pidFile).length === 2, 5000, 'pids');
      const pids = pidsIn(pidFile);
      assert.equal(
        (await client.request('wait', { session: session.id, condition: { kind: 'exit' }, timeoutMs: 1500 })).met,
        false,
        'the session ended while its program runs',
      );
      assert.equal((await client.request('show', { session: session.id })).session.state, 'running');
      assert.ok(pids.every(isAlive));
      const { session: killed } = await client.request('kill', { session: session.id });
      assert.equal(killed.state, 'exited');
      await waitFor(
        () => pids.every((p) => !isAlive(p)),
        5000,
        `the program and its grandchild to be gone (left: ${pids.filter(isAlive).join(' ')})`,
      );

      // The same, left to stop: nothing survives it.
      fs.rmSync(pidFile);
      const { session: second } = await client.request('create', { argv: ['sh', '-c', script] });
      await client.request('wait', {
        session: second.id,
        condition: { kind: 'text', pattern: '^CLOSING$' },
        timeoutMs: 5000,
      });
      await waitFor(() => fs.existsSync(pidFile) && pidsIn(pidFile).length === 2, 5000, 'pids');
      const secondPids = pidsIn(pidFile);
      await client.request('stop', {});
      await waitFor(() => !isAlive(daemon.pid), 10_000, 'stop');
      assert.deepEqual(secondPids.filter(isAlive), [], 'processes survived the stop');
    } finally {
      await daemon.stop();
    }
  },
);
