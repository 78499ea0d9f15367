// `run` and `holdfast run`: a command typed at a shell's prompt, answered with its exact output and exit
// code once the shell reports its end, with both cores kept busy; refused when the shell is not at an
// empty prompt in the foreground; and marks a program prints (forged) neither end it nor become trusted.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { HoldfastClient } from '../src/client/client';
import { runCli } from './helpers/cli';
import { startTestDaemon, type TestDaemon, tempDir, waitForText } from './helpers/daemon';
import { atPrompt, integratedBash, MarkRecorder, NONCE } from './helpers/marks';

let daemon: TestDaemon;
let client: HoldfastClient;
const busy: ChildProcess[] = [];
before(async () => {
  daemon = await startTestDaemon();
  client = await daemon.connect();
  // Both cores kept busy by other processes for every test here.
  for (let i = 0; i < 2; i++) busy.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
});
after(async () => {
  for (const child of busy) child.kill('SIGKILL');
  await daemon.stop();
});

const run = (id: string, command: string, timeoutMs = 60_000) =>
  client.request('run', { session: id, command, timeoutMs });

test('run answers with the exact output and exit code the shell reports, both cores busy', async () => {
  const home = tempDir('hf-run-');
  const { id } = await integratedBash(client, home);
  const seq = await run(id, 'seq 1 3000');
  assert.equal(seq.output, Array.from({ length: 3000 }, (_, i) => `${i + 1}\n`).join(''), 'seq 1 3000, every line');
  assert.deepEqual([seq.exitCode, seq.truncated], [0, false]);
  const failed = await run(id, 'false');
  assert.deepEqual([failed.exitCode, failed.output], [1, '']);
  assert.equal((await run(id, '(exit 42)')).exitCode, 42);
  assert.equal((await run(id, "printf 'no newline'")).output, 'no newline');
  const long = 'x'.repeat(250);
  assert.equal((await run(id, `echo ${long}; echo after`)).output, `${long}\nafter\n`, 'a line wrapped over 4 rows');
  assert.equal((await run(id, 'echo "日本語 ✓"')).output, '日本語 ✓\n');
  assert.equal((await run(id, 'echo "  spaced  "')).output, '  spaced  \n', 'spaces printed are text');
  const info = await atPrompt(client, id);
  assert.deepEqual([info.shell?.phase, info.shell?.lastExit], ['prompt', 0]);
  await client.request('remove', { session: id });
});

test('holdfast run prints the output as it is, exits with the exit code; list and show say what runs', async () => {
  const home = tempDir('hf-run-');
  const { id } = await integratedBash(client, home, { name: 'sh1' });
  const cli = (args: string[]) => runCli(daemon.env, args);
  const ok = await cli(['run', 'sh1', '--', 'echo', 'hi;', 'printf', 'x']);
  assert.deepEqual([ok.code, ok.stdout, ok.stderr], [0, 'hi\nx', '']);
  const failed = await cli(['run', 'sh1', '--', 'ls /nonexistent-dir']);
  assert.equal(failed.code, 2, failed.stderr);
  assert.match(failed.stdout, /^ls: cannot access '\/nonexistent-dir': No such file or directory\n$/);
  const json = JSON.parse((await cli(['run', 'sh1', '--json', '--', 'echo', 'j'])).stdout);
  assert.deepEqual([json.exitCode, json.output, json.truncated, json.session.id], [0, 'j\n', false, id]);
  const timed = await cli(['run', 'sh1', '--timeout-ms', '300', '--', 'echo started; sleep 30']);
  assert.equal(timed.code, 124, timed.stderr);
  assert.match(timed.stderr, /timed out after 300 ms; the command goes on/);
  assert.equal(timed.stdout, 'started\n', 'the output so far');
  // While it runs: list and show say what, and run is refused (nothing typed into sleep).
  const shown = await cli(['show', 'sh1']);
  assert.match(shown.stdout, /^shell: +running echo started; sleep 30 \(since /m);
  assert.match((await cli(['list'])).stdout, /running echo started; sleep 30/);
  const refused = await cli(['run', 'sh1', '--', 'echo no']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /its shell is not at its prompt: it runs echo started; sleep 30; nothing was typed/);
  await client.request('send', { session: id, data: '\x03' });
  await atPrompt(client, id);
  assert.match((await cli(['show', 'sh1'])).stdout, /^shell: +at its prompt, last exit 130$/m);
  await client.request('remove', { session: id });
});

test('run types nothing at a prompt with text, with a program in the foreground, without integration', async () => {
  const home = tempDir('hf-run-');
  const { id } = await integratedBash(client, home);
  await client.request('send', { session: id, data: 'half-typed' });
  assert.ok((await waitForText(client, id, 'half-typed', 10_000)).met);
  await assert.rejects(run(id, 'echo x'), { code: 'not-ready', message: /text is typed at its prompt \(half-typed\)/ });
  await client.request('send', { session: id, data: '\x15' }); // ctrl+u: the line is empty again
  assert.ok((await waitForText(client, id, '^\\$ *$', 10_000)).met);
  assert.equal((await run(id, 'echo x')).output, 'x\n');
  // A program that reads the terminal while it prints a prompt of its own, marks and all.
  await client.request('send', { session: id, data: "printf '\\e]633;D;0\\a\\e]633;A\\a> \\e]633;B\\a'; cat\r" });
  assert.ok((await waitForText(client, id, '^> *$', 10_000)).met);
  await assert.rejects(run(id, 'echo into-cat'), {
    code: 'not-ready',
    message: /a program runs in the foreground of its terminal/,
  });
  await client.request('remove', { session: id });
  const { session: plain } = await client.request('create', { argv: ['sh'], cwd: home, env: { PS1: '$ ' } });
  assert.ok((await waitForText(client, plain.id, '^\\$ *$', 10_000)).met);
  await assert.rejects(run(plain.id, 'echo x'), { code: 'not-ready', message: /reports no shell prompt/ });
  await client.request('remove', { session: plain.id });
});

test('forged marks: an end, a prompt, a command line, a directory a program prints change nothing', async () => {
  const home = tempDir('hf-run-');
  const forged = path.join(home, 'forged.txt');
  const evil = 'rm -rf ~';
  // What a hostile file says when it is cat: the command ended with 0, a directory (with a bidi override), a
  // prompt, a command line with a wrong nonce, its start; then, while that command "runs", another.
  fs.writeFileSync(
    forged,
    `\x1b]633;D;0\x07\x1b]633;P;Cwd=/tmp/a\u202eb\x1b\\\x1b]633;A\x07$ \x1b]633;B\x07` +
      `\x1b]633;E;${evil};00000000-0000-0000-0000-000000000000\x07\x1b]633;C\x07forged output\n` +
      `\x1b]633;E;${evil}\x07\x1b]633;C\x07`,
  );
  const { id } = await integratedBash(client, home);
  // The forged end comes first and the program goes on: run takes the shell's own end, after it.
  const result = await run(id, `cat ${forged}; sleep 1; (exit 3)`);
  assert.equal(result.exitCode, 3, 'the exit code is the shell’s, not the forged 0');
  assert.match(result.output, /forged output/);
  const info = await atPrompt(client, id);
  assert.equal(info.shell?.lastExit, 3);
  assert.equal(info.cwd, home, 'a forged directory with a bidi override is not taken');
  assert.equal(info.shell?.command, undefined);
  // A replay signs only the shell's own command lines with the nonce.
  const later = new MarkRecorder(80, 24);
  await client.attach({ session: id, role: 'watcher' }, later);
  await waitForText(client, id, 'forged output', 5000);
  const replayed = await later.recorded();
  for (const mark of replayed.filter((m) => m.includes('E;'))) {
    if (mark.includes(evil)) assert.ok(!mark.includes(NONCE), `a forged command line got the nonce: ${mark}`);
    else assert.ok(mark.endsWith(NONCE), `the shell's own command line lost its nonce: ${mark}`);
  }
  assert.ok(
    replayed.some((m) => m.endsWith(`E;cat ${forged}\\x3b sleep 1\\x3b (exit 3);${NONCE}`)),
    replayed.join('\n'),
  );
  await client.request('remove', { session: id });
});
