// `holdfast attach` through a real terminal: owner (typing, size, SIGWINCH), watcher, takeover, detach.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertCookedTerminal, AttachTerminal, showSession, STEP_TIMEOUT_MS } from './helpers/attach';
import { cliSandbox, type CliSandbox, waitFor } from './helpers/cli';

let box: CliSandbox;
before(() => {
  box = cliSandbox();
});
after(() => box.cleanup());

test('attach as owner: snapshot, typing, our size, SIGWINCH, ctrl-\\ detaches and restores the terminal', async () => {
  await box.ok([
    'new',
    '--name',
    'owned',
    '--cols',
    '80',
    '--rows',
    '24',
    '--env',
    'PS1=owned$ ',
    '--',
    'bash',
    '--norc',
    '--noprofile',
  ]);
  await box.ok(['send', 'owned', '--text', 'echo before-attach', '--enter']);
  await box.ok(['wait', 'owned', '--for', 'text:^before-attach$', '--timeout-ms', '10000']);
  const t = new AttachTerminal(box, ['owned']);
  await t.expect('before-attach', 'the snapshot');
  await waitFor(
    async () => {
      const s = await showSession(box, 'owned');
      return s.cols === 100 && s.rows === 30 && s.clients.owners === 1;
    },
    STEP_TIMEOUT_MS,
    'the owner to give the session its size',
  );

  const mark = t.output.length;
  t.term.write('echo typed-$((40+2))\r');
  await t.expect('typed-42', 'typed input echoed through the session', mark);
  await box.ok(['wait', 'owned', '--for', 'text:^typed-42$', '--timeout-ms', '10000']);

  t.term.resize(110, 33);
  await waitFor(
    async () => {
      const s = await showSession(box, 'owned');
      return s.cols === 110 && s.rows === 33;
    },
    STEP_TIMEOUT_MS,
    'SIGWINCH to resize the session',
  );

  t.term.write('\x1c');
  const { rc, after } = await t.finished();
  assert.equal(rc, 0);
  assert.match(t.output, /holdfast: detached from owned/);
  assertCookedTerminal(after);
  assert.ok(t.output.includes('\x1b[?25h') && t.output.includes('\x1b[?2004l'), 'the reset string was written');
  const s = await showSession(box, 'owned');
  assert.equal(s.state, 'running', 'detaching never kills');
  assert.deepEqual(s.clients, { owners: 0, watchers: 0 });
  assert.deepEqual([s.cols, s.rows], [110, 33], "the owner's size stays after it leaves");
});

test('keys typed while attach is still starting are not lost', async () => {
  await box.ok(['new', '--name', 'eager', '--env', 'PS1=eager$ ', '--', 'bash', '--norc', '--noprofile']);
  await box.ok(['wait', 'eager', '--for', 'text:eager\\$', '--timeout-ms', '10000']);
  const t = new AttachTerminal(box, ['eager']);
  t.term.write('echo early-$((1+1))\r');
  await box.ok(['wait', 'eager', '--for', 'text:^early-2$', '--timeout-ms', String(STEP_TIMEOUT_MS)]);
  t.term.write('\x1c');
  assert.equal((await t.finished()).rc, 0);
});

test('attach --watch never types and never resizes; it sees the stream and detaches', async () => {
  await box.ok([
    'new',
    '--name',
    'watched',
    '--cols',
    '80',
    '--rows',
    '24',
    '--env',
    'PS1=watched$ ',
    '--',
    'bash',
    '--norc',
    '--noprofile',
  ]);
  await box.ok(['wait', 'watched', '--for', 'text:watched\\$', '--timeout-ms', '10000']);
  const t = new AttachTerminal(box, ['watched', '--watch'], 120, 40);
  await t.expect('watched$', 'the snapshot');
  await waitFor(
    async () => (await showSession(box, 'watched')).clients.watchers === 1,
    STEP_TIMEOUT_MS,
    'the watcher to attach',
  );

  t.term.write('echo from-watcher\r');
  t.term.resize(130, 45);
  await box.ok(['send', 'watched', '--text', 'echo via-send', '--enter']);
  await t.expect(/^via-send\r?$/m, 'output reaching the watcher');
  const screen = await box.ok(['read', 'watched']);
  assert.doesNotMatch(screen, /from-watcher/);
  const s = await showSession(box, 'watched');
  assert.deepEqual([s.cols, s.rows], [80, 24]);

  t.term.write('\x1c');
  const { rc, after } = await t.finished();
  assert.equal(rc, 0);
  assertCookedTerminal(after);
  assert.deepEqual((await showSession(box, 'watched')).clients, { owners: 0, watchers: 0 });
});

test('a new owner takes input over: the previous attach says so and exits', async () => {
  await box.ok(['new', '--name', 'contested', '--env', 'PS1=contested$ ', '--', 'bash', '--norc', '--noprofile']);
  const first = new AttachTerminal(box, ['contested']);
  await first.expect('contested$', 'the first snapshot');
  await waitFor(
    async () => (await showSession(box, 'contested')).clients.owners === 1,
    STEP_TIMEOUT_MS,
    'the first owner',
  );
  const second = new AttachTerminal(box, ['contested'], 90, 25);
  await second.expect('contested$', 'the second snapshot');
  const { rc, after } = await first.finished();
  assert.equal(rc, 0);
  assert.match(
    first.output,
    /holdfast: input was taken over \(another client attached as input owner\); detached from contested/,
  );
  assertCookedTerminal(after);
  const mark = second.output.length;
  second.term.write('echo second-owner\r');
  await second.expect('second-owner', 'the new owner typing', mark);
  second.term.write('\x1c');
  assert.equal((await second.finished()).rc, 0);
});
