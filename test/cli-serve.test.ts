// `holdfast serve`: a persistent daemon in the foreground (dist/daemon.js, its child); doctor against it; stop.
// And doctor against a daemon whose status fails.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { checkDaemon } from '../src/cli/doctor';
import { CLI_SCRIPT, cliSandbox, type CliSandbox, isAlive, waitFor } from './helpers/cli';
import { startTestDaemon } from './helpers/daemon';
import { SocketProxy } from './helpers/socketProxy';

describe('with a persistent daemon (serve)', () => {
  let box: CliSandbox;
  let serve: ChildProcess;
  let serveExit: Promise<number | null>;
  /** The daemon serve runs: its child. */
  let daemonPid: number;
  before(async () => {
    box = cliSandbox();
    serve = spawn(process.execPath, [CLI_SCRIPT, 'serve'], { env: box.env, stdio: ['ignore', 'pipe', 'pipe'] });
    serveExit = new Promise((resolve) => serve.on('exit', (code) => resolve(code)));
    await waitFor(async () => (await box.run(['list'])).code === 0, 10_000, 'serve to listen');
    daemonPid = JSON.parse(await box.ok(['version', '--json'])).daemon.pid;
  });
  after(async () => {
    serve.kill('SIGKILL');
    await box.cleanup();
  });

  test('serve runs in the foreground and survives its last session', async () => {
    const version = JSON.parse(await box.ok(['version', '--json']));
    assert.equal(version.daemon.startMode, 'persistent');
    assert.equal(version.daemon.pid, daemonPid);
    const id = (await box.ok(['new', '--', 'sleep', '100'])).trim();
    await box.ok(['rm', id]);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await box.run(['list'])).code, 0);
  });

  test("serve's daemon is its child, started as every daemon is (V8 flags, dist/daemon.js)", () => {
    const stat = fs.readFileSync(`/proc/${daemonPid}/stat`, 'latin1');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    assert.equal(ppid, serve.pid);
    const argv = fs.readFileSync(`/proc/${daemonPid}/cmdline`, 'utf8').split('\0');
    assert.ok(argv.includes('--no-memory-reducer'), argv.join(' '));
    assert.ok(argv.includes('--expose-gc'), argv.join(' '));
    assert.ok(
      argv.some((a) => a.endsWith('daemon.js')),
      argv.join(' '),
    );
    assert.ok(argv.includes('--persistent'), argv.join(' '));
  });

  test('a second serve refuses while one listens', async () => {
    const second = await box.run(['serve']);
    assert.equal(second.code, 1);
    assert.match(second.stderr, /already listens/);
  });

  test('doctor passes against a healthy daemon', async () => {
    const { code, stdout } = await box.run(['doctor', '--json']);
    const report = JSON.parse(stdout);
    assert.equal(code, 0, stdout);
    assert.equal(report.ok, true);
    assert.deepEqual(
      report.checks.map((c: { name: string }) => c.name),
      ['socket directory', 'socket', 'token file', 'daemon', 'node-pty', 'log directory', 'checkpoints'],
    );
    assert.match(report.checks[3].detail, new RegExp(`pid ${daemonPid}.*persistent`));
    const plain = await box.run(['doctor']);
    assert.equal(plain.code, 0);
    assert.match(plain.stdout, /^ok +daemon: /m);
  });

  test('stop ends serve and returns once the daemon is gone', async () => {
    await box.ok(['new', '--', 'sleep', '100']);
    const stopped = JSON.parse(await box.ok(['stop', '--json']));
    assert.equal(stopped.pid, daemonPid);
    assert.equal(await serveExit, 0);
    assert.equal((await box.run(['list'])).code, 6);
  });
});

describe("serve passes signals on to its daemon and ends with the daemon's exit", () => {
  /** `holdfast serve` in a fresh sandbox, once it listens: its process, its exit code and its daemon's pid. */
  async function startServe(box: CliSandbox) {
    const serve = spawn(process.execPath, [CLI_SCRIPT, 'serve'], { env: box.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const exit = new Promise<number | null>((resolve) => serve.on('exit', (code) => resolve(code)));
    await waitFor(async () => (await box.run(['list'])).code === 0, 10_000, 'serve to listen');
    const pid: number = JSON.parse(await box.ok(['version', '--json'])).daemon.pid;
    return { serve, exit, pid };
  }

  test('SIGTERM to serve stops the daemon and its sessions; serve exits 0', async () => {
    const box = cliSandbox();
    try {
      const { serve, exit, pid } = await startServe(box);
      const id = (await box.ok(['new', '--', 'sleep', '100'])).trim();
      const program = JSON.parse(await box.ok(['show', id, '--json'])).pid as number;
      serve.kill('SIGTERM');
      assert.equal(await exit, 0);
      assert.equal(isAlive(pid), false);
      assert.equal(isAlive(program), false);
    } finally {
      await box.cleanup();
    }
  });

  test('a daemon killed by SIGKILL: serve exits 128 + 9', async () => {
    const box = cliSandbox();
    try {
      const { exit, pid } = await startServe(box);
      process.kill(pid, 'SIGKILL');
      assert.equal(await exit, 137);
    } finally {
      await box.cleanup();
    }
  });
});

test('doctor: a daemon that answers its hello, then fails status, fails the check (not an older one)', async () => {
  const daemon = await startTestDaemon();
  const proxy = await SocketProxy.start(daemon.socket, daemon.dir);
  try {
    proxy.holdAnswerTo('"status"');
    const asked = proxy.sent('"status"');
    const checking = checkDaemon(proxy.socket);
    await asked;
    proxy.drop(); // the connection goes while status is asked
    const { check } = await checking;
    assert.equal(check.ok, false, JSON.stringify(check));
    assert.match(check.detail, new RegExp(`^pid ${daemon.pid} answered the hello, but status failed: `));
    assert.ok(check.fix);
  } finally {
    await proxy.close();
    await daemon.stop();
    fs.rmSync(daemon.dir, { recursive: true, force: true });
  }
});
