// What a connection may do (src/daemon/clients/connectionRights.ts): the token file gives full rights; a
// credential from `grant` gives read-only and/or a set of sessions, checked by the daemon on every
// request, and the sessions it starts carry it (HOLDFAST_TOKEN) so `holdfast` run inside them is scoped too.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { GrantLimit } from '../src/daemon/clients/connectionRights';
import { HoldfastClient, RequestError } from '../src/client/client';
import type { DaemonEvent, GrantParams, SessionInfo } from '../src/protocol/messages';
import { CLI_SCRIPT, startTestDaemon, type TestDaemon, waitFor } from './helpers/daemon';
import { record } from './helpers/reliability';

const SHELL = ['bash', '--norc', '--noprofile'];

/** Resolves with the error code a rejected request carries. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof RequestError, String(err));
    assert.doesNotMatch(err.message, /\n/, 'one line');
    return err.code;
  }
  assert.fail('should have been refused');
}

describe('connection rights', () => {
  let daemon: TestDaemon;
  let control: HoldfastClient;
  let mine: SessionInfo;
  let other: SessionInfo;
  const opened: HoldfastClient[] = [];
  const mcpClients: Client[] = [];

  async function withCredential(credential: string): Promise<HoldfastClient> {
    const client = await HoldfastClient.connect({ socket: daemon.socket, client: 'test', version: 'test', credential });
    opened.push(client);
    return client;
  }

  async function scoped(params: GrantParams, via = control): Promise<HoldfastClient> {
    return withCredential((await via.request('grant', params)).credential);
  }

  /** An MCP client of `holdfast mcp ARGS` run with the daemon's environment and `env`. */
  async function mcpServer(args: string[], env: Record<string, string>, cwd = daemon.dir): Promise<Client> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI_SCRIPT, 'mcp', ...args],
      env: { ...(daemon.env as Record<string, string>), ...env },
      cwd,
      stderr: 'pipe',
    });
    const mcp = new Client({ name: 'holdfast-test', version: '1.0.0' });
    await mcp.connect(transport);
    mcpClients.push(mcp);
    return mcp;
  }

  const names = async (client: HoldfastClient) => (await client.request('list', {})).sessions.map((s) => s.name).sort();

  before(async () => {
    daemon = await startTestDaemon();
    control = await daemon.connect();
    const env = { PS1: 'ready> ' };
    mine = (await control.request('create', { name: 'mine', argv: SHELL, cwd: daemon.dir, env })).session;
    other = (await control.request('create', { name: 'other', argv: SHELL, cwd: daemon.dir, env })).session;
    for (const s of [mine, other])
      await control.request('wait', { session: s.id, condition: { kind: 'text', pattern: '^ready> $' } });
  });
  after(async () => {
    await Promise.all(mcpClients.map((c) => c.close()));
    for (const c of opened) c.close();
    await daemon.stop();
  });

  test('regression: what `holdfast mcp --sessions s` started could send to any session and list them all', async () => {
    const mcp = await mcpServer(['--sessions', 'mine'], { HOLDFAST_SESSION: mine.id });
    const out = (name: string) => path.join(daemon.dir, name);
    const cli = `"${process.execPath}" "${CLI_SCRIPT}"`;
    const script =
      `${cli} send other --text 'echo PWNED' --enter 2>${out('send.err')}; echo $? >${out('send.code')}; ` +
      `${cli} list --json >${out('list.json')}`;
    const started = (await mcp.callTool({
      name: 'start_session',
      arguments: { command: ['sh', '-c', script] },
    })) as CallToolResult;
    assert.ok(!started.isError, JSON.stringify(started.content));
    const id = (started.structuredContent as { id: string }).id;
    await control.request('wait', { session: id, condition: { kind: 'exit' } });

    assert.equal(fs.readFileSync(out('send.code'), 'utf8').trim(), '1');
    assert.match(fs.readFileSync(out('send.err'), 'utf8'), /forbidden|not one this connection may use/);
    const { sessions } = JSON.parse(fs.readFileSync(out('list.json'), 'utf8')) as { sessions: SessionInfo[] };
    const listed = sessions.map((s) => s.id).sort();
    // The scope, less the session the server runs in (`mine`): only the session it started.
    assert.deepEqual(listed, [id], 'only the scope');
    // Input is ordered: once this marker is echoed, anything typed before it would have been too.
    await control.request('send', { session: other.id, data: 'echo AFTER""MARK\r' });
    await control.request('wait', { session: other.id, condition: { kind: 'text', pattern: '^AFTERMARK$' } });
    const screen = await control.request('read', { session: other.id });
    assert.ok(!screen.lines.some((l) => l.includes('PWNED')), screen.lines.join('\n'));
    await control.request('remove', { session: id });
    record({
      item: 'hostile',
      name:
        "`holdfast mcp --sessions s`'s start_session running `holdfast send OTHER …` and `holdfast list` " +
        'in the session it started',
      value:
        'send refused (forbidden, exit 1), nothing typed; list shows the scope only (was: ran in OTHER, listed all)',
    });
  });

  test("regression: holdfast mcp's start_session started what could type into the agent's own session", async () => {
    // The agent runs in `mine`; the server refuses its own send there, and what it starts is refused too.
    const mcp = await mcpServer(['--sessions', 'mine'], { HOLDFAST_SESSION: mine.id });
    const out = (name: string) => path.join(daemon.dir, name);
    const cli = `"${process.execPath}" "${CLI_SCRIPT}"`;
    const script =
      `${cli} send mine --text 'echo SELF''PWNED' --enter 2>${out('self.err')}; echo $? >${out('self.code')}; ` +
      `${cli} send ${mine.id} --text 'echo SELF''PWNED' --enter; echo $? >>${out('self.code')}`;
    const started = (await mcp.callTool({
      name: 'start_session',
      arguments: { command: ['sh', '-c', script] },
    })) as CallToolResult;
    assert.ok(!started.isError, JSON.stringify(started.content));
    const id = (started.structuredContent as { id: string }).id;
    await control.request('wait', { session: id, condition: { kind: 'exit' } });
    assert.deepEqual(fs.readFileSync(out('self.code'), 'utf8').trim().split('\n'), ['1', '1']);
    assert.match(fs.readFileSync(out('self.err'), 'utf8'), /not one this connection may use/);
    await control.request('send', { session: mine.id, data: 'echo AFTER""SELF\r' });
    await control.request('wait', { session: mine.id, condition: { kind: 'text', pattern: '^AFTERSELF$' } });
    const screen = await control.request('read', { session: mine.id });
    assert.ok(!screen.lines.some((l) => l.includes('SELFPWNED')), screen.lines.join('\n'));
    // The server itself still reads its own session.
    const read = (await mcp.callTool({ name: 'read_screen', arguments: { session: 'mine' } })) as CallToolResult;
    assert.ok(!read.isError, JSON.stringify(read.content));
    await control.request('remove', { session: id });
    record({
      item: 'hostile',
      name:
        '`holdfast mcp --sessions s` run inside s (HOLDFAST_SESSION): ' +
        'its start_session running `holdfast send s …`',
      value:
        "refused (forbidden, exit 1), nothing typed: the started session's credential leaves s out (was: typed " +
        'into the agent itself)',
    });
  });

  test('regression: an OSC 7 moved a session into `holdfast mcp --sessions workspace`', async () => {
    const workspace = path.join(daemon.dir, 'workspace');
    const outside = path.join(daemon.dir, 'outside');
    fs.mkdirSync(workspace);
    fs.mkdirSync(outside);
    const url = `file://localhost${workspace}`;
    const program = `printf '\\033]7;${url}\\007'; echo MOVED; exec cat`;
    const { session: moved } = await control.request('create', {
      name: 'moved',
      argv: ['sh', '-c', program],
      cwd: outside,
    });
    const { session: inWorkspace } = await control.request('create', { name: 'in-ws', argv: ['cat'], cwd: workspace });
    await control.request('wait', { session: moved.id, condition: { kind: 'text', pattern: '^MOVED$' } });
    const { session: seen } = await control.request('show', { session: moved.id });
    assert.equal(seen.cwd, workspace, 'the program reported the workspace');
    assert.equal(seen.startCwd, outside);
    const mcp = await mcpServer(['--sessions', 'workspace'], {}, workspace);
    const listed = (await mcp.callTool({ name: 'list_sessions', arguments: {} })) as CallToolResult;
    const ids = (listed.structuredContent as { sessions: { id: string }[] }).sessions.map((s) => s.id);
    assert.deepEqual(ids, [inWorkspace.id], 'only the session started in the workspace');
    const sent = (await mcp.callTool({
      name: 'send',
      arguments: { session: moved.id, text: 'PWNED', enter: true },
    })) as CallToolResult;
    assert.ok(sent.isError, JSON.stringify(sent.content));
    for (const s of [moved, inWorkspace])
      await control.request('kill', { session: s.id, signal: 'KILL', remove: true });
    record({
      item: 'hostile',
      name:
        "a session started outside the workspace prints OSC 7 of the workspace's path; " +
        "`holdfast mcp --sessions workspace` (what VS Code's agent mode gets) lists it and sends to it",
      value:
        'not listed, send refused as if it did not exist: the scope is decided on the start directory and the ' +
        "window's recorded workspace (was: listed, send ran)",
    });
  });

  test('a scoped credential reaches its sessions only; a session it starts joins them and carries it', async () => {
    const { credential, sessions } = await control.request('grant', { sessions: ['mine'] });
    assert.deepEqual(sessions, [mine.id]);
    const client = await withCredential(credential);
    assert.deepEqual(await names(client), ['mine']);
    assert.equal((await client.request('show', { session: 'mine' })).session.id, mine.id);
    for (const [method, params] of [
      ['send', { session: other.id, data: 'x' }],
      ['read', { session: 'other' }],
      ['show', { session: other.id }],
      ['kill', { session: other.id }],
      ['attach', { session: other.id, channel: 1, role: 'watcher' }],
      ['search', { pattern: 'x', session: 'other' }],
      ['stop', {}],
      ['config.get', {}],
      ['recovery.list', {}],
    ] as const)
      assert.equal(await refusal(client.request(method, params as never)), 'forbidden', method);
    const file = path.join(daemon.dir, 'token-seen');
    const argv = ['sh', '-c', `printf %s "$HOLDFAST_TOKEN" >${file}`];
    const started = (await client.request('create', { name: 'started', argv, cwd: daemon.dir })).session;
    await client.request('wait', { session: started.id, condition: { kind: 'exit' } });
    assert.equal(fs.readFileSync(file, 'utf8'), credential);
    assert.deepEqual(await names(client), ['mine', 'started']);
    // Events: only those of its sessions, in order with the rest.
    const seen: DaemonEvent[] = [];
    client.onEvent((e) => seen.push(e));
    assert.deepEqual((await client.request('subscribe', {})).sessions.map((s) => s.name).sort(), ['mine', 'started']);
    await control.request('update', { session: other.id, metadata: { mark: 1 } });
    await control.request('update', { session: mine.id, metadata: { mark: 1 } });
    await waitFor(() => seen.some((e) => e.type === 'session' && e.session.id === mine.id), 5000, "mine's event");
    assert.ok(!seen.some((e) => 'id' in e && e.id === other.id));
    assert.ok(!seen.some((e) => e.type === 'session' && e.session.id === other.id));
    await control.request('remove', { session: started.id });
  });

  test('a read-only credential reads but cannot send, start, attach as input owner or claim', async () => {
    const client = await scoped({ readOnly: true });
    assert.deepEqual(await names(client), ['mine', 'other']);
    assert.ok((await client.request('read', { session: 'other' })).lines.length > 0);
    assert.equal(await refusal(client.request('send', { session: mine.id, data: 'x' })), 'forbidden');
    assert.equal(await refusal(client.request('create', { argv: SHELL })), 'forbidden');
    assert.equal(await refusal(client.attach({ session: mine.id, role: 'owner' }, handlers())), 'forbidden');
    const watching = await client.attach({ session: mine.id, role: 'watcher' }, handlers());
    assert.equal(await refusal(watching.claim()), 'forbidden');
  });

  test('a scoped credential cannot mint a wider one', async () => {
    const client = await scoped({ sessions: [mine.id] });
    assert.deepEqual(await names(await scoped({}, client)), ['mine'], 'omitted: its own sessions, not every one');
    assert.equal(await refusal(client.request('grant', { sessions: [other.id] })), 'forbidden', 'another session');
    assert.equal(await refusal(client.request('grant', { sessions: ['other'] })), 'forbidden', 'by name');
    const narrower = await scoped({ sessions: ['mine'], readOnly: true }, client);
    assert.deepEqual(await names(narrower), ['mine']);
    assert.equal(await refusal(narrower.request('send', { session: mine.id, data: 'x' })), 'forbidden');
    const readOnly = await scoped({ readOnly: true });
    assert.equal(await refusal(readOnly.request('grant', { readOnly: false })), 'forbidden', 'acting');
    assert.equal((await readOnly.request('grant', {})).readOnly, true, 'inherits read-only');
  });

  test('holdfast mcp --read-only inside a scoped session uses its HOLDFAST_TOKEN and stays within it', async () => {
    const { credential } = await control.request('grant', { sessions: [mine.id] });
    const mcp = await mcpServer(['--read-only'], { HOLDFAST_TOKEN: credential });
    const listed = (await mcp.callTool({ name: 'list_sessions', arguments: {} })) as CallToolResult;
    assert.ok(!listed.isError, JSON.stringify(listed.content));
    const { sessions } = listed.structuredContent as { sessions: { name: string }[] };
    assert.deepEqual(
      sessions.map((s) => s.name),
      ['mine'],
    );
    const read = (await mcp.callTool({ name: 'read_screen', arguments: { session: 'other' } })) as CallToolResult;
    assert.equal(read.isError, true);
  });

  test('the token file still gives full rights: every session, every method', async () => {
    const scopedClient = await scoped({ sessions: [] });
    const made = (await scopedClient.request('create', { name: 'scoped-made', argv: SHELL, cwd: daemon.dir })).session;
    assert.deepEqual(await names(scopedClient), ['scoped-made']);
    assert.deepEqual(await names(control), ['mine', 'other', 'scoped-made']);
    await control.request('config.get', {});
    await control.request('send', { session: made.id, data: 'exit\r' });
    await control.request('remove', { session: made.id });
  });

  test('credentials end with the connections and sessions that hold them, and are bounded', async () => {
    const minter = await daemon.connect();
    const { credential } = await minter.request('grant', { sessions: [] });
    const user = await withCredential(credential);
    const held = (await user.request('create', { argv: ['sleep', '600'], cwd: daemon.dir })).session;
    minter.close();
    user.close();
    // The session holds it: a new connection is still let in.
    const again = await withCredential(credential);
    again.close();
    await control.request('kill', { session: held.id, signal: 'KILL', remove: true });
    // The session's exit is told to the daemon's bookkeeping on its own turn: wait for the credential to end.
    const ended = () =>
      withCredential(credential).then(
        (client) => (client.close(), false),
        (err: RequestError) => err.code === 'auth',
      );
    await waitFor(ended, 10_000, 'the credential to end with its last holder');

    // One connection mints at most its own share; the others can still grant (it took all 1,024 before).
    const mintAll = async (client: HoldfastClient): Promise<{ minted: number; error: RequestError }> => {
      for (let minted = 0; ; minted++)
        try {
          await client.request('grant', { sessions: [] });
        } catch (err) {
          return { minted, error: err as RequestError };
        }
    };
    const hoarder = await daemon.connect();
    const alone = await mintAll(hoarder);
    assert.equal(alone.error.code, 'limit');
    assert.match(alone.error.message, /this connection minted 32 live credentials, its limit/);
    assert.equal(alone.minted, GrantLimit.MaxPerConnection);
    await control.request('grant', { sessions: [] });
    record({
      item: 'hostile',
      name: 'one connection minting credentials until refused (`grant` in a loop)',
      value:
        `limit after ${alone.minted} ("${alone.error.message}"); every other connection still granted ` +
        "(was: 1,024, the daemon's whole limit, refused to every MCP server)",
    });
    // The daemon's own bound still holds across connections.
    const many = [hoarder];
    let last = alone;
    while (last.error.message.includes('this connection')) {
      const next = await daemon.connect();
      many.push(next);
      last = await mintAll(next);
    }
    assert.match(last.error.message, /this daemon holds 10\d\d credentials, its limit/);
    for (const c of many) c.close();
    await waitFor(
      () =>
        control.request('grant', { sessions: [] }).then(
          () => true,
          () => false,
        ),
      10_000,
      'credentials freed with their connection',
    );
  });
});

function handlers() {
  return { onSnapshot: () => undefined, onOutput: () => undefined };
}
