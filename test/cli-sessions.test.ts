// The `holdfast` CLI end to end on an on-demand daemon that `new` starts: create, list, show, send,
// read, wait, resize, rm; the daemon goes away with its last session. Real PTYs, real sockets.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SessionInfo } from '../src/protocol/messages';
import { cliSandbox, type CliSandbox, isAlive, isOneErrorLine, waitFor } from './helpers/cli';

describe('with an on-demand daemon started by new', () => {
  let box: CliSandbox;
  let shell: string;
  before(async () => {
    box = cliSandbox();
  });
  after(() => box.cleanup());

  const show = async (ref: string): Promise<SessionInfo> => JSON.parse(await box.ok(['show', ref, '--json']));

  test('new starts an on-demand daemon and prints the id', async () => {
    const { code, stdout, stderr } = await box.run([
      'new',
      '--name',
      'shell',
      '--cols',
      '100',
      '--rows',
      '30',
      '--env',
      'PS1=ready> ',
      '--env',
      'HF_MARK=marked',
      '--',
      'bash',
      '--norc',
      '--noprofile',
    ]);
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
    // A live session's STATE is its attention: a shell at its prompt is idle once quiet.
    assert.match(plain, new RegExp(`^${shell} +shell +\\d+ +(running|idle) +100x30`, 'm'));
    const { sessions } = JSON.parse(await box.ok(['list', '--json'])) as { sessions: SessionInfo[] };
    assert.deepEqual(
      sessions.map((s) => s.id),
      [shell],
    );
    const byName = await show('shell');
    assert.equal(byName.id, shell);
    assert.equal(byName.state, 'running');
    assert.equal(byName.cwd, box.dir, 'the session starts in the directory holdfast new ran in');
    assert.deepEqual([byName.cols, byName.rows], [100, 30]);
    const details = await box.ok(['show', shell]);
    for (const key of ['id', 'name', 'pid', 'state', 'cwd', 'size', 'title', 'clients', 'created'])
      assert.match(details, new RegExp(`^${key}:`, 'm'));
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

  test('rm removes; the on-demand daemon exits after the last rm', async () => {
    const { daemon } = JSON.parse(await box.ok(['version', '--json']));
    const removed = JSON.parse(await box.ok(['rm', 'shell', '--json']));
    assert.deepEqual(removed, { removed: shell });
    await waitFor(() => !isAlive(daemon.pid), 10_000, 'the on-demand daemon to exit');
    assert.equal((await box.run(['list'])).code, 6);
  });
});
