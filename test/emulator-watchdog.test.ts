// A daemon whose emulator worker stops answering (a test bundle hangs on a marker in the output, once)
// replaces it after the watchdog's silence: the session carries on, its screen comes back, and a
// second client's `list` never waits. A daemon without its worker bundle refuses to start.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { HoldfastClient } from '../src/client/client';
import { startDaemon } from '../src/client/launch';
import { isAlive, isolatedEnv, ROOT, tempDir, waitFor } from './helpers/daemon';
import { daemonLogNow, record } from './helpers/reliability';
import { DAEMON_BUNDLES } from '../src/host/bundles';

/** The daemon's bundle in a folder of its own, with `worker` as its emulatorWorker.js. */
function daemonCopy(dir: string, worker?: string): string {
  const dist = path.join(dir, 'dist');
  fs.mkdirSync(dist);
  for (const file of DAEMON_BUNDLES.filter((f) => f !== 'emulatorWorker.js'))
    fs.copyFileSync(path.join(ROOT, 'dist', file), path.join(dist, file));
  if (worker !== undefined) fs.writeFileSync(path.join(dist, 'emulatorWorker.js'), worker);
  return path.join(dist, 'daemon.js');
}

/** Runs the real worker, but hangs for good the first time a batch holds HANG-NOW (`mark` made once). */
function hangingWorker(mark: string): string {
  return [
    "const fs = require('node:fs');",
    "const { parentPort } = require('node:worker_threads');",
    'parentPort.on("message", (batch) => {',
    "  if (!Buffer.from(batch.data).includes('HANG-NOW')) return;",
    `  try { fs.mkdirSync(${JSON.stringify(mark)}); } catch { return; }`,
    // Blocked, not spinning: the two busy loops already hold both cores.
    '  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);',
    '});',
    `require(${JSON.stringify(path.join(ROOT, 'dist', 'emulatorWorker.js'))});`,
  ].join('\n');
}

function envFor(dir: string): NodeJS.ProcessEnv {
  fs.mkdirSync(path.join(dir, 'run'), { mode: 0o700 });
  return { ...isolatedEnv(dir), NODE_PATH: path.join(ROOT, 'node_modules') };
}

/** The watchdog's silence in this daemon (10 s in a real one): what it checks holds for any. */
const SILENT_MS = 4000;

test('an emulator worker that stops answering is replaced: the session goes on, list never waits', async (t) => {
  const dir = tempDir('hf-watchdog-');
  const env: NodeJS.ProcessEnv = { ...envFor(dir), HOLDFAST_TEST_WORKER_SILENT_MS: String(SILENT_MS) };
  const socket = env.HOLDFAST_SOCKET!;
  const daemonScript = daemonCopy(dir, hangingWorker(path.join(dir, 'hung')));
  const ready = await startDaemon({ socket, daemonScript, env, args: ['--persistent'] });
  assert.ok('pid' in ready);
  const busy = [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  const clients: HoldfastClient[] = [];
  t.after(() => {
    for (const child of busy) child.kill('SIGKILL');
    for (const client of clients) client.close();
    if (isAlive(ready.pid)) process.kill(ready.pid, 'SIGKILL');
  });
  const connect = async (name: string) => {
    const client = await HoldfastClient.connect({ socket, client: name, version: 'test' });
    clients.push(client);
    return client;
  };
  const client = await connect('owner');
  const argv = [
    'sh',
    '-c',
    "echo BEFORE-''READ; read x; echo HANG-''NOW; read y; echo AFTER-''READ $y; exec sleep 600",
  ];
  const { session } = await client.request('create', { argv });
  const waitText = async (pattern: string) => {
    const condition = { kind: 'text' as const, pattern };
    const { met } = await client.request('wait', { session: session.id, condition, timeoutMs: 60_000 });
    assert.ok(met, pattern);
  };
  await waitText('BEFORE-READ');
  const lister = await connect('lister');
  let listing = true;
  let slowest = 0;
  let lists = 0;
  const listed = (async () => {
    while (listing) {
      const started = Date.now();
      await lister.request('list', {});
      slowest = Math.max(slowest, Date.now() - started);
      lists++;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  await client.request('send', { session: session.id, data: 'x\r' });
  await waitFor(() => fs.existsSync(path.join(dir, 'hung')), 20_000, 'the worker to hang');
  await waitText('HANG-NOW'); // answered by the worker that replaced the stuck one
  await client.request('send', { session: session.id, data: 'go\r' });
  await waitText('AFTER-READ go');
  listing = false;
  await listed;
  const { sessions } = await client.request('list', {});
  assert.equal(sessions[0].state, 'running');
  assert.ok(isAlive(sessions[0].pid), 'the program is alive');
  const log = await daemonLogNow({ env, pid: ready.pid });
  const stuck = /emulator worker answered nothing for (\d+) ms with work outstanding/.exec(log);
  assert.ok(stuck && Number(stuck[1]) >= SILENT_MS, log);
  record({
    item: 'workers',
    name: "an emulator worker stuck (blocked; both cores busy): slowest second client's list until replaced",
    value: `${slowest} ms over ${lists} lists (the worker replaced after ${stuck[1]} ms of silence)`,
    bound: '< 100 ms',
  });
  // At least one list every 100 ms of the silence on average (as 100 in the real daemon's 10 s).
  assert.ok(lists >= SILENT_MS / 100, `${lists} lists while the worker was stuck`);
  assert.ok(slowest < 100, `the slowest list took ${slowest} ms`);
});

test('a daemon without its emulator worker bundle refuses to start, in one line', async () => {
  const dir = tempDir('hf-no-worker-');
  const env = envFor(dir);
  const daemonScript = daemonCopy(dir);
  await assert.rejects(
    startDaemon({ socket: env.HOLDFAST_SOCKET!, daemonScript, env, args: ['--persistent'] }),
    /^Error: the daemon could not start: its emulator worker \S+emulatorWorker\.js is missing; fix: [^\n]+$/,
  );
});
