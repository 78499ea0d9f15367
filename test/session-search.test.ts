// `search` and `holdfast grep` on real daemons with real PTYs: a line deep in the history with its
// context, limit and truncated, bad and catastrophic-looking patterns, archived sessions' saved
// screens, and grep's output and exit codes.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { HoldfastClient } from '../src/client/client';
import { startDaemon } from '../src/client/launch';
import type { SearchResult } from '../src/protocol/messages';
import {
  DAEMON_SCRIPT,
  isAlive,
  isolatedEnv,
  startTestDaemon,
  tempDir,
  type TestDaemon,
  waitFor,
  waitForText,
} from './helpers/daemon';
import { runCli } from './helpers/cli';

const cli = runCli;

describe('search over live sessions', () => {
  let daemon: TestDaemon;
  let client: HoldfastClient;
  let deep: string;
  before(async () => {
    daemon = await startTestDaemon();
    client = await daemon.connect();
    const { session } = await client.request('create', {
      name: 'deep',
      argv: ['sh', '-c', 'echo ctx-before; echo MARKER-deep-7; seq 1 5000; exec sleep 1000'],
      cols: 80,
      rows: 24,
    });
    deep = session.id;
    await waitForText(client, deep, '^5000$', 10_000);
    // Quiet: the emulator moves the scrollback into the history store, which search must read too.
    await client.request('wait', { session: deep, condition: { kind: 'idle', ms: 2100 }, timeoutMs: 10_000 });
  });
  after(async () => {
    await daemon.stop();
    fs.rmSync(daemon.dir, { recursive: true, force: true });
  });

  test('a marker 5,000 lines before the end is found with its line and context', async () => {
    const { matches, truncated, linesSearched } = await client.request('search', {
      pattern: 'MARKER-deep-\\d',
      context: 2,
    });
    assert.equal(truncated, false);
    assert.equal(matches.length, 1);
    const [m] = matches;
    assert.deepEqual(
      [m.session, m.name, m.line, m.text, m.before, m.after],
      [deep, 'deep', 1, 'MARKER-deep-7', ['ctx-before'], ['1', '2']],
    );
    // The same numbering as `read` with all the scrollback.
    const { lines } = await client.request('read', { session: deep, scrollback: Number.MAX_SAFE_INTEGER });
    assert.equal(lines[m.line], 'MARKER-deep-7');
    assert.equal(lines[m.line + 5000], '5000');
    assert.equal(linesSearched, lines.length, 'every line of the one session, counted');
  });

  test('limit cuts the matches and says so; session narrows the search', async () => {
    const some = await client.request('search', { pattern: '^\\d+$', limit: 10, session: 'deep' });
    assert.equal(some.truncated, true);
    assert.deepEqual(
      some.matches.map((m) => [m.line, m.text]),
      Array.from({ length: 10 }, (_, i) => [i + 2, String(i + 1)]),
    );
    const all = await client.request('search', { pattern: '^\\d+$', limit: 5000 });
    assert.deepEqual([all.matches.length, all.truncated], [5000, false]);
    await assert.rejects(client.request('search', { pattern: 'x', session: 'nobody' }), /no session|nobody/);
  });

  test('a bad pattern is a bad-request that names the problem', async () => {
    await assert.rejects(client.request('search', { pattern: 'a(b' }), /search: bad pattern.*missing/i);
    await assert.rejects(client.request('search', { pattern: 'x', flags: 'q' }), /unknown flag "q"/);
    await assert.rejects(client.request('search', { pattern: '' }), /pattern/);
  });

  test('a catastrophic-looking pattern over thousands of near-matches is fast', async () => {
    const { session } = await client.request('create', {
      name: 'aaa',
      argv: ['sh', '-c', 'yes aaaaaaaaaaaaaaaaaaaaaaaaaaaaab | head -n 3000; echo done-aaa; exec sleep 1000'],
    });
    await waitForText(client, session.id, 'done-aaa', 20_000);
    const started = Date.now();
    const { matches } = await client.request('search', { pattern: '^(a+)+$' });
    assert.deepEqual(matches, []);
    assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
  });

  test('holdfast grep: grep-like lines, context groups, exit codes, --json', async () => {
    const env = { ...daemon.env };
    delete env.HOLDFAST_SESSION;
    const found = await cli(env, ['grep', 'marker-DEEP', '--ignore-case', '--context', '1', '--session', 'deep']);
    assert.equal(found.code, 0, found.stderr);
    assert.equal(found.stdout, 'deep-1- ctx-before\ndeep:2: MARKER-deep-7\ndeep-3- 1\n');
    const grouped = await cli(env, ['grep', '^(10|12)$', '--context', '1', '--session', 'deep']);
    // Overlapping context is one group; groups apart are separated by --.
    assert.equal(grouped.stdout, 'deep-11- 9\ndeep:12: 10\ndeep-13- 11\ndeep:14: 12\ndeep-15- 13\n');
    const apart = await cli(env, ['grep', '^(10|20)$', '--context', '1', '--session', 'deep']);
    assert.equal(apart.stdout, 'deep-11- 9\ndeep:12: 10\ndeep-13- 11\n--\ndeep-21- 19\ndeep:22: 20\ndeep-23- 21\n');
    const none = await cli(env, ['grep', 'no such text anywhere']);
    assert.deepEqual([none.code, none.stdout], [1, '']);
    const json = await cli(env, ['grep', 'MARKER-deep', '--json']);
    assert.equal(json.code, 0);
    const result = JSON.parse(json.stdout) as SearchResult;
    assert.deepEqual([result.matches[0].line, result.truncated], [1, false]);
    const limited = await cli(env, ['grep', '^\\d+$', '--limit', '3']);
    assert.equal(limited.code, 0);
    assert.equal(limited.stdout.split('\n').length - 1, 3);
    assert.match(limited.stderr, /stopped at 3 matches/);
    const bad = await cli(env, ['grep', 'a(b']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^holdfast: invalid regular expression: bad pattern/);
  });
});

test("an archived session's saved screen is searched", async () => {
  const dir = tempDir('hf-search-');
  const env = isolatedEnv(dir);
  fs.mkdirSync(path.join(env.XDG_CONFIG_HOME!, 'holdfast'), { recursive: true });
  fs.writeFileSync(
    path.join(env.XDG_CONFIG_HOME!, 'holdfast', 'config.json'),
    JSON.stringify({ recovery: { screenText: true } }),
  );
  const socket = env.HOLDFAST_SOCKET!;
  const start = async () => {
    const ready = await startDaemon({ socket, daemonScript: DAEMON_SCRIPT, env, args: ['--persistent'] });
    if (!('pid' in ready)) throw new Error('daemon did not start');
    return { pid: ready.pid, client: await HoldfastClient.connect({ socket, client: 'test', version: 'test' }) };
  };
  const first = await start();
  const { session } = await first.client.request('create', {
    name: 'old-run',
    argv: ['sh', '-c', 'echo ARCHIVED-needle; exec sleep 1000'],
  });
  await waitForText(first.client, session.id, 'ARCHIVED-needle', 5000);
  await first.client.request('recovery.checkpoint', {});
  first.client.close();
  process.kill(first.pid, 'SIGKILL');
  await waitFor(() => !isAlive(first.pid), 5000, 'the first daemon to die');

  const second = await start();
  try {
    const [offered] = (await second.client.request('recovery.list', {})).checkpoints;
    const [archived] = (await second.client.request('recovery.restore', { id: offered.id })).sessions;
    await second.client.request('wait', { session: archived.id, condition: { kind: 'exit' }, timeoutMs: 5000 });
    const { matches } = await second.client.request('search', { pattern: 'ARCHIVED-needle' });
    assert.deepEqual(
      matches.map((m) => [m.session, m.name, m.text]),
      [[archived.id, 'old-run', 'ARCHIVED-needle']],
    );
    const printed = await cli(env, ['grep', 'ARCHIVED-needle']);
    assert.deepEqual([printed.code, printed.stdout], [0, 'old-run:1: ARCHIVED-needle\n']);
  } finally {
    second.client.close();
    process.kill(second.pid, 'SIGTERM');
    await waitFor(() => !isAlive(second.pid), 10_000, 'the second daemon to stop');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
