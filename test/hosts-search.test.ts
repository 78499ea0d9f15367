// Search and MCP across hosts, with a real sshd on loopback: `grep --all-hosts` finds a line on this machine and on
// the remote, each naming its host, and a mute host costs its timeout and one line; `holdfast mcp` (a real MCP client)
// lists and searches both hosts with "@HOST/ID" sessions, and a scope naming a remote session reaches no local one,
// nor one naming a local session a remote one.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type CliSandbox, CLI_SCRIPT, isOneErrorLine, waitFor } from './helpers/cli';
import { HoldfastClient } from '../src/client/client';
import { connectOptions } from '../src/client/clientOptions';
import { searchEveryHost } from '../src/extension/hostSearch';
import { RemoteHosts } from '../src/extension/remoteHosts';
import { sshLink } from '../src/link/daemonLink';
import { remoteSearchResult } from '../src/link/remoteSearch';
import { Rights } from '../src/mcp/mcpRights';
import { record } from './helpers/reliability';
import { sessionInfo } from './helpers/sessionInfo';
import { BASH, hostsSandbox, REMOTE, type SshServer, startSshServer } from './helpers/sshd';

const MUTE_MS = 1500;
const quiet = { info: () => undefined, warn: () => undefined };
let box: CliSandbox;
let sshd: SshServer;
const ids: Record<string, string> = {};

before(async () => {
  sshd = await startSshServer();
  box = hostsSandbox(sshd, [
    { target: REMOTE, name: 'remote' },
    // A far end that never answers, through the real sshd.
    { target: REMOTE, name: 'mute', command: 'read x #', timeoutMs: MUTE_MS },
  ]);
  const start = async (host: string, name: string) => {
    ids[`${host}/${name}`] = (await box.ok(['--host', host, 'new', '--name', name, ...BASH])).trim();
    await box.ok(['--host', host, 'send', name, '--text', `echo needle-$((6*7))-${name}`, '--enter']);
    await box.ok(['--host', host, 'wait', name, '--for', `text:^needle-42-${name}$`, '--timeout-ms', '20000']);
  };
  await start('local', 'near');
  // A session of this machine whose name is a remote session's key: a scope of "@remote/far" must not reach it.
  await start('local', '@remote/far');
  await start('remote', 'far');
  await start('remote', 'other');
});
after(async () => {
  await box?.cleanup();
  await sshd?.stop();
});

test('grep --all-hosts: the line on both machines, each led by its host; a mute host one line after', async () => {
  const started = Date.now();
  const result = await box.run(['grep', '--all-hosts', '^needle-42-(near|far)$'], { timeoutMs: 30_000 });
  const ms = Date.now() - started;
  assert.equal(result.code, 1, 'a failing host makes the exit 1');
  const lines = result.stdout.trimEnd().split('\n');
  assert.match(result.stdout, /^local:near:\d+: needle-42-near$/m);
  assert.match(result.stdout, /^remote:far:\d+: needle-42-far$/m);
  assert.match(lines.at(-1)!, new RegExp(`^mute: .*did not answer (the handshake )?within ${MUTE_MS} ms$`));
  assert.equal(lines.filter((l) => l.startsWith('mute')).length, 1, result.stdout);
  assert.match(result.stderr, /1 of 3 hosts failed/);
  assert.ok(ms < 15_000, `${ms} ms`);
  record({
    item: 'hostile',
    name: 'a host whose far end never answers, in `grep --all-hosts` (over a real sshd)',
    value: `the other hosts' matches, then one line (no answer within its ${MUTE_MS} ms timeoutMs) after ${ms} ms`,
    bound: '< 15000 ms',
  });

  const json = JSON.parse((await box.run(['grep', '--all-hosts', '^needle-42-', '--json'])).stdout) as {
    matches: { host: string; session: string; name: string; text: string }[];
    failed: { host: string; error: string }[];
  };
  assert.deepEqual(
    json.matches.map((m) => [m.host, m.session, m.text]).sort(),
    [
      ['local', ids['local/@remote/far'], 'needle-42-@remote/far'],
      ['local', ids['local/near'], 'needle-42-near'],
      ['remote', ids['remote/far'], 'needle-42-far'],
      ['remote', ids['remote/other'], 'needle-42-other'],
    ].sort(),
  );
  assert.deepEqual(
    json.failed.map((f) => f.host),
    ['mute'],
  );
});

test('grep --all-hosts refuses --host and --session in one line', async () => {
  for (const args of [
    ['--host', 'remote', 'grep', '--all-hosts', 'x'],
    ['grep', '--all-hosts', '--session', 'near', 'x'],
  ]) {
    const result = await box.run(args);
    assert.equal(result.code, 2, result.stderr);
    assert.ok(isOneErrorLine(result.stderr), result.stderr);
  }
});

async function mcp(args: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_SCRIPT, 'mcp', ...args],
    env: box.env as Record<string, string>,
    cwd: box.dir,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'holdfast-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as CallToolResult;
}

function structured<T>(result: CallToolResult): T {
  assert.equal(result.isError, undefined, JSON.stringify(result.content));
  return result.structuredContent as T;
}

interface Listed {
  sessions: { id: string; name: string; host?: string }[];
  unreachable?: { host: string; error: string }[];
}
interface Searched {
  matches: { session: string; host?: string; text: string }[];
  unreachable?: { host: string; error: string }[];
}

const far = () => `@remote/${ids['remote/far']}`;
const USE = '(list_sessions shows the sessions you can use)';

test('mcp list_sessions and search_history name both hosts; a remote session is read by "@HOST/ID"', async () => {
  const client = await mcp();
  try {
    const started = Date.now();
    const listed = structured<Listed>(await call(client, 'list_sessions', {}));
    const ms = Date.now() - started;
    assert.deepEqual(
      listed.sessions.map((s) => [s.id, s.name, s.host]),
      [
        [ids['local/near'], 'near', undefined],
        [ids['local/@remote/far'], '@remote/far', undefined],
        [far(), 'far', 'remote'],
        [`@remote/${ids['remote/other']}`, 'other', 'remote'],
      ],
    );
    assert.deepEqual(
      listed.unreachable?.map((u) => u.host),
      ['mute'],
    );
    assert.match(listed.unreachable[0].error, new RegExp(`did not answer (the handshake )?within ${MUTE_MS} ms`));
    assert.ok(ms < 15_000, `${ms} ms`);

    const found = structured<Searched>(await call(client, 'search_history', { pattern: '^needle-42-(near|far)$' }));
    assert.deepEqual(
      found.matches.map((m) => [m.session, m.host, m.text]),
      [
        [ids['local/near'], undefined, 'needle-42-near'],
        [far(), 'remote', 'needle-42-far'],
      ],
    );
    // By id and by name on the host; the answer names it by its key.
    const screen = structured<{ session: string; lines: string[] }>(
      await call(client, 'read_screen', { session: '@remote/far' }),
    );
    assert.equal(screen.session, far());
    assert.ok(screen.lines.includes('needle-42-far'), screen.lines.join('\n'));
    const one = structured<Searched>(await call(client, 'search_history', { session: far(), pattern: 'needle' }));
    assert.ok(one.matches.length > 0 && one.matches.every((m) => m.session === far()));
    // A host that is not configured is refused as a session that does not exist.
    const unknown = await call(client, 'read_screen', { session: '@elsewhere/far' });
    assert.equal(unknown.isError, true);
    assert.match((unknown.content[0] as { text: string }).text, /^no session "@elsewhere\/far"/);
  } finally {
    await client.close();
  }
});

test('a scope naming a remote session reaches no local one; one naming a local session no remote one', async () => {
  const remoteOnly = await mcp(['--sessions', '@remote/far']);
  try {
    const started = Date.now();
    const listed = structured<Listed>(await call(remoteOnly, 'list_sessions', {}));
    assert.deepEqual(
      listed.sessions.map((s) => s.id),
      [far()],
      'not the local session named "@remote/far", not remote/other',
    );
    assert.equal(listed.unreachable, undefined, 'a host the scope names nothing of is not asked');
    assert.ok(Date.now() - started < MUTE_MS * 4);
    const found = structured<Searched>(await call(remoteOnly, 'search_history', { pattern: '^needle-42-' }));
    assert.deepEqual(
      found.matches.map((m) => m.text),
      ['needle-42-far'],
    );
    for (const session of ['near', ids['local/near'], `@remote/${ids['remote/other']}`, '@remote/other']) {
      const refused = await call(remoteOnly, 'send', { session, text: 'echo no', enter: true });
      assert.equal(refused.isError, true, session);
      assert.equal((refused.content[0] as { text: string }).text, `no session "${session}" ${USE}`);
    }
    structured(await call(remoteOnly, 'send', { session: far(), text: 'echo scoped-$((7*7))', enter: true }));
    const met = structured<{ met: boolean }>(
      await call(remoteOnly, 'wait', { session: far(), for: 'text', pattern: '^scoped-49$', timeoutMs: 20_000 }),
    );
    assert.equal(met.met, true);
  } finally {
    await remoteOnly.close();
  }
  record({
    item: 'hostile',
    name:
      'holdfast mcp --sessions @remote/far beside a local session named "@remote/far"; ' +
      '--sessions near asked for a remote session',
    value:
      'the remote session alone listed, searched and typed into; local ones refused as no session; ' +
      'the other way the host is never asked',
  });

  const localOnly = await mcp(['--sessions', 'near']);
  try {
    const listed = structured<Listed>(await call(localOnly, 'list_sessions', {}));
    assert.deepEqual(
      listed.sessions.map((s) => s.id),
      [ids['local/near']],
    );
    assert.equal(listed.unreachable, undefined);
    for (const session of [far(), '@remote/far', '@remote/other']) {
      const refused = await call(localOnly, 'read_screen', { session });
      assert.equal(refused.isError, true, session);
      assert.equal((refused.content[0] as { text: string }).text, `no session "${session}" ${USE}`);
    }
  } finally {
    await localOnly.close();
  }
});

test('mcp --sessions naming a host that is not configured is refused at start in one line', async () => {
  const result = await box.run(['mcp', '--sessions', '@nowhere/x']);
  assert.equal(result.code, 2);
  assert.ok(isOneErrorLine(result.stderr), result.stderr);
  assert.match(result.stderr, /--sessions @nowhere\/x: no host "nowhere" in /);
});

test("a host's search answer is checked: forged matches are dropped, at most the limit is kept", () => {
  const good = { session: 'ab12cd34', name: 'far', line: 3, text: 'hit', before: [], after: ['next'] };
  const result = remoteSearchResult(
    {
      matches: [
        good,
        { ...good, session: '../../etc' },
        { ...good, line: -1 },
        { ...good, before: 'not a list' },
        { ...good, text: 'x'.repeat(70_000) },
        { ...good, source: 'elsewhere' },
        null,
        { ...good, line: 4 },
        { ...good, line: 5 },
      ],
      truncated: 'yes',
      linesSearched: -5,
      skippedTranscripts: [{ session: 'ab12cd34', why: 1 }],
    },
    2,
  );
  assert.deepEqual(result, { matches: [good, { ...good, line: 4 }], truncated: true });
  assert.deepEqual(remoteSearchResult('a string', 10), { matches: [], truncated: false });
  record({
    item: 'hostile',
    name:
      "a host's search answer with forged matches (an id that is a path, a negative line, " +
      'a 70,000-character line, more than asked)',
    value: 'dropped match by match, at most the limit asked kept; the rest is program text as a local match',
  });
});

test("Search Sessions' search spans the window's hosts: matches named by host, a failing host its line", async () => {
  const remotes = new RemoteHosts({ link: (entry) => sshLink(entry, box.env, 'extension'), log: quiet });
  const local = await HoldfastClient.connect(connectOptions(box.socket, box.env));
  try {
    remotes.update([
      { target: REMOTE, name: 'remote' },
      { target: REMOTE, name: 'mute', command: 'read x #', timeoutMs: MUTE_MS },
    ]);
    await waitFor(() => remotes.get('remote')?.connection.client !== undefined, 60_000, 'the remote to connect');
    await waitFor(() => remotes.get('mute')?.connection.state.kind === 'failed', 60_000, 'the mute host to fail');
    const params = { pattern: '^needle-42-(near|far)$', context: 1, limit: 50 };
    const answers = await Promise.all(searchEveryHost(() => Promise.resolve(local), remotes.all, params));
    assert.deepEqual(
      answers.map((a) => [a.host, a.value?.matches.map((m) => [m.session, m.text]), a.error !== undefined]),
      [
        ['local', [[ids['local/near'], 'needle-42-near']], false],
        ['remote', [[ids['remote/far'], 'needle-42-far']], false],
        ['mute', undefined, true],
      ],
    );
    assert.match(answers[2].error!, new RegExp(`did not answer the handshake within ${MUTE_MS} ms`));
  } finally {
    local.close();
    remotes.dispose();
  }
});

test("a host's credential names the scope's sessions of that host alone; this machine's none of a host's", () => {
  const rights = new Rights({ readOnly: false, sessions: ['near', '@remote/far', '@other/far'], cwd: box.dir });
  const list = [
    sessionInfo('aaaa0001', { name: 'far' }),
    sessionInfo('aaaa0002', { name: 'near' }),
    sessionInfo('aaaa0003', { name: '@remote/far' }),
  ];
  assert.deepEqual(rights.credentialSessions(list, false), ['aaaa0002']);
  assert.deepEqual(rights.forHost('remote').credentialSessions(list, false), ['aaaa0001']);
  assert.equal(rights.forHost('elsewhere').reachesNothing, true);
  assert.equal(new Rights({ readOnly: true, sessions: undefined, cwd: box.dir }).forHost('x').reachesNothing, false);
});
