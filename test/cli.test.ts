// The `holdfast` CLI with no daemon listening: exit 6 everywhere but new, usage errors, doctor, version.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cliSandbox, type CliSandbox, isOneErrorLine } from './helpers/cli';

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
    // In parallel: each is a node start, and a loaded machine makes them slow one by one.
    await Promise.all(
      NON_NEW_COMMANDS.map(async (args) => {
        const { code, stdout, stderr } = await box.run(args);
        assert.equal(code, 6, `${args.join(' ')}: ${stderr}`);
        assert.ok(isOneErrorLine(stderr), `${args.join(' ')}: ${JSON.stringify(stderr)}`);
        assert.equal(
          stderr,
          `holdfast: no daemon is listening on ${box.socket} (start one with \`holdfast new\` or \`holdfast serve\`)\n`,
        );
        assert.equal(stdout, '');
      }),
    );
    // --json: the same error as a document on stdout (a few commands stand for all: one code path).
    await Promise.all(
      [['list'], ['read', 'x'], ['attach', 'x']].map(async (args) => {
        const json = await box.run([...args, '--json']);
        assert.equal(json.code, 6);
        assert.equal(JSON.parse(json.stdout).error.code, 'no-daemon');
      }),
    );
  });

  test('usage errors exit 2 with one line, and new starts no daemon for them', async () => {
    const cases = [
      ['bogus'],
      ['read'],
      ['new', '--cols', 'x'],
      ['new', '--cwd', '/no/such/dir'],
      ['new', '--env', 'novalue'],
      ['wait', 'x', '--for', 'soon'],
      ['send', 'x', '--key', 'hyper'],
    ];
    await Promise.all(
      cases.map(async (args) => {
        const { code, stdout, stderr } = await box.run(args);
        assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
        assert.ok(isOneErrorLine(stderr), stderr);
        assert.equal(stdout, '');
      }),
    );
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
