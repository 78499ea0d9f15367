// The `holdfast` CLI end to end: node dist/cli.js against a real daemon, real PTYs, real sockets.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SessionInfo } from '../src/protocol/messages';
import { cliSandbox, CliSandbox, isAlive, isOneErrorLine, waitFor } from './helpers/cli';

const NON_NEW_COMMANDS = [
  ['list'],
  ['show', 'x'],
  ['read', 'x'],
  ['send', 'x', '--text', 'a'],
  ['wait', 'x', '--for', 'exit'],
  ['attach', 'x'],
  ['attach', 'x', '--watch'],
  ['resize', 'x', '--cols', '10', '--rows', '5'],
  ['kill', 'x'],
  ['rm', 'x'],
  ['stop'],
];

describe('without a daemon', () => {
  let box: CliSandbox;
  before(() => {
    box = cliSandbox();
  });
  after(() => box.cleanup());

  test('every command but new exits 6 with one line naming the socket', async () => {
    for (const args of NON_NEW_COMMANDS) {
      const { code, stdout, stderr } = await box.run(args);
      assert.equal(code, 6, `${args.join(' ')}: ${stderr}`);
      assert.ok(isOneErrorLine(stderr), `${args.join(' ')}: ${JSON.stringify(stderr)}`);
      assert.equal(stderr, `holdfast: no daemon is listening on ${box.socket} (start one with \`holdfast new\` or \`holdfast serve\`)\n`);
      assert.equal(stdout, '');
      const json = await box.run([...args, '--json']);
      assert.equal(json.code, 6);
      assert.equal(JSON.parse(json.stdout).error.code, 'no-daemon');
    }
  });

  test('usage errors exit 2 with one line, and new starts no daemon for them', async () => {
    for (const args of [['bogus'], ['read'], ['new', '--cols', 'x'], ['new', '--cwd', '/no/such/dir'], ['new', '--env', 'novalue'], ['wait', 'x', '--for', 'soon'], ['send', 'x', '--key', 'hyper']]) {
      const { code, stdout, stderr } = await box.run(args);
      assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
      assert.ok(isOneErrorLine(stderr), stderr);
      assert.equal(stdout, '');
    }
    assert.equal((await box.run(['list'])).code, 6, 'no daemon was started');
  });

  test('--socket wins over HOLDFAST_SOCKET', async () => {
    const other = `${box.dir}/other.sock`;
    const { code, stderr } = await box.run(['list', '--socket', other]);
    assert.equal(code, 6);
    assert.match(stderr, new RegExp(`listening on ${other} `));
  });

  test('doctor fails (exit 1) with a fix for the missing daemon', async () => {
    const { code, stdout } = await box.run(['doctor', '--json']);
    assert.equal(code, 1);
    const report = JSON.parse(stdout);
    assert.equal(report.ok, false);
    const daemon = report.checks.find((c: { name: string }) => c.name === 'daemon');
    assert.equal(daemon.ok, false);
    assert.match(daemon.fix, /holdfast new|holdfast serve/);
    for (const check of report.checks) if (!check.ok) assert.equal(typeof check.fix, 'string', check.name);
    assert.equal(report.checks.find((c: { name: string }) => c.name === 'node-pty').ok, true);
  });

  test('version works without a daemon', async () => {
    const { code, stdout } = await box.run(['version', '--json']);
    assert.equal(code, 0);
    assert.equal(JSON.parse(stdout).daemon, null);
  });
});

describe('with an on-demand daemon started by new', () => {
  let box: CliSandbox;
  let shell: string;
  before(async () => {
    box = cliSandbox();
  });
  after(() => box.cleanup());

  const show = async (ref: string): Promise<SessionInfo> => JSON.parse(await box.ok(['show', ref, '--json']));

  test('new starts an on-demand daemon and prints the id', async () => {
    const { code, stdout, stderr } = await box.run(['new', '--name', 'shell', '--cols', '100', '--rows', '30', '--env', 'PS1=ready> ', '--env', 'HF_MARK=marked', '--', 'bash', '--norc', '--noprofile']);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^[0-9a-f]+\n$/);
    shell = stdout.trim();
    const version = JSON.parse(await box.ok(['version', '--json']));
    assert.equal(version.daemon.startMode, 'on-demand');
    assert.ok(isAlive(version.daemon.pid));
  });

  test('list and show, plain and --json', async () => {
    const plain = await box.ok(['list']);
    assert.match(plain, /^ID +NAME +PID +STATE +SIZE/);
    assert.match(plain, new RegExp(`^${shell} +shell +\\d+ +running +100x30`, 'm'));
    const { sessions } = JSON.parse(await box.ok(['list', '--json'])) as { sessions: SessionInfo[] };
    assert.deepEqual(sessions.map((s) => s.id), [shell]);
    const byName = await show('shell');
    assert.equal(byName.id, shell);
    assert.equal(byName.state, 'running');
    assert.equal(byName.cwd, box.dir, 'the session starts in the directory holdfast new ran in');
    assert.deepEqual([byName.cols, byName.rows], [100, 30]);
    const details = await box.ok(['show', shell]);
    for (const key of ['id', 'name', 'pid', 'state', 'cwd', 'size', 'title', 'clients', 'created']) assert.match(details, new RegExp(`^${key}:`, 'm'));
  });

  test('send text and keys, wait for text, read the screen', async () => {
    await box.ok(['wait', shell, '--for', 'text:^ready> ', '--timeout-ms', '10000']);
    await box.ok(['send', shell, '--text', 'echo "$HF_MARK-$((6*7))"', '--enter']);
    const waited = await box.run(['wait', 'shell', '--for', 'text:^marked-42$', '--timeout-ms', '10000', '--json']);
    assert.equal(waited.code, 0, waited.stderr);
    assert.equal(JSON.parse(waited.stdout).met, true);
    const screen = await box.ok(['read', shell]);
    assert.match(screen, /^marked-42$/m);
    assert.equal(screen.split('\n').length - 1, 30, 'one line per row');
    const json = JSON.parse(await box.ok(['read', shell, '--json']));
    assert.ok(json.lines.includes('marked-42'));
    assert.equal(typeof json.cursor.y, 'number');
    // Keys in order after the text: a typo, erased with backspace, then ctrl-u and a new line.
    await box.ok(['send', shell, '--text', 'echo typoX', '--key', 'backspace', '--key', 'Y', '--enter']);
    await box.ok(['wait', shell, '--for', 'text:^typoY$', '--timeout-ms', '10000']);
    await box.ok(['send', shell, '--text', 'garbage', '--key', 'ctrl-u', '--key', 'ctrl-c']);
    const sent = JSON.parse(await box.ok(['send', shell, '--text', 'echo after-ctrl-c', '--enter', '--json']));
    assert.equal(sent.sent, 'echo after-ctrl-c\r'.length);
    await box.ok(['wait', shell, '--for', 'text:^after-ctrl-c$', '--timeout-ms', '10000']);
  });

  test('wait idle, and a wait that times out exits 124', async () => {
    const idle = await box.run(['wait', shell, '--for', 'idle:200', '--timeout-ms', '10000']);
    assert.equal(idle.code, 0, idle.stderr);
    const started = Date.now();
    const late = await box.run(['wait', shell, '--for', 'text:never-printed', '--timeout-ms', '400']);
    assert.equal(late.code, 124);
    assert.ok(Date.now() - started >= 400);
    assert.ok(isOneErrorLine(late.stderr), late.stderr);
    const lateJson = await box.run(['wait', shell, '--for', 'text:never-printed', '--timeout-ms', '100', '--json']);
    assert.equal(lateJson.code, 124);
    assert.equal(JSON.parse(lateJson.stdout).met, false);
  });

  test('read --scrollback adds the lines above the screen', async () => {
    const id = (await box.ok(['new', '--rows', '10', '--', 'sh', '-c', 'seq 1 100; sleep 100'])).trim();
    await box.ok(['wait', id, '--for', 'text:^100$', '--timeout-ms', '10000']);
    const screen = (await box.ok(['read', id])).split('\n');
    assert.equal(screen.length - 1, 10);
    assert.ok(!screen.includes('60'));
    const withHistory = JSON.parse(await box.ok(['read', id, '--scrollback', '50', '--json'])).lines as string[];
    assert.ok(withHistory.includes('60') && withHistory.includes('100'), withHistory.join('|'));
    assert.ok(!withHistory.includes('30'));
    await box.ok(['rm', id]);
  });

  test('resize', async () => {
    const resized = JSON.parse(await box.ok(['resize', shell, '--cols', '90', '--rows', '20', '--json']));
    assert.deepEqual([resized.cols, resized.rows], [90, 20]);
    await box.ok(['send', shell, '--text', 'stty size', '--enter']);
    await box.ok(['wait', shell, '--for', 'text:^20 90$', '--timeout-ms', '10000']);
  });

  test('unknown sessions exit 4, ambiguous names exit 2', async () => {
    for (const args of [['show', 'nope'], ['read', 'nope'], ['send', 'nope', '--text', 'x'], ['wait', 'nope', '--for', 'exit'], ['kill', 'nope'], ['rm', 'nope'], ['resize', 'nope', '--cols', '10', '--rows', '10'], ['attach', 'nope']]) {
      const { code, stderr, stdout } = await box.run(args);
      assert.equal(code, 4, `${args.join(' ')}: ${stderr}`);
      assert.ok(isOneErrorLine(stderr), stderr);
      assert.equal(stdout, '');
      const json = await box.run([...args, '--json']);
      assert.equal(JSON.parse(json.stdout).error.code, 'no-session');
    }
    const a = (await box.ok(['new', '--name', 'twin', '--', 'sleep', '60'])).trim();
    const b = (await box.ok(['new', '--name', 'twin', '--', 'sleep', '60'])).trim();
    const ambiguous = await box.run(['show', 'twin']);
    assert.equal(ambiguous.code, 2);
    assert.ok(isOneErrorLine(ambiguous.stderr));
    assert.ok(ambiguous.stderr.includes(a) && ambiguous.stderr.includes(b), ambiguous.stderr);
    await box.ok(['rm', a]);
    await box.ok(['rm', b]);
  });

  test('exit codes and signals are recorded', async () => {
    const code3 = (await box.ok(['new', '--', 'sh', '-c', 'exit 3'])).trim();
    const waited = await box.run(['wait', code3, '--for', 'exit', '--timeout-ms', '10000']);
    assert.equal(waited.code, 0, waited.stderr);
    assert.equal(waited.stdout, 'exited (3)\n');
    const info = await show(code3);
    assert.equal(info.state, 'exited');
    assert.deepEqual([info.exit?.code, info.exit?.signal], [3, null]);

    const sleeper = (await box.ok(['new', '--', 'sleep', '1000'])).trim();
    const killed = JSON.parse(await box.ok(['kill', sleeper, '--signal', 'TERM', '--json']));
    assert.equal(killed.state, 'exited');
    assert.equal(killed.exit.signal, 'SIGTERM');
    assert.equal((await show(sleeper)).exit?.signal, 'SIGTERM');

    // A program that ignores the signal gets SIGKILL after the grace period.
    const stubborn = (await box.ok(['new', '--', 'sh', '-c', 'trap "" INT; echo armed; sleep 1000'])).trim();
    await box.ok(['wait', stubborn, '--for', 'text:armed', '--timeout-ms', '10000']);
    const plain = await box.ok(['kill', stubborn, '--signal', 'INT', '--grace-ms', '200', '--remove']);
    assert.match(plain, /exited \(SIGKILL\), removed/);
    assert.equal((await box.run(['show', stubborn])).code, 4);

    const exitedText = await box.run(['send', code3, '--text', 'x']);
    assert.equal(exitedText.code, 1, 'sending to an exited session fails');
    await box.ok(['rm', code3]);
    await box.ok(['rm', sleeper]);
  });

  test('rm removes; the on-demand daemon exits after the last rm', async () => {
    const { daemon } = JSON.parse(await box.ok(['version', '--json']));
    const removed = JSON.parse(await box.ok(['rm', 'shell', '--json']));
    assert.deepEqual(removed, { removed: shell });
    await waitFor(() => !isAlive(daemon.pid), 10_000, 'the on-demand daemon to exit');
    assert.equal((await box.run(['list'])).code, 6);
  });
});

describe('with a persistent daemon (serve)', () => {
  let box: CliSandbox;
  let serve: import('node:child_process').ChildProcess;
  let serveExit: Promise<number | null>;
  before(async () => {
    box = cliSandbox();
    const { spawn } = await import('node:child_process');
    const { CLI_SCRIPT } = await import('./helpers/cli');
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
    assert.deepEqual(report.checks.map((c: { name: string }) => c.name), ['socket directory', 'token file', 'daemon', 'node-pty', 'log directory']);
    assert.match(report.checks[2].detail, new RegExp(`pid ${serve.pid}.*persistent`));
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
