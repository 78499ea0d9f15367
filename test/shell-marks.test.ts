// A shell's command marks (VS Code's OSC 633) kept by the daemon with the session, on real daemons
// and a real bash: every attach replays them at the rows and columns where the shell printed them,
// through the history store, a resize, trimming with the scrollback, a handoff and a checkpoint.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { Emulator } from '../src/daemon/emulator/emulator';
import { MARK_CHARS_PER_LINE, MarkLimit } from '../src/daemon/emulator/shellMarks';
import { core } from '../src/daemon/emulator/xtermInternals';
import { HoldfastClient } from '../src/client/client';
import { isAlive, startTestDaemon, type TestDaemon, tempDir, waitFor, waitForText } from './helpers/daemon';
import { parsed } from './helpers/emulatorParsed';
import { atPrompt, integratedBash, MarkRecorder, NONCE } from './helpers/marks';

let daemon: TestDaemon;
let client: HoldfastClient;
before(async () => {
  daemon = await startTestDaemon();
  client = await daemon.connect();
});
after(async () => {
  await daemon.stop();
});

/** Types a command line and waits for the shell's prompt after it. */
async function type(c: HoldfastClient, id: string, line: string): Promise<void> {
  const { exitCode } = await c.request('run', { session: id, command: line, timeoutMs: 30_000 });
  assert.notEqual(exitCode, undefined);
}

async function attachRecorder(c: HoldfastClient, id: string, cols = 80, rows = 24): Promise<MarkRecorder> {
  const recorder = new MarkRecorder(cols, rows);
  await c.attach({ session: id, role: 'watcher' }, recorder);
  await waitFor(() => recorder.snapshots > 0, 20_000, 'the snapshot');
  return recorder;
}

test('an attach replays the marks where the shell printed them: prompts, commands, exit codes, cwd', async () => {
  const home = tempDir('hf-marks-');
  const session = await integratedBash(client, home);
  // Attached from the first prompt on: what it records live is what VS Code's renderer would.
  const live = await attachRecorder(client, session.id);
  await type(client, session.id, 'true');
  await type(client, session.id, 'false');
  await type(client, session.id, 'echo "a;b\\c"');
  const later = await attachRecorder(client, session.id);
  const replayed = await later.recorded();
  assert.deepEqual(replayed, await live.recorded(), 'the replay differs from what was printed');

  const at = (row: number) =>
    replayed.filter((m) => m.startsWith(`${row}:`)).map((m) => m.split(':').slice(1).join(':'));
  assert.equal(later.row(0), '$ true');
  assert.deepEqual(at(0).slice(-2), ['0:A', '2:B'], 'the first prompt: A at its start, B after "$ "');
  assert.deepEqual(at(1), [`0:E;true;${NONCE}`, '0:C', '0:D;0', `0:P;Cwd=${home}`, '0:A', '2:B']);
  assert.deepEqual(at(2)[2], '0:D;1', 'false: exit code 1');
  assert.equal(at(3)[0], `0:E;echo "a\\x3bb\\\\c";${NONCE}`, 'the command line escaped as VS Code does');
  assert.equal(later.row(3), 'a;b\\c');
  assert.equal(replayed[0], '0:0:P;HasRichCommandDetection=True');
  // The shell's state, as list and show say it.
  const info = await atPrompt(client, session.id);
  assert.deepEqual([info.shell?.phase, info.shell?.lastExit], ['prompt', 0]);
  await client.request('remove', { session: session.id });
});

test('marks go into the history store with their lines and come back with them: attach, resize', async () => {
  const home = tempDir('hf-marks-');
  const session = await integratedBash(client, home, { rows: 10, cols: 60, scrollback: 2000 });
  const live = await attachRecorder(client, session.id, 60, 10);
  // Enough commands that the first ones leave xterm's rows for the store (it keeps a screen's height).
  for (let i = 0; i < 30; i++) await type(client, session.id, `echo line-${i}-${'x'.repeat(i * 3)}`);
  const later = await attachRecorder(client, session.id, 60, 10);
  assert.deepEqual(await later.recorded(), await live.recorded());

  // Taller: rows come back from the store into xterm's buffer, marks with them; wider: they reflow.
  for (const [cols, rows] of [
    [60, 20],
    [90, 20],
    [40, 12],
  ]) {
    await client.request('resize', { session: session.id, cols, rows });
    const resized = await attachRecorder(client, session.id, cols, rows);
    const marks = await resized.recorded();
    assert.equal(marks.filter((m) => m.endsWith(':D;0')).length, 30, `${cols}x${rows}: every command's end`);
    for (const mark of marks.filter((m) => /^\d+:\d+:E;echo line-\d+/.test(m))) {
      const row = Number(mark.split(':')[0]);
      const n = /line-(\d+)/.exec(mark)![1];
      assert.ok(resized.row(row).startsWith(`line-${n}-`), `${cols}x${rows}: E of line-${n} on its output's row`);
    }
  }
  await client.request('remove', { session: session.id });
});

test('marks are trimmed with the scrollback: only the kept lines keep theirs', async () => {
  const home = tempDir('hf-marks-');
  const session = await integratedBash(client, home, { rows: 10, scrollback: 20 });
  for (let i = 0; i < 40; i++) await type(client, session.id, `echo n${i}`);
  const later = await attachRecorder(client, session.id);
  const marks = await later.recorded();
  const ends = marks.filter((m) => m.endsWith(':D;0'));
  // 20 lines of scrollback and 10 rows hold 15 commands (two rows each) at most.
  assert.ok(ends.length >= 10 && ends.length <= 16, `${ends.length} command ends kept`);
  assert.ok(!marks.some((m) => m.includes('E;echo n1;')), 'the first commands scrolled out with their marks');
  assert.ok(marks.some((m) => m.includes('E;echo n39;')));
  await client.request('remove', { session: session.id });
});

test('forged marks cost bounded memory: LiveMarks on rows, MARK_CHARS_PER_LINE a stored line', async () => {
  // Every line two whole commands, each with a command line of 4,000 random letters (nothing to compress).
  const letters = () => Array.from({ length: 4000 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26)));
  const stream = (marks: boolean) => {
    const m = (s: string) => (marks ? `\x1b]633;${s}\x07` : '');
    const command = () => `${m('A')}$ ${m('B')}${m(`E;${letters().join('')}`)}${m('C')}${m('D;0')}`;
    let data = '';
    for (let i = 0; i < 2000; i++) data += `${command()}${command()}x${i}\r\n`;
    return data;
  };
  const stored = async (marks: boolean) => {
    const emulator = new Emulator({ cols: 120, rows: 40, scrollback: 1000, shellNonce: NONCE });
    try {
      await parsed(emulator, stream(marks));
      emulator.compactHistory();
      assert.ok(emulator.historyLength > 500, `${emulator.historyLength} lines stored`);
      // Marks follow their rows through one listener per kind (markRows.ts), not an xterm marker each:
      // every line a full buffer trims called each marker's listener, 94x the CPU of a flood of commands.
      const { markers } = core(emulator.terminal).buffers.normal as unknown as { markers: unknown[] };
      assert.equal(markers.length, 0, 'no xterm markers for the marks');
      return { perLine: emulator.historyBytes / emulator.historyLength, live: emulator.shell.liveMarks };
    } finally {
      emulator.dispose();
    }
  };
  const plain = await stored(false);
  const marked = await stored(true);
  assert.ok(marked.live <= MarkLimit.LiveMarks, `${marked.live} marks on rows`);
  const added = marked.perLine - plain.perLine;
  assert.ok(added <= MARK_CHARS_PER_LINE, `${added.toFixed(0)} bytes of marks a stored line`);
});

test('a handoff keeps the marks, the shell state and the trust of its command lines', async () => {
  const own = await startTestDaemon();
  try {
    let c = await own.connect();
    const home = tempDir('hf-marks-');
    const session = await integratedBash(c, home);
    await type(c, session.id, 'echo before');
    await type(c, session.id, 'false');
    const before = await (await attachRecorder(c, session.id)).recorded();
    const closed = new Promise<void>((resolve) => c.onClose(() => resolve()));
    await c.request('handoff', {});
    await closed;
    await waitFor(() => !isAlive(own.pid), 20_000, 'the old daemon to exit');
    c = await HoldfastClient.connect({ socket: own.socket, client: 'test', version: 'test' });
    try {
      const info = await atPrompt(c, session.id);
      assert.equal(info.shell?.lastExit, 1, 'the last exit code, from the replayed marks');
      assert.deepEqual(await (await attachRecorder(c, session.id)).recorded(), before);
      // The successor trusts the shell's command lines (the nonce went with the session).
      const { output, exitCode } = await c.request('run', {
        session: session.id,
        command: 'echo after',
        timeoutMs: 30_000,
      });
      assert.deepEqual([output, exitCode], ['after\n', 0]);
      const replay = await (await attachRecorder(c, session.id)).recorded();
      assert.ok(
        replay.some((m) => m.endsWith(`E;echo after;${NONCE}`)),
        replay.join('\n'),
      );
    } finally {
      c.close();
    }
  } finally {
    await own.stop();
  }
});

test('a checkpoint keeps the marks for the archived tab, its command lines unsigned (no nonce on disk)', async () => {
  const own = await startTestDaemon();
  try {
    const c = await own.connect();
    await c.request('config.set', { key: 'recovery.screenText', value: true });
    const home = tempDir('hf-marks-');
    const session = await integratedBash(c, home);
    await type(c, session.id, 'echo saved');
    await type(c, session.id, 'false');
    const before = await (await attachRecorder(c, session.id)).recorded();
    const { checkpoint } = await c.request('recovery.checkpoint', {});
    const file = fs
      .readdirSync(path.join(own.env.XDG_STATE_HOME!, 'holdfast', 'recovery'))
      .find((f) => f.includes(checkpoint.id))!;
    const text = fs.readFileSync(path.join(own.env.XDG_STATE_HOME!, 'holdfast', 'recovery', file), 'utf8');
    assert.ok(text.includes('633;D;1'), 'the marks are in the saved screen');
    assert.ok(!text.includes(NONCE), 'the nonce is never written to disk');
    // The daemon dies outright; another restores its checkpoint as an archive: the same marks, unsigned.
    process.kill(own.pid, 'SIGKILL');
    await waitFor(() => !isAlive(own.pid), 10_000, 'the daemon to die');
    const other = await startTestDaemon([], '--persistent', { XDG_STATE_HOME: own.env.XDG_STATE_HOME });
    try {
      const oc = await other.connect();
      const { sessions } = await oc.request('recovery.restore', { id: checkpoint.id });
      const archive = sessions.find((s) => s.name === session.name)!;
      await waitForText(oc, archive.id, 'echo saved', 10_000);
      const restored = await (await attachRecorder(oc, archive.id)).recorded();
      const unsigned = before.map((m) => m.replace(`;${NONCE}`, ''));
      assert.deepEqual(
        restored.filter((m) => /:(A|B|C|D.*|E;.*)$/.test(m)),
        unsigned.filter((m) => /:(A|B|C|D.*|E;.*)$/.test(m)),
      );
    } finally {
      await other.stop();
    }
  } finally {
    await own.stop();
  }
});
