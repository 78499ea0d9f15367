// `holdfast attach` driven through a real terminal: the CLI runs inside a node-pty the test types into.
import assert from 'node:assert/strict';
import * as pty from 'node-pty';
import { after, before, test } from 'node:test';
import { SessionInfo } from '../src/protocol/messages';
import { CLI_SCRIPT, cliSandbox, CliSandbox, waitFor } from './helpers/cli';

let box: CliSandbox;
before(() => {
  box = cliSandbox();
});
after(() => box.cleanup());

/** Generous: under a loaded CI machine each step (a node start, a fork) can take seconds. */
const STEP_TIMEOUT_MS = 30_000;

/** A terminal running `holdfast attach ...`, then printing its exit code and `stty -a`. */
class AttachTerminal {
  readonly term: pty.IPty;
  output = '';

  constructor(args: string[], cols = 100, rows = 30) {
    const script = `node "$0" attach "$@"; echo "[rc=$?]"; stty -a; echo "[end]"`;
    this.term = pty.spawn('/bin/sh', ['-c', script, CLI_SCRIPT, ...args], { cols, rows, cwd: box.dir, env: { ...box.env, TERM: 'xterm-256color' } as Record<string, string> });
    this.term.onData((data) => (this.output += data));
  }

  async expect(pattern: RegExp | string, what: string, from = 0): Promise<void> {
    const found = () => (typeof pattern === 'string' ? this.output.includes(pattern, from) : pattern.test(this.output.slice(from)));
    await waitFor(found, STEP_TIMEOUT_MS, `${what}; the terminal showed: ${JSON.stringify(this.output.slice(-600))}`);
  }

  /** Waits for the attach to end and returns its exit code and what came after. */
  async finished(): Promise<{ rc: number; after: string }> {
    try {
      await this.expect('[end]', 'attach to end');
    } catch (err) {
      const sessions = await box.run(['list', '--json']);
      const log = await import('node:fs').then((fs) => fs.readFileSync(`${box.env.XDG_STATE_HOME}/holdfast/daemon.log`, 'utf8').split('\n').slice(-15).join('\n')).catch(() => '');
      throw new Error(`${(err as Error).message}\nsessions: ${sessions.stdout}\ndaemon log:\n${log}`);
    }
    const rc = Number(/\[rc=(\d+)\]/.exec(this.output)![1]);
    return { rc, after: this.output.slice(this.output.lastIndexOf('[rc=')) };
  }
}

const show = async (ref: string): Promise<SessionInfo> => JSON.parse(await box.ok(['show', ref, '--json']));

function assertCookedTerminal(sttyOutput: string): void {
  assert.match(sttyOutput, /(^|[\s;])icanon\b/, 'canonical mode is back');
  assert.match(sttyOutput, /(^|[\s;])echo\b/, 'echo is back');
  assert.doesNotMatch(sttyOutput, /-icanon|(^|\s)-echo\b/);
}

test('attach as owner: snapshot, typing, our size, SIGWINCH, ctrl-\\ detaches and restores the terminal', async () => {
  await box.ok(['new', '--name', 'owned', '--cols', '80', '--rows', '24', '--env', 'PS1=owned$ ', '--', 'bash', '--norc', '--noprofile']);
  await box.ok(['send', 'owned', '--text', 'echo before-attach', '--enter']);
  await box.ok(['wait', 'owned', '--for', 'text:^before-attach$', '--timeout-ms', '10000']);
  const t = new AttachTerminal(['owned']);
  await t.expect('before-attach', 'the snapshot');
  await waitFor(async () => {
    const s = await show('owned');
    return s.cols === 100 && s.rows === 30 && s.clients.owners === 1;
  }, STEP_TIMEOUT_MS, 'the owner to give the session its size');

  const mark = t.output.length;
  t.term.write('echo typed-$((40+2))\r');
  await t.expect('typed-42', 'typed input echoed through the session', mark);
  await box.ok(['wait', 'owned', '--for', 'text:^typed-42$', '--timeout-ms', '10000']);

  t.term.resize(110, 33);
  await waitFor(async () => {
    const s = await show('owned');
    return s.cols === 110 && s.rows === 33;
  }, STEP_TIMEOUT_MS, 'SIGWINCH to resize the session');

  t.term.write('\x1c');
  const { rc, after } = await t.finished();
  assert.equal(rc, 0);
  assert.match(t.output, /holdfast: detached from owned/);
  assertCookedTerminal(after);
  assert.ok(t.output.includes('\x1b[?25h') && t.output.includes('\x1b[?2004l'), 'the reset string was written');
  const s = await show('owned');
  assert.equal(s.state, 'running', 'detaching never kills');
  assert.deepEqual(s.clients, { owners: 0, watchers: 0 });
  assert.deepEqual([s.cols, s.rows], [110, 33], 'the owner\'s size stays after it leaves');
});

test('keys typed while attach is still starting are not lost', async () => {
  await box.ok(['new', '--name', 'eager', '--env', 'PS1=eager$ ', '--', 'bash', '--norc', '--noprofile']);
  await box.ok(['wait', 'eager', '--for', 'text:eager\\$', '--timeout-ms', '10000']);
  const t = new AttachTerminal(['eager']);
  t.term.write('echo early-$((1+1))\r');
  await box.ok(['wait', 'eager', '--for', 'text:^early-2$', '--timeout-ms', String(STEP_TIMEOUT_MS)]);
  t.term.write('\x1c');
  assert.equal((await t.finished()).rc, 0);
});

test('attach --watch never types and never resizes; it sees the stream and detaches', async () => {
  await box.ok(['new', '--name', 'watched', '--cols', '80', '--rows', '24', '--env', 'PS1=watched$ ', '--', 'bash', '--norc', '--noprofile']);
  await box.ok(['wait', 'watched', '--for', 'text:watched\\$', '--timeout-ms', '10000']);
  const t = new AttachTerminal(['watched', '--watch'], 120, 40);
  await t.expect('watched$', 'the snapshot');
  await waitFor(async () => (await show('watched')).clients.watchers === 1, STEP_TIMEOUT_MS, 'the watcher to attach');

  t.term.write('echo from-watcher\r');
  t.term.resize(130, 45);
  await box.ok(['send', 'watched', '--text', 'echo via-send', '--enter']);
  await t.expect(/^via-send\r?$/m, 'output reaching the watcher');
  const screen = await box.ok(['read', 'watched']);
  assert.doesNotMatch(screen, /from-watcher/);
  const s = await show('watched');
  assert.deepEqual([s.cols, s.rows], [80, 24]);

  t.term.write('\x1c');
  const { rc, after } = await t.finished();
  assert.equal(rc, 0);
  assertCookedTerminal(after);
  assert.deepEqual((await show('watched')).clients, { owners: 0, watchers: 0 });
});

test('a new owner takes input over: the previous attach says so and exits', async () => {
  await box.ok(['new', '--name', 'contested', '--env', 'PS1=contested$ ', '--', 'bash', '--norc', '--noprofile']);
  const first = new AttachTerminal(['contested']);
  await first.expect('contested$', 'the first snapshot');
  await waitFor(async () => (await show('contested')).clients.owners === 1, STEP_TIMEOUT_MS, 'the first owner');
  const second = new AttachTerminal(['contested'], 90, 25);
  await second.expect('contested$', 'the second snapshot');
  const { rc, after } = await first.finished();
  assert.equal(rc, 0);
  assert.match(first.output, /holdfast: input was taken over \(another client attached as input owner\); detached from contested/);
  assertCookedTerminal(after);
  const mark = second.output.length;
  second.term.write('echo second-owner\r');
  await second.expect('second-owner', 'the new owner typing', mark);
  second.term.write('\x1c');
  assert.equal((await second.finished()).rc, 0);
});

test('when the program exits, attach reports it; alternate screen and modes are reset', async () => {
  const script = 'printf "\\033[?1049h\\033[?1h\\033[?2004h\\033[?25lIN-ALT-SCREEN"; read line; exit 7';
  await box.ok(['new', '--name', 'ender', '--', 'sh', '-c', script]);
  await box.ok(['wait', 'ender', '--for', 'text:IN-ALT-SCREEN', '--timeout-ms', '10000']);
  const t = new AttachTerminal(['ender']);
  await t.expect('IN-ALT-SCREEN', 'the snapshot of the alternate screen');
  const mark = t.output.length;
  t.term.write('\r');
  const { rc, after } = await t.finished();
  assert.equal(rc, 0);
  assert.match(t.output, /holdfast: session ender \([0-9a-f]+\) exited \(7\)/);
  const restore = t.output.slice(mark);
  assert.ok(restore.includes('\x1b[?1049l'), 'left the alternate screen');
  assert.ok(restore.includes('\x1b[?1l') && restore.includes('\x1b[?25h') && restore.includes('\x1b[?2004l'));
  assertCookedTerminal(after);
  assert.equal((await show('ender')).exit?.code, 7);
});

test('a custom detach key', async () => {
  await box.ok(['new', '--name', 'custom', '--', 'sh', '-c', 'echo custom-ready; sleep 100']);
  const t = new AttachTerminal(['custom', '--detach-key', 'ctrl-b']);
  await t.expect('custom-ready', 'the snapshot');
  t.term.write('\x02');
  const { rc } = await t.finished();
  assert.equal(rc, 0);
  assert.match(t.output, /detached from custom/);
});

test('attaching to a session that already exited shows its last screen and returns', async () => {
  const id = (await box.ok(['new', '--', 'sh', '-c', 'echo last-words; exit 5'])).trim();
  await box.ok(['wait', id, '--for', 'exit', '--timeout-ms', '10000']);
  const t = new AttachTerminal([id, '--watch']);
  const { rc } = await t.finished();
  assert.equal(rc, 0);
  assert.match(t.output, /last-words/);
  assert.match(t.output, /holdfast: session sh-\d+ \([0-9a-f]+\) exited \(5\)/);
});

test('a shell inside a session cannot attach that session to itself', async () => {
  const id = (await box.ok(['new', '--', 'sleep', '100'])).trim();
  const { code, stderr } = await box.run(['attach', id], { env: { ...box.env, HOLDFAST_SESSION: id } });
  assert.equal(code, 2);
  assert.match(stderr, /to itself/);
});

test('holdfast stop while attached: attach says so, exits 0 and restores the terminal', async () => {
  await box.ok(['new', '--name', 'last', '--', 'sh', '-c', 'echo last-ready; sleep 100']);
  const t = new AttachTerminal(['last']);
  await t.expect('last-ready', 'the snapshot');
  await box.ok(['stop']);
  const { rc, after } = await t.finished();
  assert.equal(rc, 0);
  assert.match(t.output, /holdfast: the daemon is stopping/);
  assertCookedTerminal(after);
});
