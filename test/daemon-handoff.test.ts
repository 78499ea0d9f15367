// A daemon hands its sessions to a successor (`handoff`, `holdfast upgrade`): the same programs, every
// screen and history line and cursor as before, a flood's counter whole across the cut, typing works,
// exits and names kept, the old daemon gone; after a crash too, and what a crash whose handoff fails
// leaves. Also on the portable process path (scripts/test.sh).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { HoldfastClient } from '../src/client/client';
import type { SessionInfo } from '../src/protocol/messages';
import { startDaemon } from '../src/client/launch';
import { cliSandbox, isOneErrorLine } from './helpers/cli';
import {
  DAEMON_SCRIPT,
  isAlive,
  isolatedEnv,
  ROOT,
  startTestDaemon,
  stopDaemonPid,
  tempDir,
  waitFor,
} from './helpers/daemon';
import { daemonLog, daemonLogNow } from './helpers/reliability';
import { DAEMON_BUNDLES } from '../src/host/bundles';

const ALL = 1_000_000;

/** A counter that goes on for ever, about 10,000 lines a second at most. */
const FLOOD = `i=0; while :; do i=$((i+1)); echo "n$i"; [ $((i % 200)) = 0 ] && sleep 0.02; done`;
const FULL_SCREEN = `printf '\\033[?1049h\\033[2J\\033[5;3HFULL SCREEN\\033[2;1Hcursor here'; exec cat`;
const HISTORY = `seq -f 'h%g' 1 10000; echo HISTORY-DONE; exec sleep 1000`;

type Read = { lines: string[]; cursor: { x: number; y: number } };

/** The counter's lines (the last one may be cut short): each must be the one before plus one. */
function counterGaps(lines: string[]): { count: number; gaps: string[] } {
  const numbers = lines.filter((line) => /^n\d+$/.test(line)).map((line) => Number(line.slice(1)));
  numbers.pop();
  const gaps: string[] = [];
  for (let i = 1; i < numbers.length; i++)
    if (numbers[i] !== numbers[i - 1] + 1) gaps.push(`n${numbers[i - 1]} then n${numbers[i]}`);
  return { count: numbers.length, gaps };
}

async function lastCount(client: HoldfastClient, id: string): Promise<number> {
  const { lines } = await client.request('read', { session: id });
  const numbers = lines.filter((line) => /^n\d+$/.test(line)).map((line) => Number(line.slice(1)));
  return numbers.length > 0 ? Math.max(...numbers) : 0;
}

async function textShows(client: HoldfastClient, id: string, text: string): Promise<void> {
  const { met } = await client.request('wait', {
    session: id,
    condition: { kind: 'text', pattern: text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') },
    timeoutMs: 20_000,
  });
  assert.ok(met, `session ${id} never showed ${text}`);
}

test('handoff: 20 sessions go on in a successor with the same programs, screens, history and counter', async () => {
  const daemon = await startTestDaemon();
  try {
    const client = await daemon.connect();
    const make = async (name: string, script: string, scrollback?: number) =>
      (await client.request('create', { name, argv: ['bash', '-c', script], scrollback, cols: 80, rows: 24 })).session;
    const flood = await make('flood', FLOOD, 100_000);
    const full = await make('full', FULL_SCREEN);
    const history = await make('history', HISTORY, 20_000);
    const exited = await make('exited', 'echo bye; exit 3');
    const idle: SessionInfo[] = [];
    // The first reports another directory (OSC 7): where it was started and where it says it is both go on.
    const moved = (i: number) => (i === 0 ? `printf '\\033]7;file://localhost${os.tmpdir()}\\007'; ` : '');
    for (let i = 0; i < 16; i++) idle.push(await make(`idle-${i}`, `${moved(i)}echo "idle ${i}"; exec sleep 1000`));
    await textShows(client, full.id, 'FULL SCREEN');
    await textShows(client, history.id, 'HISTORY-DONE');
    await client.request('wait', { session: exited.id, condition: { kind: 'exit' }, timeoutMs: 20_000 });
    for (const each of idle) await textShows(client, each.id, `idle ${each.name.slice(5)}`);
    await waitFor(async () => (await lastCount(client, flood.id)) > 2000, 30_000, 'the flood to get going');

    const still = [full, history, exited, ...idle];
    const before = new Map<string, Read>();
    for (const session of still)
      before.set(session.id, await client.request('read', { session: session.id, scrollback: ALL }));
    const { sessions: listed } = await client.request('list', {});
    const reported = listed.find((s) => s.id === idle[0].id)!;
    assert.deepEqual([reported.cwd, reported.startCwd], [os.tmpdir(), os.homedir()]);

    const letGo = new Promise<void>((resolve) => client.onClose(() => resolve()));
    const answer = await client.request('handoff', {});
    assert.equal(answer.sessions, 20);
    assert.notEqual(answer.pid, daemon.pid);
    // The old daemon lets its clients go once the socket leads to the successor: a reconnect finds it.
    await letGo;
    const next = await HoldfastClient.connect({ socket: daemon.socket, client: 'test', version: 'test' });
    try {
      assert.equal(next.hello.pid, answer.pid);
      await waitFor(() => !isAlive(daemon.pid), 20_000, 'the old daemon to exit');
      const { sessions: after } = await next.request('list', {});
      const pick = (s: SessionInfo) => [
        s.id,
        s.name,
        s.pid,
        s.state,
        s.exit?.code ?? null,
        s.createdAt,
        s.cwd,
        s.startCwd,
      ];
      assert.deepEqual(after.map(pick), listed.map(pick), 'the same sessions, programs and exits');
      for (const session of still) {
        const read: Read = await next.request('read', { session: session.id, scrollback: ALL });
        assert.deepEqual(read, before.get(session.id), `session ${session.name}: screen, history and cursor`);
      }
      const historyLines = before.get(history.id)!.lines;
      assert.ok(historyLines.includes('h1') && historyLines.includes('h10000'), 'the 10k lines were there to compare');

      // The counter goes on in the successor; every line read across the cut, none twice.
      const cutAt = await lastCount(next, flood.id);
      await waitFor(async () => (await lastCount(next, flood.id)) > cutAt + 2000, 30_000, 'the flood to go on');
      const { count, gaps } = counterGaps((await next.request('read', { session: flood.id, scrollback: ALL })).lines);
      assert.deepEqual(gaps, []);
      assert.ok(count > 4000, `the counter read across the cut (${count} lines)`);

      await next.request('send', { session: full.id, data: 'typed after the handoff\n' });
      await textShows(next, full.id, 'typed after the handoff');
    } finally {
      next.close();
    }
  } finally {
    await daemon.stop();
  }
});

test('holdfast upgrade: one line naming both daemons; the session lives on; no daemon is one error line', async () => {
  const box = cliSandbox();
  try {
    await box.ok(['new', '--name', 'kept', '--', 'bash', '-c', 'echo kept-here; exec sleep 1000']);
    const client = await HoldfastClient.connect({ socket: box.socket, client: 'test', version: 'test' });
    const oldPid = client.hello.pid;
    const { sessions: before } = await client.request('list', {});
    client.close();
    const upgraded = await box.run(['upgrade']);
    assert.equal(upgraded.code, 0, upgraded.stderr);
    const match = /^daemon (\d+) → (\d+): 1 session kept\n$/.exec(upgraded.stdout);
    assert.ok(match, upgraded.stdout);
    assert.equal(Number(match[1]), oldPid);
    await waitFor(() => !isAlive(oldPid), 20_000, 'the old daemon to exit');
    // With no client attached nothing changes, yet the successor records the sessions (the old file is gone).
    const recovery = path.join(box.dir, 'state', 'holdfast', 'recovery');
    const ownFile = () => fs.readdirSync(recovery).filter((name) => name.endsWith(`-${match[2]}.json`));
    await waitFor(() => ownFile().length === 1, 20_000, "the successor's checkpoint");
    assert.match(fs.readFileSync(path.join(recovery, ownFile()[0]), 'utf8'), /kept-here|"kept"/);
    const listed = JSON.parse(await box.ok(['list', '--json'])) as { sessions: SessionInfo[] };
    assert.deepEqual(
      listed.sessions.map((s) => [s.id, s.pid, s.state]),
      before.map((s) => [s.id, s.pid, s.state]),
    );
    assert.match(await box.ok(['read', 'kept']), /kept-here/);
    await box.ok(['stop']);
    const nobody = await box.run(['upgrade']);
    assert.equal(nobody.code, 6);
    assert.ok(isOneErrorLine(nobody.stderr), nobody.stderr);
  } finally {
    await box.cleanup();
  }
});

test('an uncaught exception in the daemon hands every session to a successor before it exits', async () => {
  process.env.HOLDFAST_TEST_CRASH_NAME = 'crash';
  const daemon = await startTestDaemon();
  delete process.env.HOLDFAST_TEST_CRASH_NAME;
  try {
    const client = await daemon.connect();
    const letGo = new Promise<void>((resolve) => client.onClose(() => resolve()));
    const argv = ['bash', '-c', 'echo lives-on; exec cat'];
    const { session: kept } = await client.request('create', { name: 'kept', argv });
    await textShows(client, kept.id, 'lives-on');
    await client.request('create', { name: 'crash', argv: ['sleep', '1000'] });
    await letGo;
    const next = await HoldfastClient.connect({ socket: daemon.socket, client: 'test', version: 'test' });
    try {
      assert.notEqual(next.hello.pid, daemon.pid);
      await waitFor(() => !isAlive(daemon.pid), 20_000, 'the crashed daemon to exit');
      const { sessions } = await next.request('list', {});
      assert.deepEqual(
        sessions.map((s) => [s.name, s.state]),
        [
          ['kept', 'running'],
          ['crash', 'running'],
        ],
      );
      assert.equal(sessions[0].pid, kept.pid);
      await next.request('send', { session: kept.id, data: 'after the crash\n' });
      await textShows(next, kept.id, 'after the crash');
    } finally {
      next.close();
    }
  } finally {
    await daemon.stop();
  }
});

test('during a handoff changes are refused (busy), SIGTERM waits for it: then the successor serves', async () => {
  const daemon = await startTestDaemon();
  // The successor: this daemon's script, once the test lets it start; until then the handoff is under way.
  const [started, go, gated] = ['started', 'go', 'gated-successor.js'].map((name) => path.join(daemon.dir, name));
  fs.writeFileSync(
    gated,
    `const fs = require('fs'); fs.writeFileSync(${JSON.stringify(started)}, String(process.pid));\n` +
      `const gate = setInterval(() => { if (fs.existsSync(${JSON.stringify(go)})) ` +
      `{ clearInterval(gate); require(${JSON.stringify(DAEMON_SCRIPT)}); } }, 20);\n`,
  );
  let successor = 0;
  try {
    const client = await daemon.connect();
    const argv = ['bash', '-c', 'echo kept-here; exec cat'];
    const { session } = await client.request('create', { name: 'kept', argv });
    await textShows(client, session.id, 'kept-here');
    const { logFile } = await client.request('status', {});
    const handoff = client.request('handoff', { script: gated });
    handoff.catch(() => undefined); // awaited below: a failure fails the test there
    await waitFor(() => fs.existsSync(started), 20_000, 'the successor to start');

    const other = await daemon.connect();
    const { sessions: listed } = await other.request('list', {});
    // As the daemon answers (requestOnce): request() would ask again once the handoff is done (busyRetry.ts).
    const busy = (method: string) => ({ code: 'busy', message: new RegExp(`handoff .*under way: ${method} refused`) });
    await assert.rejects(other.requestOnce('stop', {}), busy('stop'));
    await assert.rejects(other.requestOnce('handoff', {}), busy('handoff'));
    await assert.rejects(other.requestOnce('create', { name: 'late', argv: ['sleep', '1000'] }), busy('create'));
    await assert.rejects(other.requestOnce('kill', { session: session.id, signal: 'KILL' }), busy('kill'));
    await assert.rejects(other.requestOnce('remove', { session: session.id }), busy('remove'));
    await assert.rejects(other.requestOnce('update', { session: session.id, name: 'renamed' }), busy('update'));
    await assert.rejects(other.requestOnce('resize', { session: session.id, cols: 100, rows: 30 }), busy('resize'));
    // Input written after the cut would not reach the program: refused, not lost.
    await assert.rejects(other.requestOnce('send', { session: session.id, data: 'typed during\n' }), busy('send'));
    // Reads are answered; an owner's attach does not resize the program mid-cut.
    const quiet = { onSnapshot: () => undefined, onOutput: () => undefined };
    const watched = await other.attach({ session: session.id, role: 'owner', cols: 100, rows: 30 }, quiet);
    assert.deepEqual([watched.session.cols, watched.session.rows], [session.cols, session.rows]);
    const pick = (s: SessionInfo) => [s.id, s.name, s.pid, s.state, s.cols, s.rows, s.metadata];
    const { sessions: during } = await other.request('list', {});
    assert.deepEqual(during.map(pick), listed.map(pick), 'nothing changed');
    assert.ok(isAlive(session.pid));
    // A CLI command now waits for the handoff and asks again (busy-retry.test.ts), so none is run here.
    process.kill(daemon.pid, 'SIGTERM');
    const deferred = () => fs.readFileSync(logFile, 'utf8').includes('received SIGTERM: deferred until the handoff');
    await waitFor(deferred, 20_000, 'the daemon to take the SIGTERM in');
    assert.ok(isAlive(session.pid), 'the program is not stopped while it is being handed over');

    fs.writeFileSync(go, '');
    successor = (await handoff).pid;
    await waitFor(() => !isAlive(daemon.pid), 20_000, 'the old daemon to exit');
    const next = await HoldfastClient.connect({ socket: daemon.socket, client: 'test', version: 'test' });
    try {
      assert.equal(next.hello.pid, successor);
      const { sessions } = await next.request('list', {});
      assert.deepEqual(
        sessions.map((s) => [s.id, s.pid, s.state]),
        [[session.id, session.pid, 'running']],
      );
      await next.request('send', { session: session.id, data: 'typed after the handoff\n' });
      await textShows(next, session.id, 'typed after the handoff');
      assert.ok(!(await next.request('read', { session: session.id })).lines.includes('typed during'));
      // Every change refused during the handoff works on the successor.
      await next.request('resize', { session: session.id, cols: 100, rows: 30 });
      await next.request('update', { session: session.id, name: 'renamed' });
      const { session: late } = await next.request('create', { name: 'late', argv: ['sleep', '1000'] });
      await next.request('kill', { session: session.id, signal: 'KILL' });
      await next.request('remove', { session: session.id });
      const { sessions: after } = await next.request('list', {});
      assert.deepEqual(
        after.map((s) => [s.id, s.name, s.state]),
        [[late.id, 'late', 'running']],
      );
      await next.request('kill', { session: late.id, signal: 'KILL', remove: true });
    } finally {
      next.close();
    }
  } finally {
    if (successor && isAlive(successor)) {
      process.kill(successor, 'SIGTERM');
      await waitFor(() => !isAlive(successor), 20_000, 'the successor to stop');
    }
    await daemon.stop();
  }
});

test('a crash whose handoff fails: the daemon carries on with every session; the next is not handed off', async () => {
  // A daemon run from a copy whose script is then removed: its successor cannot start.
  const dir = tempDir('hf-crash-');
  const dist = path.join(dir, 'dist');
  fs.mkdirSync(dist);
  for (const file of DAEMON_BUNDLES)
    fs.copyFileSync(path.join(path.dirname(DAEMON_SCRIPT), file), path.join(dist, file));
  const modules = path.join(ROOT, 'node_modules');
  const env: NodeJS.ProcessEnv = { ...isolatedEnv(dir), NODE_PATH: modules, HOLDFAST_TEST_CRASH_NAME: 'crash' };
  const socket = env.HOLDFAST_SOCKET!;
  const ready = await startDaemon({ socket, daemonScript: path.join(dist, 'daemon.js'), env, args: ['--persistent'] });
  assert.ok('pid' in ready);
  fs.rmSync(path.join(dist, 'daemon.js'));
  const daemon = { env, pid: ready.pid };
  const client = await HoldfastClient.connect({ socket, client: 'test', version: 'test' });
  try {
    const { session: kept } = await client.request('create', { name: 'kept', argv: ['bash', '-c', 'exec cat'] });
    await client.request('create', { name: 'crash', argv: ['sleep', '1000'] });
    await waitFor(() => /the handoff after the crash failed/.test(daemonLog(env)), 30_000, 'the failed handoff');
    await client.request('send', { session: kept.id, data: 'after the crash\n' });
    await textShows(client, kept.id, 'after the crash');
    assert.equal(client.hello.pid, ready.pid, 'the same daemon, the same connection');
    await client.request('create', { name: 'crash', argv: ['sleep', '1000'] });
    await waitFor(() => /not handed off again/.test(daemonLog(env)), 30_000, 'the second crash');
    const log = await daemonLogNow(daemon);
    assert.equal(log.match(/handing off every session to a successor \(a crash\)/g)?.length, 1, log);
    const { sessions } = await client.request('list', {});
    assert.deepEqual(
      sessions.map((s) => s.state),
      ['running', 'running', 'running'],
    );
  } finally {
    client.close();
    await stopDaemonPid(ready.pid);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
