// Security: hostile requests from an authenticated client (a compromised tool of the user's own, a
// confused script) cannot stall the daemon, bloat it, or slip past its checks. Each test is named
// after what it got before the fix.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { type HoldfastClient, RequestError } from '../src/client/client';
import { startTestDaemon, type TestDaemon, waitForText } from './helpers/daemon';
import { record, rssMiB } from './helpers/reliability';

async function withDaemon(fn: (daemon: TestDaemon, client: HoldfastClient) => Promise<void>): Promise<void> {
  const daemon = await startTestDaemon();
  try {
    await fn(daemon, await daemon.connect());
  } finally {
    await daemon.stop();
  }
}

/** The request fails with `code` and a message matching `message`. */
async function refusedWith(request: Promise<unknown>, code: string, message: RegExp): Promise<string> {
  try {
    await request;
  } catch (err) {
    assert.ok(err instanceof RequestError, String(err));
    assert.equal(err.code, code, err.message);
    assert.match(err.message, message);
    return err.message;
  }
  assert.fail(`expected a ${code} error`);
}

test("regression: a backtracking pattern in wait froze the daemon (^(a+)+$ on 34 a's took 129 s)", async () => {
  await withDaemon(async (daemon, client) => {
    const { session } = await client.request('create', {
      argv: ['sh', '-c', `printf '${'a'.repeat(34)}!\\n'; exec sleep 60`],
    });
    await waitForText(client, session.id, '^a+!$', 10_000);
    const other = await daemon.connect('other');
    const started = Date.now();
    const evil = waitForText(client, session.id, '^(a+)+$', 1500);
    const listed = await other.request('list', {});
    const listMs = Date.now() - started;
    assert.equal(listed.sessions.length, 1);
    assert.ok(listMs < 1000, `another client was answered in ${listMs} ms`);
    assert.equal((await evil).met, false);
    record({
      item: 'hostile',
      name: "wait --for text:^(a+)+$ on a line of 34 a's",
      value: `no match after its 1.5 s timeout; another client answered in ${listMs} ms (was: daemon frozen 129 s)`,
      bound: '< 1000 ms',
    });
    await refusedWith(waitForText(client, session.id, '(a)\\1'), 'bad-request', /RE2 syntax.*no backreferences/);
    await refusedWith(
      client.request('wait', { session: session.id, condition: { kind: 'text', pattern: 'x'.repeat(5000) } }),
      'bad-request',
      /at most 4096/,
    );
  });
});

test('regression: wait matched the whole scrollback but the docs said the screen; history is on request', async () => {
  await withDaemon(async (_daemon, client) => {
    const { session } = await client.request('create', {
      argv: ['sh', '-c', 'echo MARKER-IN-HISTORY; seq 1 100; exec sleep 60'],
      rows: 24,
    });
    await waitForText(client, session.id, '^100$', 10_000);
    const screenOnly = await waitForText(client, session.id, '^MARKER-IN-HISTORY$', 300);
    assert.equal(screenOnly.met, false, 'the marker scrolled off the screen');
    const withHistory = await client.request('wait', {
      session: session.id,
      condition: { kind: 'text', pattern: '^MARKER-IN-HISTORY$', history: true },
      timeoutMs: 5000,
    });
    assert.equal(withHistory.met, true);
  });
});

test('regression: cols 10000 x rows 10000 took the daemon to 1.3 GB; sizes and scrollback are bounded', async () => {
  await withDaemon(async (daemon, client) => {
    await refusedWith(
      client.request('create', { argv: ['cat'], cols: 10_000, rows: 10_000 }),
      'bad-request',
      /cols must be an integer from 1 to 1000/,
    );
    await refusedWith(
      client.request('create', { argv: ['cat'], cols: 1000, rows: 500 }),
      'bad-request',
      /at most 200000 cells/,
    );
    const { session } = await client.request('create', { argv: ['cat'], cols: 100, rows: 30, scrollback: 200_000 });
    await refusedWith(
      client.request('resize', { session: session.id, cols: 10_000, rows: 10_000 }),
      'bad-request',
      /cols must be/,
    );
    await refusedWith(
      client.request('attach', { session: session.id, channel: 1, role: 'owner', cols: 5000, rows: 10 }),
      'bad-request',
      /cols must be/,
    );
    // Widening the screen keeps fewer lines, not more memory: 10M cells / 1000 columns.
    await client.request('resize', { session: session.id, cols: 1000, rows: 100 });
    await client.request('send', { session: session.id, data: 'x'.repeat(900) + '\n' });
    const rss = rssMiB(daemon.pid);
    assert.ok(rss < 400, `daemon RSS ${rss.toFixed(0)} MiB`);
    record({
      item: 'hostile',
      name: 'create/resize/attach with cols 10000 x rows 10000',
      value:
        'refused (bad-request: at most 1000 x 500 and 200,000 cells); ' +
        `a 1000-column screen keeps at most 10,000 scrollback lines; daemon RSS ${rss.toFixed(0)} MiB`,
      bound: '< 400 MiB',
    });
  });
});

test('regression: a 1 MB name and a name with a newline were accepted; a 400 KB title made list as big', async () => {
  await withDaemon(async (_daemon, client) => {
    // (10 MB is past the request bound itself, 8 MiB: refused before parsing, reliability-bounds.)
    await refusedWith(
      client.request('create', { argv: ['cat'], name: 'n'.repeat(1024 * 1024) }),
      'bad-request',
      /name must be at most 256 characters/,
    );
    await refusedWith(
      client.request('create', { argv: ['cat'], name: 'ok\nFAKE LOG LINE' }),
      'bad-request',
      /control characters/,
    );
    const { session } = await client.request('create', {
      argv: [
        'sh',
        '-c',
        // Under the 512 KiB string bound (a longer one is dropped whole: reliability-bounds).
        `printf '\\033]0;%s\\007' "$(head -c 400000 /dev/zero | tr '\\0' t)"; echo titled; exec sleep 60`,
      ],
    });
    await refusedWith(
      client.request('update', { session: session.id, name: 'x'.repeat(300) }),
      'bad-request',
      /at most 256/,
    );
    await waitForText(client, session.id, '^titled$', 60_000);
    const listed = await client.request('list', {});
    const bytes = JSON.stringify(listed).length;
    assert.equal(listed.sessions[0].title.length, 1024);
    assert.ok(bytes < 8192, `list is ${bytes} bytes`);
    record({
      item: 'hostile',
      name: 'a 1 MB name, a name with a newline; a 400 KB OSC 0 title',
      value:
        'names refused (256 characters, no control characters); ' +
        `the title cut to 1,024 characters, list ${bytes} bytes`,
      bound: '< 8 KiB',
    });
  });
});

test(
  'regression: wrong types answered "internal", env and argv slipped past the checks, ' +
    'a missing binary looked running',
  async () => {
    await withDaemon(async (_daemon, client) => {
      const wrong: [string, unknown][] = [
        ['show', { session: 42 }],
        ['create', { argv: 'sh' }],
        ['create', { cols: '80' }],
        ['send', { session: 'x', data: 7 }],
        ['kill', { session: 'x', graceMs: 'soon' }],
        ['wait', { session: 'x', condition: { kind: 'text', pattern: 1 } }],
        ['attach', { session: 'x', channel: 'one', role: 'owner' }],
        ['read', { session: 'x', scrollback: -1 }],
        ['config.set', { key: 3 }],
        ['recovery.inspect', { id: ['a'] }],
        ['update', { session: 'x', metadata: [] }],
      ];
      for (const [method, params] of wrong) {
        await refusedWith(
          client.request(method as 'show', params as { session: string }),
          'bad-request',
          new RegExp(`^${method.replace('.', '\\.')}: `),
        );
      }
      await refusedWith(
        client.request('create', { argv: ['cat'], metadata: [] as unknown as Record<string, unknown> }),
        'bad-request',
        /metadata/,
      );
      // The bound is bytes: 30,000 euro signs are 30,000 characters but 90,000 bytes of JSON.
      await refusedWith(
        client.request('create', { argv: ['cat'], metadata: { note: '\u20ac'.repeat(30_000) } }),
        'bad-request',
        /metadata must be at most 65536 bytes of JSON/,
      );
      await refusedWith(
        client.request('create', { argv: ['env'], env: { 'NODE_OPTIONS=--require=/tmp/x.js': '', A: 'b' } }),
        'bad-request',
        /without "=" or NUL/,
      );
      await refusedWith(client.request('create', { argv: ['env'], env: { A: 'b\u0000c' } }), 'bad-request', /NUL/);
      await refusedWith(client.request('create', { argv: ['echo', 'a\u0000rm -rf'] }), 'bad-request', /argv.*NUL/);
      await refusedWith(
        client.request('create', { argv: ['/no/such/holdfast-binary'] }),
        'bad-request',
        /no such program: \/no\/such\/holdfast-binary/,
      );
      await refusedWith(
        client.request('create', { argv: ['holdfast-no-such-program'] }),
        'bad-request',
        /no such program/,
      );
      await refusedWith(
        client.request('config.set', { key: 'recovery.hasOwnProperty', value: true }),
        'bad-request',
        /unknown config key/,
      );
      assert.equal((await client.request('list', {})).sessions.length, 0, 'nothing was created');
      record({
        item: 'hostile',
        name:
          'wrong types for 11 methods; array metadata; env key "NODE_OPTIONS=..."; ' +
          'NUL in env and argv; a missing binary',
        value: 'each a bad-request naming the field; nothing created',
      });
    });
  },
);

test(
  'regression: a crafted checkpoint with a 10000x10000 screen was restored as it was; ' +
    'the same bounds apply to files',
  async () => {
    await withDaemon(async (daemon, client) => {
      const dir = path.join(daemon.env.XDG_STATE_HOME!, 'holdfast', 'recovery');
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      const saved = {
        id: 'old1',
        name: `evil\x1b]52;c;AAAA\x07${'n'.repeat(1000)}`,
        cwd: '/',
        cols: 10_000,
        rows: 10_000,
        title: 't',
        createdAt: 1,
        running: true,
        exit: null,
        metadata: {},
      };
      const file = {
        version: 1,
        id: 'crafted',
        writtenAt: Date.now(),
        daemonPid: 1,
        daemonStartedAt: 1,
        socket: '/nowhere',
        sessions: [saved],
      };
      fs.writeFileSync(path.join(dir, 'checkpoint-crafted.json'), JSON.stringify(file), { mode: 0o600 });
      const { sessions } = await client.request('recovery.restore', { id: 'crafted' });
      assert.equal(sessions.length, 1);
      assert.deepEqual([sessions[0].cols, sessions[0].rows], [1000, 200]);
      assert.equal(sessions[0].name.length, 256);
      assert.doesNotMatch(sessions[0].name, /[\u0000-\u001f]/);
      const rss = rssMiB(daemon.pid);
      assert.ok(rss < 400, `daemon RSS ${rss.toFixed(0)} MiB`);
      record({
        item: 'hostile',
        name: 'a crafted checkpoint: a 10000x10000 screen, a 1 KB name with an OSC 52',
        value: `restored as 1000x200 with a 256-character printable name; daemon RSS ${rss.toFixed(0)} MiB`,
        bound: '< 400 MiB',
      });
    });
  },
);

test('regression: wait with a short timeout and a bad pattern answered met: false, not bad-request', async () => {
  await withDaemon(async (_daemon, client) => {
    const { session } = await client.request('create', { argv: ['sleep', '60'] });
    // The daemon's first text job: its worker starts (0.5-3 s here) long after the 100 ms are up.
    const condition = { kind: 'text' as const, pattern: '(a' };
    const started = Date.now();
    const message = await refusedWith(
      client.request('wait', { session: session.id, condition, timeoutMs: 100 }),
      'bad-request',
      /bad pattern/,
    );
    const answeredMs = Date.now() - started;
    // A valid pattern still times out as asked, now that the worker is up.
    const valid = await client.request('wait', {
      session: session.id,
      condition: { kind: 'text', pattern: 'never-there' },
      timeoutMs: 100,
    });
    assert.equal(valid.met, false);
    record({
      item: 'hostile',
      name: 'wait --for text:"(a" --timeout 100ms, on a daemon whose text worker is not started yet',
      value: `bad-request after ${answeredMs} ms ("${message.slice(0, 60)}…") (was: met: false)`,
    });
  });
});
