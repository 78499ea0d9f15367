// `holdfast serve`: a persistent daemon in the foreground; doctor against it; stop.
import assert from 'node:assert/strict';
import { spawn, ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { CLI_SCRIPT, cliSandbox, CliSandbox, waitFor } from './helpers/cli';

describe('with a persistent daemon (serve)', () => {
  let box: CliSandbox;
  let serve: ChildProcess;
  let serveExit: Promise<number | null>;
  before(async () => {
    box = cliSandbox();
    serve = spawn(process.execPath, [CLI_SCRIPT, 'serve'], { env: box.env, stdio: ['ignore', 'pipe', 'pipe'] });
    serveExit = new Promise((resolve) => serve.on('exit', (code) => resolve(code)));
    await waitFor(async () => (await box.run(['list'])).code === 0, 10_000, 'serve to listen');
  });
  after(async () => {
    serve.kill('SIGKILL');
    await box.cleanup();
  });

  test('serve runs in the foreground and survives its last session', async () => {
    const version = JSON.parse(await box.ok(['version', '--json']));
    assert.equal(version.daemon.startMode, 'persistent');
    assert.equal(version.daemon.pid, serve.pid);
    const id = (await box.ok(['new', '--', 'sleep', '100'])).trim();
    await box.ok(['rm', id]);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await box.run(['list'])).code, 0);
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
    assert.match(report.checks[3].detail, new RegExp(`pid ${serve.pid}.*persistent`));
    const plain = await box.run(['doctor']);
    assert.equal(plain.code, 0);
    assert.match(plain.stdout, /^ok +daemon: /m);
  });

  test('stop ends serve and returns once the daemon is gone', async () => {
    await box.ok(['new', '--', 'sleep', '100']);
    const stopped = JSON.parse(await box.ok(['stop', '--json']));
    assert.equal(stopped.pid, serve.pid);
    assert.equal(await serveExit, 0);
    assert.equal((await box.run(['list'])).code, 6);
  });
});
