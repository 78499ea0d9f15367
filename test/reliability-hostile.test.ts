// Security: hostile requests from an authenticated client (a compromised tool of the user's own, a
// confused script) cannot stall the daemon, bloat it, or slip past its checks. Each test is named
// after what it got before the fix.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HoldfastClient, RequestError } from '../src/protocol/client';
import { startTestDaemon, TestDaemon } from './helpers/daemon';
import { record } from './helpers/reliability';

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

test('regression: a backtracking pattern in wait froze the daemon (^(a+)+$ on 34 a\'s took 129 s)', async () => {
  await withDaemon(async (daemon, client) => {
    const { session } = await client.request('create', { argv: ['sh', '-c', `printf '${'a'.repeat(34)}!\\n'; exec sleep 60`] });
    await client.request('wait', { session: session.id, condition: { kind: 'text', pattern: '^a+!$' }, timeoutMs: 10_000 });
    const other = await daemon.connect('other');
    const started = Date.now();
    const evil = client.request('wait', { session: session.id, condition: { kind: 'text', pattern: '^(a+)+$' }, timeoutMs: 1500 });
    const listed = await other.request('list', {});
    const listMs = Date.now() - started;
    assert.equal(listed.sessions.length, 1);
    assert.ok(listMs < 1000, `another client was answered in ${listMs} ms`);
    assert.equal((await evil).met, false);
    record({ item: 'hostile', name: 'wait --for text:^(a+)+$ on a line of 34 a\'s', value: `no match after its 1.5 s timeout; another client answered in ${listMs} ms (was: daemon frozen 129 s)`, bound: '< 1000 ms' });
    await refusedWith(client.request('wait', { session: session.id, condition: { kind: 'text', pattern: '(a)\\1' } }), 'bad-request', /RE2 syntax.*no backreferences/);
    await refusedWith(client.request('wait', { session: session.id, condition: { kind: 'text', pattern: 'x'.repeat(5000) } }), 'bad-request', /at most 4096/);
  });
});

test('regression: wait matched the whole scrollback while the docs said the screen; history is on request', async () => {
  await withDaemon(async (_daemon, client) => {
    const { session } = await client.request('create', { argv: ['sh', '-c', 'echo MARKER-IN-HISTORY; seq 1 100; exec sleep 60'], rows: 24 });
    await client.request('wait', { session: session.id, condition: { kind: 'text', pattern: '^100$' }, timeoutMs: 10_000 });
    const screenOnly = await client.request('wait', { session: session.id, condition: { kind: 'text', pattern: '^MARKER-IN-HISTORY$' }, timeoutMs: 300 });
    assert.equal(screenOnly.met, false, 'the marker scrolled off the screen');
    const withHistory = await client.request('wait', { session: session.id, condition: { kind: 'text', pattern: '^MARKER-IN-HISTORY$', history: true }, timeoutMs: 5000 });
    assert.equal(withHistory.met, true);
  });
});
