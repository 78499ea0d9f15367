// `holdfast attach` through a real terminal: the other ways out (exit, stop, custom key) and refusals.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertCookedTerminal, AttachTerminal, showSession } from './helpers/attach';
import { cliSandbox, type CliSandbox } from './helpers/cli';

let box: CliSandbox;
before(() => {
  box = cliSandbox();
});
after(() => box.cleanup());

test('when the program exits, attach reports it; alternate screen and modes are reset', async () => {
  const script = 'printf "\\033[?1049h\\033[?1h\\033[?2004h\\033[?25lIN-ALT-SCREEN"; read line; exit 7';
  await box.ok(['new', '--name', 'ender', '--', 'sh', '-c', script]);
  await box.ok(['wait', 'ender', '--for', 'text:IN-ALT-SCREEN', '--timeout-ms', '10000']);
  const t = new AttachTerminal(box, ['ender']);
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
  assert.equal((await showSession(box, 'ender')).exit?.code, 7);
});

test('a custom detach key', async () => {
  await box.ok(['new', '--name', 'custom', '--', 'sh', '-c', 'echo custom-ready; sleep 100']);
  const t = new AttachTerminal(box, ['custom', '--detach-key', 'ctrl-b']);
  await t.expect('custom-ready', 'the snapshot');
  t.term.write('\x02');
  const { rc } = await t.finished();
  assert.equal(rc, 0);
  assert.match(t.output, /detached from custom/);
});

test('attaching to a session that already exited shows its last screen and returns', async () => {
  const id = (await box.ok(['new', '--', 'sh', '-c', 'echo last-words; exit 5'])).trim();
  await box.ok(['wait', id, '--for', 'exit', '--timeout-ms', '10000']);
  const t = new AttachTerminal(box, [id, '--watch']);
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
  const t = new AttachTerminal(box, ['last']);
  await t.expect('last-ready', 'the snapshot');
  await box.ok(['stop']);
  const { rc, after } = await t.finished();
  assert.equal(rc, 0);
  assert.match(t.output, /holdfast: the daemon is stopping/);
  assertCookedTerminal(after);
});
