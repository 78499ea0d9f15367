// Checkpoints and cold restore, on real daemons with real PTYs: contents and permissions, screen text
// only when enabled, atomic writes under SIGKILL, retention, corrupt files, restore after a crash,
// relaunch in place, resume of agents (and not of sessions that had already exited).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { HoldfastClient } from '../src/client/client';
import type { CheckpointFile } from '../src/protocol/recovery';
import { checkpointJson } from './helpers/checkpoint';
import { type CliRun, runCli } from './helpers/cli';
import {
  isAlive,
  isolatedEnv,
  startPersistentDaemon,
  stopDaemonPid,
  tempDir,
  waitFor,
  waitForText,
} from './helpers/daemon';

interface Running {
  pid: number;
  client: HoldfastClient;
}

interface Home {
  dir: string;
  env: NodeJS.ProcessEnv;
  socket: string;
  recovery: string;
  /** Starts a daemon on this home (its state and config dirs survive the daemon). */
  start(): Promise<Running>;
  stop(d: Running): Promise<void>;
  crash(d: Running): Promise<void>;
  cli(args: string[]): Promise<CliRun>;
}

function home(config?: object): Home {
  const dir = tempDir('hf-recovery-');
  const env = isolatedEnv(dir);
  if (config) {
    fs.mkdirSync(path.join(env.XDG_CONFIG_HOME!, 'holdfast'), { recursive: true });
    fs.writeFileSync(path.join(env.XDG_CONFIG_HOME!, 'holdfast', 'config.json'), JSON.stringify(config));
  }
  const socket = env.HOLDFAST_SOCKET!;
  return {
    dir,
    env,
    socket,
    recovery: path.join(env.XDG_STATE_HOME!, 'holdfast', 'recovery'),
    async start() {
      const pid = await startPersistentDaemon(env);
      const client = await HoldfastClient.connect({ socket, client: 'test', version: 'test' });
      return { pid, client };
    },
    async stop(d) {
      d.client.close();
      await stopDaemonPid(d.pid);
    },
    async crash(d) {
      d.client.close();
      process.kill(d.pid, 'SIGKILL');
      await waitFor(() => !isAlive(d.pid), 5000, 'the daemon to die');
    },
    cli: (args) => runCli(env, args),
  };
}

function checkpointFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((n) => /^checkpoint-.*\.json$/.test(n))
    .map((n) => path.join(dir, n));
}

function readCheckpoint(file: string): CheckpointFile {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as CheckpointFile;
}

/** The newest checkpoint once `check` holds for it. */
async function checkpointWhere(
  dir: string,
  check: (c: CheckpointFile) => boolean,
  what: string,
  timeoutMs = 5000,
): Promise<CheckpointFile> {
  let found: CheckpointFile | undefined;
  await waitFor(
    () => {
      for (const file of checkpointFiles(dir)) {
        try {
          const c = readCheckpoint(file);
          if (check(c)) {
            found = c;
            return true;
          }
        } catch {
          // being replaced right now: rename is atomic, so this is a bug; the parse tests catch it
        }
      }
      return false;
    },
    timeoutMs,
    what,
  );
  return found!;
}

function runIdOf(dir: string): string {
  const files = checkpointFiles(dir);
  assert.equal(files.length, 1);
  return readCheckpoint(files[0]).id;
}

function validCheckpoint(id: string, sessions: Partial<CheckpointFile['sessions'][number]>[] = []): string {
  return checkpointJson(id, sessions, (i) => ({ name: `s${i}`, cwd: '/', title: '' }));
}

test('checkpoint content and permissions; screen text and argv only when enabled; config get/set', async () => {
  const h = home();
  const d = await h.start();
  try {
    const { client } = d;
    const { session: shell } = await client.request('create', {
      name: 'shell',
      argv: ['sh', '-c', 'echo secret-on-screen; exec sleep 1000'],
      cwd: h.dir,
      metadata: { workspace: 'w1', tab: { index: 0 } },
    });
    const { session: done } = await client.request('create', {
      argv: ['sh', '-c', 'echo finished; exit 3'],
      cwd: h.dir,
    });
    await client.request('wait', { session: done.id, condition: { kind: 'exit' }, timeoutMs: 5000 });
    await client.request('update', {
      session: shell.id,
      name: 'renamed',
      metadata: { workspace: 'w1', tab: { index: 1 }, agent: { profile: 'claude', sessionId: 'u-1' } },
    });
    const c = await checkpointWhere(
      h.recovery,
      (c) => c.sessions.some((s) => s.name === 'renamed') && c.sessions.some((s) => s.exit !== null),
      'a checkpoint with the rename and the exit',
    );
    assert.equal(fs.statSync(h.recovery).mode & 0o777, 0o700);
    for (const file of checkpointFiles(h.recovery)) assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(c.version, 1);
    assert.equal(c.daemonPid, d.pid);
    assert.ok(c.writtenAt > Date.now() - 60_000);
    const saved = c.sessions.find((s) => s.id === shell.id)!;
    assert.equal(saved.cwd, h.dir);
    assert.equal(saved.running, true);
    assert.deepEqual(saved.metadata, {
      workspace: 'w1',
      tab: { index: 1 },
      agent: { profile: 'claude', sessionId: 'u-1' },
    });
    assert.deepEqual([saved.cols, saved.rows], [80, 24]);
    const savedDone = c.sessions.find((s) => s.id === done.id)!;
    assert.equal(savedDone.running, false);
    assert.equal(savedDone.exit?.code, 3);
    assert.equal(saved.screen, undefined, 'screen text saved while recovery.screenText is off');
    assert.equal(saved.argv, undefined, 'argv saved while recovery.argv is off');
    assert.ok(!fs.readFileSync(checkpointFiles(h.recovery)[0], 'utf8').includes('secret-on-screen'));

    assert.equal((await client.request('config.get', { key: 'recovery.screenText' })).value, false);
    await client.request('config.set', { key: 'recovery.screenText', value: true });
    await client.request('config.set', { key: 'recovery.argv', value: true });
    const withScreen = await checkpointWhere(
      h.recovery,
      (c) => c.sessions.every((s) => typeof s.screen === 'string' && Array.isArray(s.argv)),
      'a checkpoint with screens and argv',
    );
    assert.match(withScreen.sessions.find((s) => s.id === shell.id)!.screen!, /secret-on-screen/);
    assert.deepEqual(withScreen.sessions.find((s) => s.id === shell.id)!.argv, [
      'sh',
      '-c',
      'echo secret-on-screen; exec sleep 1000',
    ]);
    const configFile = path.join(h.env.XDG_CONFIG_HOME!, 'holdfast', 'config.json');
    assert.deepEqual(JSON.parse(fs.readFileSync(configFile, 'utf8')), { recovery: { screenText: true, argv: true } });
    await assert.rejects(client.request('config.set', { key: 'recovery.keep', value: 0 }), /recovery.keep must be/);
    await assert.rejects(client.request('config.set', { key: 'nope', value: 1 }), /unknown config key/);

    // Reload: the file is the truth; an invalid file is refused and the config kept.
    fs.writeFileSync(configFile, JSON.stringify({ recovery: { screenText: false } }));
    assert.equal((await client.request('config.reload', {})).config.recovery.screenText, false);
    fs.writeFileSync(configFile, '{"recovery": ');
    await assert.rejects(client.request('config.reload', {}), /not valid JSON/);
    assert.equal((await client.request('config.get', {})).config.recovery.argv, false);

    const { checkpoint } = await client.request('recovery.checkpoint', {});
    assert.equal(checkpoint.current, true);
    assert.equal(checkpoint.sessions, 2);
    assert.equal(checkpoint.screens, false);
  } finally {
    await h.stop(d);
  }
});

test('the stop checkpoint is written before the sessions are killed; an idle daemon does not rewrite it', async () => {
  const h = home();
  const d = await h.start();
  const { session } = await d.client.request('create', { argv: ['sleep', '1000'], cwd: h.dir });
  const first = await checkpointWhere(h.recovery, (c) => c.sessions.length === 1, 'the first checkpoint');
  const file = checkpointFiles(h.recovery)[0];
  await new Promise((r) => setTimeout(r, 800));
  assert.equal(readCheckpoint(file).writtenAt, first.writtenAt, 'rewritten with nothing changed');
  await h.stop(d);
  const last = readCheckpoint(file);
  assert.ok(last.writtenAt > first.writtenAt);
  assert.equal(last.sessions[0].id, session.id);
  assert.equal(last.sessions[0].running, true, 'the stop checkpoint recorded the session after it was killed');
});

test('atomic under SIGKILL: every checkpoint left parses and the previous one is intact', async (t) => {
  const h = home({ recovery: { screenText: true, intervalSeconds: 0.02 } });
  const pad = 'x'.repeat(180);
  let midWrite = 0;
  // Kill as soon as a write is seen in progress (its temp file exists), until that happened twice.
  for (let round = 0; round < 8 && midWrite < 2; round++) {
    const d = await h.start();
    for (let i = 0; i < 6; i++) {
      await d.client.request('create', {
        argv: ['sh', '-c', `while :; do seq 1 400 | sed "s/$/ ${pad}/" || exit; sleep 0.05; done`],
        cols: 200,
        cwd: h.dir,
      });
    }
    const mine = (c: CheckpointFile) => c.daemonPid === d.pid && c.sessions.length === 6;
    await checkpointWhere(h.recovery, mine, 'a first checkpoint', 15_000);
    const temp = `.tmp-${d.pid}-`;
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && !fs.readdirSync(h.recovery).some((n) => n.startsWith(temp))) {
      // busy: the window between open and rename is a few milliseconds
    }
    await h.crash(d);
    if (fs.readdirSync(h.recovery).some((n) => n.startsWith(temp))) midWrite++;
    const files = checkpointFiles(h.recovery);
    assert.ok(files.length >= 1);
    for (const file of files) {
      const c = readCheckpoint(file); // throws if torn
      assert.equal(c.sessions.length, 6);
      assert.ok(c.sessions.every((s) => typeof s.screen === 'string' && s.screen.length > 0));
      assert.ok(fs.statSync(file).size <= 16 * 1024 * 1024);
    }
    assert.ok(files.map(readCheckpoint).some(mine), "the crashed daemon's previous checkpoint is gone");
  }
  t.diagnostic(`daemons killed in the middle of a write: ${midWrite}`);
  assert.ok(midWrite >= 1, 'never killed a daemon in the middle of a write');
  // A new daemon's first write cleans up temp files the dead ones left.
  const d = await h.start();
  await d.client.request('create', { argv: ['sleep', '100'], cwd: h.dir });
  await waitFor(
    () => fs.readdirSync(h.recovery).filter((n) => n.startsWith('.tmp-')).length === 0,
    5000,
    'temp files to be cleaned up',
  );
  await h.stop(d);
});

test('retention: count, age and size; a corrupt checkpoint is reported and skipped', async () => {
  const h = home({ recovery: { keep: 3 } });
  fs.mkdirSync(h.recovery, { recursive: true, mode: 0o700 });
  const now = Date.now() / 1000;
  for (let i = 0; i < 5; i++) {
    const file = path.join(h.recovery, `checkpoint-old${i}.json`);
    fs.writeFileSync(file, validCheckpoint(`old${i}`, [{}]), { mode: 0o600 });
    fs.utimesSync(file, now - 100 + i, now - 100 + i);
  }
  const ancient = path.join(h.recovery, 'checkpoint-ancient.json');
  fs.writeFileSync(ancient, validCheckpoint('ancient', [{}]), { mode: 0o600 });
  fs.utimesSync(ancient, now - 8 * 86400, now - 8 * 86400);
  const d = await h.start();
  try {
    await d.client.request('create', { argv: ['sleep', '1000'], cwd: h.dir });
    await waitFor(() => checkpointFiles(h.recovery).length === 3, 5000, 'pruning to 3 files');
    const left = checkpointFiles(h.recovery)
      .map((f) => path.basename(f))
      .sort();
    assert.ok(left.includes('checkpoint-old3.json') && left.includes('checkpoint-old4.json'), `kept ${left.join(' ')}`);
    assert.ok(!left.includes('checkpoint-ancient.json'));

    // Corrupt and truncated files: listed as skipped, never fatal.
    fs.writeFileSync(path.join(h.recovery, 'checkpoint-bad.json'), validCheckpoint('bad', [{}]).slice(0, 40), {
      mode: 0o600,
    });
    fs.writeFileSync(path.join(h.recovery, 'checkpoint-empty.json'), '', { mode: 0o600 });
    const { checkpoints, skipped } = await d.client.request('recovery.list', {});
    assert.deepEqual(skipped.map((s) => path.basename(s.file)).sort(), [
      'checkpoint-bad.json',
      'checkpoint-empty.json',
    ]);
    assert.match(skipped[0].error, /truncated or corrupt|empty/);
    assert.equal(checkpoints.length, 3);
    assert.equal(checkpoints[0].current, true, 'newest first');
    await assert.rejects(d.client.request('recovery.inspect', { id: 'bad' }), /cannot be read/);
    await assert.rejects(d.client.request('recovery.restore', { id: 'missing' }), /no checkpoint/);
    const cli = await h.cli(['recovery', 'list']);
    assert.equal(cli.code, 0);
    assert.match(cli.stderr, /skipped .*checkpoint-bad\.json/);

    // Size: scrollback is trimmed until the file fits, the screen itself stays.
    await d.client.request('config.set', { key: 'recovery.screenText', value: true });
    await d.client.request('config.set', { key: 'recovery.maxBytes', value: 8000 });
    const { session } = await d.client.request('create', {
      argv: ['sh', '-c', 'seq 1 3000 | sed "s/$/ padding-padding-padding/"; echo the-last-line; exec sleep 1000'],
      cwd: h.dir,
    });
    await waitForText(d.client, session.id, 'the-last-line', 5000);
    const { checkpoint } = await d.client.request('recovery.checkpoint', {});
    assert.ok(checkpoint.bytes <= 8000, `${checkpoint.bytes} bytes`);
    const saved = readCheckpoint(checkpoint.file).sessions.find((s) => s.id === session.id)!;
    assert.match(saved.screen!, /the-last-line/);
    assert.match(saved.screen!, /2990 padding/);
    assert.doesNotMatch(saved.screen!, /\b1000 padding/, 'the scrollback was not trimmed');
  } finally {
    await h.stop(d);
  }
});

test('crash with live sessions: list offers it, restore archives, relaunch in place, resume agents only', async (t) => {
  // Screens are saved every interval while they change: output that arrives after the write its session's creation
  // or exit brought (a slow shell on a loaded machine) waits for the next one, 30 s by default.
  const h = home({ recovery: { screenText: true, intervalSeconds: 0.2 } });
  const agent = path.join(h.dir, 'agent.sh');
  fs.writeFileSync(agent, '#!/bin/sh\necho "agent argv: $*"\nexec sleep 1000\n', { mode: 0o755 });
  const agentMeta = (sessionId: string) => ({
    agent: { profile: 'stand-in', sessionId, resumeArgv: [agent, '--resume', '{id}'] },
  });

  const a = await h.start();
  // A failure before the crash must not leave this daemon running: the file would wait for it until its time limit.
  t.after(() => (isAlive(a.pid) ? h.stop(a) : undefined));
  const { session: shell } = await a.client.request('create', {
    name: 'shell',
    argv: ['sh', '-c', 'echo hello from the old shell; exec sleep 1000'],
    cwd: h.dir,
    metadata: { tab: 0 },
  });
  const { session: bot } = await a.client.request('create', {
    name: 'bot',
    argv: [agent, '--new'],
    cwd: h.dir,
    metadata: { tab: 1, ...agentMeta('conv-42') },
  });
  const { session: finished } = await a.client.request('create', {
    name: 'finished',
    argv: ['sh', '-c', 'echo all done; exit 0'],
    cwd: h.dir,
    metadata: { tab: 2, ...agentMeta('conv-7') },
  });
  await a.client.request('wait', { session: finished.id, condition: { kind: 'exit' }, timeoutMs: 5000 });
  await waitForText(a.client, bot.id, 'agent argv: --new', 5000);
  await waitForText(a.client, shell.id, 'hello from', 5000);
  await checkpointWhere(
    h.recovery,
    (c) => c.sessions.length === 3 && c.sessions.every((s) => /hello|agent argv|all done/.test(s.screen ?? '')),
    'a checkpoint with the three screens',
  );
  await h.crash(a);

  // After the crash, before any daemon runs: the CLI reads the checkpoints itself.
  const offline = await h.cli(['recovery', 'inspect', `${runIdOf(h.recovery)}`, '--json']);
  assert.equal(offline.code, 0, offline.stderr);
  assert.deepEqual(
    JSON.parse(offline.stdout).sessions.map((s: { name: string; resumable: boolean }) => [s.name, s.resumable]),
    [
      ['shell', false],
      ['bot', true],
      ['finished', false],
    ],
  );

  const b = await h.start();
  try {
    const { client } = b;
    assert.deepEqual((await client.request('list', {})).sessions, []);
    const { checkpoints } = await client.request('recovery.list', {});
    assert.equal(checkpoints.length, 1);
    const offered = checkpoints[0];
    assert.equal(offered.current, false);
    assert.equal(offered.daemonPid, a.pid);
    assert.deepEqual([offered.sessions, offered.running], [3, 2]);
    const inspected = await client.request('recovery.inspect', { id: offered.id });
    assert.deepEqual(
      inspected.sessions.map((s) => [s.name, s.running, s.resumable]),
      [
        ['shell', true, false],
        ['bot', true, true],
        ['finished', false, false],
      ],
    );
    const cliList = await h.cli(['recovery', 'list', '--json']);
    assert.equal(JSON.parse(cliList.stdout).checkpoints[0].id, offered.id);

    const { sessions } = await client.request('recovery.restore', { id: offered.id });
    assert.deepEqual(
      sessions.map((s) => s.name),
      ['shell', 'bot', 'finished'],
    );
    await assert.rejects(client.request('recovery.restore', { id: offered.id }), /already restored/);
    for (const s of sessions) {
      assert.equal(s.state, 'exited');
      assert.ok(![shell.id, bot.id, finished.id].includes(s.id), 'an archived session reused an old id');
      assert.equal(s.pid, 0);
    }
    const [archShell, archBot, archFinished] = sessions;
    assert.deepEqual((archShell.metadata.archivedFrom as { id: string }).id, shell.id);
    assert.equal(archShell.metadata.tab, 0);
    assert.ok(
      (await client.request('read', { session: archShell.id })).lines.some((l) =>
        l.includes('hello from the old shell'),
      ),
    );
    assert.ok(
      (await client.request('read', { session: archBot.id })).lines.some((l) => l.includes('agent argv: --new')),
    );
    assert.ok((await client.request('read', { session: archFinished.id })).lines.some((l) => l.includes('all done')));
    await assert.rejects(client.request('send', { session: archShell.id, data: 'x' }), /exited/);

    // Not offered for resume: it had exited cleanly before the crash.
    await assert.rejects(client.request('resume', { session: archFinished.id }), /already exited/);
    const notAgent = await h.cli(['resume', archShell.id]);
    assert.equal(notAgent.code, 2);
    assert.match(notAgent.stderr, /^holdfast: .*not an agent session/);

    // A custom profile: its client gives the resume command (the checkpoint's is not run).
    const resumed = await h.cli(['resume', 'bot', '--json', '--', agent, '--resume', '{id}']);
    assert.equal(resumed.code, 0, resumed.stderr);
    const { session: newBot, argv, replaced } = JSON.parse(resumed.stdout);
    assert.deepEqual(argv, [agent, '--resume', 'conv-42']);
    assert.equal(replaced, archBot.id);
    assert.equal(newBot.name, 'bot');
    assert.equal(newBot.state, 'running');
    assert.equal(newBot.metadata.archivedFrom, undefined);
    assert.equal(newBot.metadata.tab, 1);
    await waitForText(client, newBot.id, 'agent argv: --resume conv-42', 5000);

    const relaunched = await client.request('relaunch', {
      session: archShell.id,
      argv: ['sh', '-c', 'echo a new run; exec sleep 1000'],
    });
    assert.equal(relaunched.replaced, archShell.id);
    await waitForText(client, relaunched.session.id, 'a new run', 5000);
    assert.equal(relaunched.session.cwd, h.dir);
    const order = (await client.request('list', {})).sessions.map((s) => [s.name, s.id]);
    assert.deepEqual(
      order,
      [
        ['shell', relaunched.session.id],
        ['bot', newBot.id],
        ['finished', archFinished.id],
      ],
      'not in the same places',
    );
    await assert.rejects(client.request('relaunch', { session: newBot.id }), /still running/);

    // The restored, not yet relaunched archive stays "not resumable" in this daemon's own checkpoint.
    const own = await checkpointWhere(
      h.recovery,
      (c) => c.daemonPid === b.pid && c.sessions.length === 3,
      "the new daemon's checkpoint",
    );
    assert.equal(own.sessions.find((s) => s.name === 'finished')!.running, false);
  } finally {
    await h.stop(b);
  }
});

test('CLI: recovery, config, relaunch; errors are one line with the usual exit codes', async () => {
  const h = home();
  // Without a daemon, list and inspect read the files; everything else needs one.
  const none = await h.cli(['recovery', 'list', '--json']);
  assert.equal(none.code, 0, none.stderr);
  assert.deepEqual(JSON.parse(none.stdout), { checkpoints: [], skipped: [] });
  assert.equal((await h.cli(['recovery', 'inspect', 'nope'])).code, 4);
  assert.equal((await h.cli(['config', 'get'])).code, 6);
  assert.equal((await h.cli(['recovery', 'checkpoint'])).code, 6);
  const d = await h.start();
  try {
    const { session } = await d.client.request('create', { name: 'job', argv: ['sh', '-c', 'echo one'], cwd: h.dir });
    await d.client.request('wait', { session: session.id, condition: { kind: 'exit' }, timeoutMs: 5000 });
    const checkpoint = await h.cli(['recovery', 'checkpoint', '--json']);
    assert.equal(checkpoint.code, 0, checkpoint.stderr);
    const id = JSON.parse(checkpoint.stdout).checkpoint.id as string;
    assert.match((await h.cli(['recovery', 'list'])).stdout, new RegExp(`${id}.*current`));
    const inspect = await h.cli(['recovery', 'inspect', id]);
    assert.equal(inspect.code, 0);
    assert.match(inspect.stdout, /job/);
    assert.equal((await h.cli(['recovery', 'restore', id])).code, 2, "restoring the daemon's own checkpoint");
    assert.equal((await h.cli(['recovery', 'inspect', 'nope'])).code, 4);
    assert.equal((await h.cli(['recovery', 'frob'])).code, 2);

    assert.equal((await h.cli(['config', 'set', 'recovery.intervalSeconds', '5'])).code, 0);
    assert.equal((await h.cli(['config', 'get', 'recovery.intervalSeconds'])).stdout.trim(), '5');
    assert.match((await h.cli(['config', 'get'])).stdout, /recovery\.intervalSeconds\s+5/);
    const bad = await h.cli(['config', 'set', 'recovery.screenText', 'maybe']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^holdfast: [^\n]+\n$/);
    assert.equal((await h.cli(['config', 'reload', '--json'])).code, 0);

    const relaunch = await h.cli(['relaunch', 'job', '--', 'sh', '-c', 'echo two; exec sleep 100']);
    assert.equal(relaunch.code, 0, relaunch.stderr);
    assert.match(relaunch.stdout, /new run/);
    await waitForText(d.client, 'job', 'two', 5000);
    assert.equal((await h.cli(['relaunch', 'nosuch'])).code, 4);

    assert.equal((await h.cli(['recovery', 'forget', id])).code, 0);
    assert.ok(!fs.existsSync(path.join(h.recovery, `checkpoint-${id}.json`)));
  } finally {
    await h.stop(d);
  }
});

test(
  'CLI: restore with no daemon running starts an on-demand one; ' +
    'the restored checkpoint is superseded, so a run that ends empty leaves nothing to offer again',
  async () => {
    const h = home();
    const d = await h.start();
    await d.client.request('create', { name: 'kept', argv: ['sleep', '1000'], cwd: h.dir });
    await checkpointWhere(h.recovery, (c) => c.sessions.length === 1, 'a checkpoint');
    await h.stop(d);
    const id = runIdOf(h.recovery);
    const restored = await h.cli(['recovery', 'restore', id, '--json']);
    assert.equal(restored.code, 0, restored.stderr);
    const [archived] = JSON.parse(restored.stdout).sessions;
    assert.deepEqual([archived.name, archived.state], ['kept', 'exited']);
    const version = JSON.parse((await h.cli(['version', '--json'])).stdout);
    assert.equal(version.daemon.startMode, 'on-demand');
    // The new daemon's checkpoint holds the archive; the restored file is gone (regression: it was
    // offered, and restored, a second time after the new daemon ended empty).
    const [own] = checkpointFiles(h.recovery).map(readCheckpoint);
    assert.equal(checkpointFiles(h.recovery).length, 1);
    assert.notEqual(own.id, id);
    assert.equal((own.sessions[0].metadata.archivedFrom as { checkpoint: string }).checkpoint, id);
    assert.equal((await h.cli(['rm', 'kept'])).code, 0);
    await waitFor(() => !isAlive(version.daemon.pid), 10_000, 'the on-demand daemon to exit');
    assert.deepEqual(checkpointFiles(h.recovery), [], 'nothing is offered again');
  },
);

test(
  'a crash after a restore: the newer checkpoint carries the archives, the older one cannot be restored again; ' +
    "resume without an id; relaunch takes the client's env",
  async (t) => {
    const h = home();
    const agent = path.join(h.dir, 'latest-agent.sh');
    fs.writeFileSync(agent, '#!/bin/sh\necho "agent argv: $* mark=$HOLDFAST_TEST_MARK"\nexec sleep 1000\n', {
      mode: 0o755,
    });
    // Like Codex: no id is known, the resume command continues "the latest conversation here".
    const latestAgent = { agent: { profile: 'latest', resumeArgv: [agent, 'resume', '--last'] } };

    const a = await h.start();
    t.after(() => (isAlive(a.pid) ? h.stop(a) : undefined));
    const { session: bot } = await a.client.request('create', {
      name: 'bot',
      argv: [agent],
      cwd: h.dir,
      metadata: latestAgent,
    });
    await waitForText(a.client, bot.id, 'agent argv', 5000);
    await checkpointWhere(
      h.recovery,
      (c) => c.daemonPid === a.pid && c.sessions.length === 1,
      "the first daemon's checkpoint",
    );
    await h.crash(a);
    const first = runIdOf(h.recovery);

    const b = await h.start();
    t.after(() => (isAlive(b.pid) ? h.stop(b) : undefined));
    const restoredOnce = (await b.client.request('recovery.restore', { id: first })).sessions;
    assert.equal(restoredOnce.length, 1);
    await checkpointWhere(
      h.recovery,
      (c) => c.daemonPid === b.pid && c.sessions.length === 1,
      "the second daemon's checkpoint (the archive, not yet resumed)",
    );
    await h.crash(b);

    const c = await h.start();
    try {
      const { checkpoints } = await c.client.request('recovery.list', {});
      const newest = checkpoints.filter((cp) => !cp.current).sort((x, y) => y.writtenAt - x.writtenAt)[0];
      assert.equal(newest.daemonPid, b.pid);
      const { sessions } = await c.client.request('recovery.restore', { id: newest.id });
      assert.deepEqual(
        sessions.map((s) => s.name),
        ['bot'],
      );
      // The first checkpoint's session came back with the second: restoring it too would show it twice.
      await assert.rejects(c.client.request('recovery.restore', { id: first }), /already restored/);
      assert.equal((await c.client.request('list', {})).sessions.length, 1);

      const resumed = await c.client.request('resume', {
        session: sessions[0].id,
        env: { HOLDFAST_TEST_MARK: 'from-the-editor' },
        resumeArgv: [agent, 'resume', '--last'],
      });
      assert.deepEqual(resumed.argv, [agent, 'resume', '--last']);
      await waitForText(c.client, resumed.session.id, 'agent argv: resume --last mark=from-the-editor', 5000);
      await assert.rejects(
        c.client.request('relaunch', {
          session: resumed.session.id,
          env: { X: 1 } as unknown as Record<string, string>,
        }),
        /relaunch: env\.X: .*expected string/,
      );
    } finally {
      await h.stop(c);
    }
  },
);
