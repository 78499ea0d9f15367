// `holdfast mcp` end to end: the SDK's own MCP client over stdio against `node dist/cli.js mcp`,
// with a real daemon on a private socket and real shells in it.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parseSessionList } from '../src/cli/commands/mcp';
import { isUnder, Rights } from '../src/mcp/mcpRights';
import type { HoldfastClient } from '../src/client/client';
import { CLI_SCRIPT, isolatedEnv, startTestDaemon, tempDir, type TestDaemon, waitFor } from './helpers/daemon';
import { sessionInfo } from './helpers/sessionInfo';

const READ_TOOLS = ['list_sessions', 'read_screen', 'read_history', 'search_history', 'wait'];
const ACT_TOOLS = ['send', 'start_session', 'kill_session', 'run_command'];
const SHELL = ['bash', '--norc', '--noprofile'];

describe('holdfast mcp', () => {
  let daemon: TestDaemon;
  let control: HoldfastClient;
  let workspace: string;
  const clients: Client[] = [];
  let full: Client;

  /** An MCP client talking to a fresh `holdfast mcp ARGS` started in `cwd`. */
  async function mcp(args: string[], cwd = workspace, extraEnv: Record<string, string> = {}): Promise<Client> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI_SCRIPT, 'mcp', ...args],
      env: { ...(daemon.env as Record<string, string>), ...extraEnv },
      cwd,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'holdfast-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    return (await client.callTool({ name, arguments: args })) as CallToolResult;
  }

  /** A tool call that must succeed: its structured result. */
  async function ok<T = Record<string, unknown>>(
    client: Client,
    name: string,
    args: Record<string, unknown>,
  ): Promise<T> {
    const result = await call(client, name, args);
    assert.ok(!result.isError, `${name} failed: ${JSON.stringify(result.content)}`);
    return result.structuredContent as T;
  }

  /** A tool call that must fail: its one line of text. */
  async function refused(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
    const result = await call(client, name, args);
    assert.equal(result.isError, true, `${name} should have failed: ${JSON.stringify(result)}`);
    const text = (result.content[0] as { text: string }).text;
    assert.doesNotMatch(text, /\n/, 'one line');
    return text;
  }

  const env = { PS1: 'ready> ' };

  before(async () => {
    daemon = await startTestDaemon();
    workspace = path.join(daemon.dir, 'ws');
    fs.mkdirSync(path.join(workspace, 'sub'), { recursive: true });
    control = await daemon.connect();
    await control.request('create', { name: 'mine', argv: SHELL, cwd: path.join(workspace, 'sub'), env });
    await control.request('create', { name: 'other', argv: SHELL, cwd: daemon.dir, env });
    full = await mcp([]);
    await ok(full, 'wait', { session: 'mine', for: 'text', pattern: '^ready> $' });
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await daemon.stop();
  });

  test('lists every tool, and only the reading ones with --read-only', async () => {
    const names = (await full.listTools()).tools.map((t) => t.name);
    assert.deepEqual(names.sort(), [...READ_TOOLS, ...ACT_TOOLS].sort());
    const readOnly = await mcp(['--read-only']);
    const tools = (await readOnly.listTools()).tools;
    assert.deepEqual(tools.map((t) => t.name).sort(), [...READ_TOOLS].sort());
    assert.ok(tools.every((t) => t.annotations?.readOnlyHint === true && t.outputSchema));
    assert.match(await refused(readOnly, 'send', { session: 'mine', text: 'x' }), /send/);
  });

  test('lists sessions and reads a screen', async () => {
    const { sessions } = await ok<{ sessions: { name: string; phase: string; command: string[] }[] }>(
      full,
      'list_sessions',
      {},
    );
    assert.deepEqual(sessions.map((s) => s.name).sort(), ['mine', 'other']);
    assert.deepEqual(sessions[0].command, SHELL);
    type Screen = { lines: string[]; cursor: { x: number; y: number }; rows: number; blankRowsTrimmed: number };
    const result = await call(full, 'read_screen', { session: 'mine' });
    const screen = result.structuredContent as Screen;
    // A fresh shell: its prompt, not 23 blank rows below it.
    assert.deepEqual(screen.lines, ['ready> ']);
    assert.deepEqual(screen.cursor, { x: 7, y: 0 });
    assert.deepEqual([screen.rows, screen.blankRowsTrimmed], [24, 23]);
    assert.match((result.content[0] as { text: string }).text, /cursor at row 0, column 7; 23 blank rows below/);
  });

  test('search_history without a session searches every session in scope, each match naming its session', async () => {
    const { sessions: all } = await control.request('list', {});
    const id = (name: string) => all.find((s) => s.name === name)!.id;
    await control.request('send', { session: id('other'), data: 'echo SHARED-""MARK other\r' });
    await ok(full, 'send', { session: 'mine', text: 'echo SHARED-""MARK mine', enter: true });
    for (const name of ['mine', 'other'])
      await ok(full, 'wait', { session: name, for: 'text', pattern: `^SHARED-MARK ${name}$` });
    type Found = {
      session?: string;
      sessionsSearched: number;
      linesSearched: number;
      matches: { session: string; text: string }[];
    };
    const everywhere = await ok<Found>(full, 'search_history', { pattern: '^SHARED-MARK' });
    const byText = (m: { text: string }) => m.text;
    assert.deepEqual(everywhere.matches.map(byText).sort(), ['SHARED-MARK mine', 'SHARED-MARK other']);
    for (const m of everywhere.matches) assert.equal(m.session, id(m.text.split(' ')[1]));
    assert.deepEqual([everywhere.session, everywhere.sessionsSearched], [undefined, 2]);
    // In scope only: the hidden session is in no match and no count.
    const limited = await mcp(['--sessions', 'mine']);
    const result = await call(limited, 'search_history', { pattern: '^SHARED-MARK' });
    const scoped = result.structuredContent as Found;
    assert.deepEqual(
      scoped.matches.map((m) => m.session),
      [id('mine')],
    );
    const mineOnly = await ok<Found>(limited, 'search_history', { session: 'mine', pattern: '^SHARED-MARK' });
    assert.deepEqual([scoped.sessionsSearched, scoped.linesSearched], [1, mineOnly.linesSearched]);
    assert.equal(mineOnly.session, id('mine'));
    assert.doesNotMatch((result.content[0] as { text: string }).text, new RegExp(id('other')));
  });

  test('send, then wait for the text it prints', async () => {
    await ok(full, 'send', { session: 'mine', text: 'echo hello-""mcp', enter: true });
    const waited = await ok<{ met: boolean; outcome: string }>(full, 'wait', {
      session: 'mine',
      for: 'text',
      pattern: '^hello-mcp$',
      timeoutMs: 20_000,
    });
    assert.deepEqual([waited.met, waited.outcome], [true, 'met']);
    const result = await call(full, 'read_screen', { session: 'mine' });
    assert.match((result.content[0] as { text: string }).text, /^\d+: hello-mcp$/m);
  });

  test('search history finds a marker printed 5,000 lines earlier, and read_history pages to it', async () => {
    await ok(full, 'send', { session: 'mine', text: 'echo MARK""ER-7; seq 1 5000; echo seq-""done', enter: true });
    await ok(full, 'wait', { session: 'mine', for: 'text', pattern: '^seq-done$', timeoutMs: 30_000 });
    const found = await ok<{ totalMatches: number; linesSearched: number; matches: { line: number; text: string }[] }>(
      full,
      'search_history',
      { session: 'mine', pattern: '^marker-7$', flags: 'i' },
    );
    assert.equal(found.totalMatches, 1);
    const marker = found.matches[0];
    assert.equal(marker.text, 'MARKER-7');
    assert.ok(found.linesSearched - marker.line > 5000, `${found.linesSearched} lines, marker at ${marker.line}`);
    const page = await ok<{ lines: string[]; offset: number; nextOffset?: number }>(full, 'read_history', {
      session: 'mine',
      offset: marker.line,
      limit: 3,
    });
    assert.deepEqual(page.lines, ['MARKER-7', '1', '2']);
    assert.equal(page.nextOffset, marker.line + 3);
    const tail = await ok<{ lines: string[]; nextOffset?: number }>(full, 'read_history', {
      session: 'mine',
      limit: 2,
    });
    assert.deepEqual(tail.lines, ['seq-done', 'ready> ']);
    assert.equal(tail.nextOffset, undefined);
  });

  test('a session outside --sessions is neither listed nor reachable, by name or id', async () => {
    const { sessions: all } = await control.request('list', {});
    const other = all.find((s) => s.name === 'other')!;
    for (const args of [
      ['--sessions', 'mine'],
      ['--sessions', 'workspace'],
    ]) {
      const limited = await mcp(args);
      const { sessions } = await ok<{ sessions: { name: string }[] }>(limited, 'list_sessions', {});
      assert.deepEqual(
        sessions.map((s) => s.name),
        ['mine'],
        args.join(' '),
      );
      for (const ref of ['other', other.id]) {
        const missing = await refused(limited, 'read_screen', { session: ref });
        assert.equal(missing, `no session "${ref}" (list_sessions shows the sessions you can use)`);
        await refused(limited, 'send', { session: ref, text: 'x' });
        await refused(limited, 'kill_session', { session: ref });
        await refused(limited, 'wait', { session: ref, for: 'exit', timeoutMs: 10 });
      }
    }
    // What it starts joins its set; the hidden session is still running, untouched.
    const limited = await mcp(['--sessions', 'mine']);
    const started = await ok<{ id: string; name: string }>(limited, 'start_session', { name: 'extra', command: SHELL });
    const { sessions } = await ok<{ sessions: { name: string }[] }>(limited, 'list_sessions', {});
    assert.deepEqual(sessions.map((s) => s.name).sort(), ['extra', 'mine']);
    const killed = await ok<{ removed: boolean; session: { phase: string } }>(limited, 'kill_session', {
      session: started.id,
      remove: true,
    });
    assert.deepEqual([killed.removed, killed.session.phase], [true, 'exited']);
    assert.equal((await control.request('show', { session: other.id })).session.state, 'running');
  });

  test('kill ends a session; wait for exit then reports it', async () => {
    const started = await ok<{ id: string }>(full, 'start_session', { name: 'victim', command: ['sleep', '600'] });
    const killed = await ok<{ session: { phase: string; signal?: string } }>(full, 'kill_session', {
      session: 'victim',
      signal: 'TERM',
    });
    assert.deepEqual([killed.session.phase, killed.session.signal], ['exited', 'SIGTERM']);
    const waited = await ok<{ met: boolean }>(full, 'wait', { session: started.id, for: 'exit' });
    assert.equal(waited.met, true);
    await control.request('remove', { session: started.id });
  });

  test('the session the agent runs in can be read, not typed into or killed', async () => {
    const mine = (await control.request('show', { session: 'mine' })).session;
    const inside = await mcp([], workspace, { HOLDFAST_SESSION: mine.id });
    await ok(inside, 'read_screen', { session: 'mine' });
    const expected = `session ${mine.id} is the one you run in: it can be read, not typed into or killed`;
    assert.equal(await refused(inside, 'send', { session: 'mine', text: 'x' }), expected);
    assert.equal(await refused(inside, 'kill_session', { session: mine.id }), expected);
    assert.equal((await control.request('show', { session: mine.id })).session.state, 'running');
  });

  test('a wait the client cancels ends, and the server goes on', async () => {
    // The daemon counts one more client while the wait is on; it goes when the call is cancelled.
    const clientsOf = async () => (await control.request('status', {})).clients;
    const idle = await clientsOf();
    const controller = new AbortController();
    const pending = full.callTool(
      { name: 'wait', arguments: { session: 'other', for: 'text', pattern: '^never-shown$', timeoutMs: 600_000 } },
      undefined,
      { signal: controller.signal },
    );
    await waitFor(async () => (await clientsOf()) > idle, 10_000, 'the wait to reach the daemon');
    controller.abort();
    await assert.rejects(pending);
    await waitFor(async () => (await clientsOf()) === idle, 10_000, 'the wait connection to close');
    await ok(full, 'list_sessions', {});
  });

  test('start_session as an agent profile records the agent; a missing agent is refused', async () => {
    const bin = path.join(daemon.dir, 'fake-bin');
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, 'claude'), '#!/bin/sh\necho "fake-claude $*"\nexec sleep 600\n', { mode: 0o755 });
    const PATH = `${bin}:${process.env.PATH}`;
    const agents = await mcp([], workspace, { PATH });
    const started = await ok<{ id: string; agent?: string; command: string[] }>(agents, 'start_session', {
      name: 'agent',
      agent: 'claude',
      env: { PATH },
    });
    assert.equal(started.agent, 'claude');
    assert.deepEqual(started.command.slice(0, 2), ['claude', '--session-id']);
    const printed = await ok<{ met: boolean; outcome: string }>(agents, 'wait', {
      session: started.id,
      for: 'text',
      pattern: `^fake-claude .* --session-id ${started.command[2]}$`,
      timeoutMs: 10_000,
    });
    assert.deepEqual([printed.met, printed.outcome], [true, 'met'], 'the stand-in printed its arguments');
    const { metadata } = (await control.request('show', { session: started.id })).session;
    assert.equal((metadata.agent as { sessionId: string }).sessionId, started.command[2]);
    await ok(agents, 'kill_session', { session: started.id, remove: true });

    const without = await mcp([], workspace, { PATH: path.join(daemon.dir, 'empty') });
    assert.equal(
      await refused(without, 'start_session', { agent: 'codex' }),
      'Codex CLI is not installed here: "codex" is not on PATH',
    );
  });

  test('needs-input: met once the program rings the bell', async () => {
    const pending = ok<{ met: boolean; session: { phase: string } }>(full, 'wait', {
      session: 'mine',
      for: 'needs-input',
      timeoutMs: 20_000,
    });
    await ok(full, 'send', { session: 'mine', text: "printf 'continue? \\a'", enter: true });
    const waited = await pending;
    assert.deepEqual([waited.met, waited.session.phase], [true, 'waiting']);
  });

  test('bad input is one line as a tool error, and the server carries on', async () => {
    assert.match(await refused(full, 'read_screen', { session: 42 }), /session/);
    // Two bad fields: still one line.
    assert.match(await refused(full, 'send', { session: 7, enter: 'yes' }), /session.*enter/);
    assert.match(await refused(full, 'send', { session: 'mine', keys: ['hyper'] }), /^unknown key "hyper"/);
    assert.match(await refused(full, 'send', { session: 'mine' }), /^nothing to send/);
    assert.match(await refused(full, 'wait', { session: 'mine', for: 'text' }), /needs a pattern/);
    assert.match(await refused(full, 'search_history', { session: 'mine', pattern: '(a' }), /^invalid pattern/);
    assert.match(await refused(full, 'search_history', { session: 'mine', pattern: '(a)\\1' }), /^invalid pattern/);
    assert.match(await refused(full, 'kill_session', { session: 'mine', signal: 'NOPE' }), /^unknown signal/);
    assert.match(await refused(full, 'start_session', { cwd: '/no/such/dir' }), /^no such directory/);
    assert.match(await refused(full, 'read_screen', { session: 'nope' }), /^no session "nope"/);
    const { sessions } = await ok<{ sessions: unknown[] }>(full, 'list_sessions', {});
    assert.equal(sessions.length, 2);
  });

  test('a field a program chose reaches the text part made printable, the structured part as is', async () => {
    await ok(full, 'send', { session: 'mine', text: `printf '\\033]0;a\\u202eb\\007'; echo title-""set`, enter: true });
    await ok(full, 'wait', { session: 'mine', for: 'text', pattern: '^title-set$' });
    const result = await call(full, 'list_sessions', {});
    const { sessions } = result.structuredContent as { sessions: { name: string; title: string }[] };
    assert.equal(sessions.find((s) => s.name === 'mine')!.title, 'a\u202eb');
    const text = (result.content[0] as { text: string }).text;
    assert.match(text, /title="a\\u\{202e\}b"/);
    assert.doesNotMatch(text, /\u202e/);
  });
});

describe('holdfast mcp rights', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hf-mcp-rights-'));
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  const inside = path.join(root, 'app');
  const sessions = [
    sessionInfo('aaaa0001', { name: 'build', cwd: inside }),
    sessionInfo('aaaa0002', { name: 'build', cwd: '/elsewhere' }),
    sessionInfo('aaaa0003', { name: 'vsc', cwd: '/elsewhere', metadata: { workspace: pathToFileURL(root).href } }),
    sessionInfo('aaaa0004', { name: 'near', cwd: root + '-sibling' }),
    // Started elsewhere; its program's OSC 7 says it is inside.
    sessionInfo('aaaa0005', { name: 'moved', cwd: inside, startCwd: '/elsewhere' }),
    // From a daemon that tells no start directory: its cwd alone counts for nothing.
    { ...sessionInfo('aaaa0006', { name: 'older', cwd: inside }), startCwd: undefined },
  ];
  const names = (rights: Rights) => sessions.filter((s) => rights.visible(s)).map((s) => s.id);

  test('a path is under a root only at a separator', () => {
    assert.ok(isUnder('/a/b', '/a/b'));
    assert.ok(isUnder('/a/b/c', '/a/b/'));
    assert.ok(!isUnder('/a/bc', '/a/b'));
    assert.ok(isUnder('/anything', '/'));
  });

  test('workspace: start directory or VS Code workspace under the root, never the cwd a program reports', () => {
    const rights = new Rights({ readOnly: false, sessions: ['workspace'], cwd: root });
    assert.deepEqual(names(rights), ['aaaa0001', 'aaaa0003']);
    // A name shared with a hidden session resolves to the visible one.
    assert.equal(rights.resolve(sessions, 'build').id, 'aaaa0001');
    assert.throws(() => rights.resolve(sessions, 'aaaa0002'), /^Error: no session "aaaa0002"/);
    rights.addStarted('aaaa0002');
    assert.throws(() => rights.resolve(sessions, 'build'), /shared by sessions aaaa0001, aaaa0002: give an id/);
  });

  test('without --sessions every session is visible; a list names ids and names', () => {
    assert.equal(names(new Rights({ readOnly: true, sessions: undefined, cwd: root })).length, 6);
    assert.deepEqual(names(new Rights({ readOnly: false, sessions: ['near', 'aaaa0003'], cwd: root })), [
      'aaaa0003',
      'aaaa0004',
    ]);
    assert.deepEqual(parseSessionList(' a, b,,workspace '), ['a', 'b', 'workspace']);
    assert.throws(() => parseSessionList(' , '), /--sessions needs ids/);
  });
});

describe('holdfast mcp without a daemon', () => {
  test('tools say no daemon listens, and none is started but by start_session', async () => {
    const dir = tempDir();
    const env = isolatedEnv(dir);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI_SCRIPT, 'mcp'],
      env: env as Record<string, string>,
      cwd: dir,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'holdfast-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      for (const [name, args] of [
        ['list_sessions', {}],
        ['read_screen', { session: 'x' }],
        ['wait', { session: 'x', for: 'exit' }],
      ] as const) {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        assert.equal(result.isError, true);
        assert.deepEqual(result.content, [
          {
            type: 'text',
            text:
              `no Holdfast daemon is listening on ${env.HOLDFAST_SOCKET} (start_session starts one there; ` +
              'if your daemon is elsewhere, start this server as `holdfast mcp --socket PATH`, ' +
              'PATH being what `echo $HOLDFAST_SOCKET` prints in a Holdfast terminal)',
          },
        ]);
      }
      assert.ok(!fs.existsSync(env.HOLDFAST_SOCKET!), 'no daemon was started');
    } finally {
      await client.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
