// `holdfast mcp` as clients no one here wrote start and read it: one that passes only the MCP SDK's
// default environment (no XDG_RUNTIME_DIR), schemas a single-type dialect accepts, Claude Code's own health check.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { HoldfastClient } from '../src/client/client';
import { startDaemon } from '../src/client/launch';
import { defaultSocketPath } from '../src/host/paths';
import { CLI_SCRIPT, DAEMON_SCRIPT, isAlive, ROOT, tempDir, waitFor } from './helpers/daemon';

const uid = process.getuid!();
const clients: Client[] = [];
after(() => Promise.all(clients.map((c) => c.close())));

async function mcpWith(env: Record<string, string>, args: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_SCRIPT, 'mcp', ...args],
    env,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'holdfast-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** list_sessions: the names on success, else the one line of its error. */
async function listed(client: Client): Promise<string[] | string> {
  const result = (await client.callTool({ name: 'list_sessions', arguments: {} })) as CallToolResult;
  if (result.isError) return (result.content[0] as { text: string }).text;
  return (result.structuredContent as { sessions: { name: string }[] }).sessions.map((s) => s.name);
}

describe("a client passing only the MCP SDK's default environment", () => {
  const base = tempDir('hf-mcp-env-');
  // A stand-in for /run/user, laid out as logind makes it: ROOT 0755, ROOT/UID yours and 0700.
  const runUser = path.join(base, 'run-user');
  const runtimeDir = path.join(runUser, String(uid));
  // What the user's shells and VS Code have: XDG_RUNTIME_DIR set.
  const userEnv = {
    PATH: process.env.PATH!,
    HOME: base,
    XDG_RUNTIME_DIR: runtimeDir,
    XDG_STATE_HOME: path.join(base, 'state'),
    XDG_CONFIG_HOME: path.join(base, 'config'),
  };
  const socket = defaultSocketPath(userEnv);
  let pid = 0;

  before(async () => {
    fs.mkdirSync(runUser, { mode: 0o755 });
    fs.chmodSync(runUser, 0o755);
    fs.mkdirSync(runtimeDir, { mode: 0o700 });
    const ready = await startDaemon({ socket, daemonScript: DAEMON_SCRIPT, env: userEnv, args: ['--persistent'] });
    assert.ok('pid' in ready, 'the daemon started');
    pid = ready.pid;
    const control = await HoldfastClient.connect({ socket, client: 'test', version: 'test' });
    await control.request('create', { name: 'found-me', argv: ['sleep', '600'], cwd: base });
    control.close();
  });
  after(async () => {
    if (pid && isAlive(pid)) {
      process.kill(pid, 'SIGTERM');
      await waitFor(() => !isAlive(pid), 10_000, 'the daemon to exit');
    }
    fs.rmSync(base, { recursive: true, force: true });
  });

  test('finds the daemon in the private runtime directory the shells use', async () => {
    const defaults = getDefaultEnvironment();
    assert.equal(defaults.XDG_RUNTIME_DIR, undefined, 'the SDK passes no XDG_RUNTIME_DIR');
    assert.equal(defaults.HOLDFAST_SOCKET, undefined);
    const client = await mcpWith({ ...defaults, HOLDFAST_RUNTIME_ROOT: runUser });
    assert.deepEqual(await listed(client), ['found-me']);
  });

  test('a runtime directory others can read is not used; the error names the path and the --socket fix', async () => {
    fs.chmodSync(runtimeDir, 0o755);
    try {
      const tmp = path.join(base, 'tmp');
      const env = { ...getDefaultEnvironment(), HOLDFAST_RUNTIME_ROOT: runUser, TMPDIR: tmp };
      const tried = path.join(tmp, `holdfast-${uid}`, 'holdfast.sock');
      const error = await listed(await mcpWith(env));
      assert.equal(typeof error, 'string');
      assert.ok(
        (error as string).startsWith(`no Holdfast daemon is listening on ${tried} (start_session starts one there; `),
        error as string,
      );
      assert.match(error as string, /start this server as `holdfast mcp --socket PATH`/);
      // The fix it names works.
      assert.deepEqual(await listed(await mcpWith(env, ['--socket', socket])), ['found-me']);
    } finally {
      fs.chmodSync(runtimeDir, 0o700);
    }
  });
});

/**
 * What a single-type schema dialect (the OpenAPI subset of Gemini's function declarations) cannot
 * take, with where: a `type` array or "null", unions (anyOf with null among them), references, and
 * keywords outside the subset. Every subschema must say its one type.
 */
export function portabilityProblems(schema: unknown, at: string): string[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [`${at}: not a schema`];
  const node = schema as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof node.type !== 'string') problems.push(`${at}: type ${JSON.stringify(node.type)} is not one type`);
  else if (node.type === 'null') problems.push(`${at}: type "null"`);
  const UNPORTABLE = ['anyOf', 'oneOf', 'allOf', 'not', 'if', 'then', 'else', '$ref', '$defs', 'definitions'];
  const OUTSIDE = ['nullable', 'propertyNames', 'patternProperties', 'prefixItems', 'dependentSchemas', 'const'];
  for (const key of [...UNPORTABLE, ...OUTSIDE]) if (key in node) problems.push(`${at}: ${key}`);
  if (node.properties && typeof node.properties === 'object')
    for (const [name, sub] of Object.entries(node.properties))
      problems.push(...portabilityProblems(sub, `${at}.properties.${name}`));
  if (node.items !== undefined) problems.push(...portabilityProblems(node.items, `${at}.items`));
  if (typeof node.additionalProperties === 'object')
    problems.push(...portabilityProblems(node.additionalProperties, `${at}.additionalProperties`));
  return problems;
}

test('the walker finds what a single-type dialect refuses', () => {
  const nullable = { type: 'object', properties: { a: { type: ['string', 'null'] } } };
  assert.deepEqual(portabilityProblems(nullable, 't'), ['t.properties.a: type ["string","null"] is not one type']);
  const union = { type: 'array', items: { anyOf: [{ type: 'number' }, { type: 'null' }] } };
  assert.deepEqual(portabilityProblems(union, 't'), ['t.items: type undefined is not one type', 't.items: anyOf']);
  const record = { type: 'object', propertyNames: { type: 'string' }, additionalProperties: { type: 'null' } };
  assert.deepEqual(portabilityProblems(record, 't'), ['t: propertyNames', 't.additionalProperties: type "null"']);
});

test('every tool schema, input and output, as tools/list gives them, fits a single-type dialect', async () => {
  const dir = tempDir('hf-mcp-schema-');
  try {
    const client = await mcpWith({ ...getDefaultEnvironment(), HOLDFAST_SOCKET: path.join(dir, 'none.sock') });
    const { tools } = await client.listTools();
    assert.equal(tools.length, 9);
    const problems = tools.flatMap((tool) => [
      ...portabilityProblems(tool.inputSchema, `${tool.name}.inputSchema`),
      ...portabilityProblems(tool.outputSchema, `${tool.name}.outputSchema`),
    ]);
    assert.deepEqual(problems, []);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("Claude Code's `claude mcp list` reports holdfast connected (and a server that dies as failed)", async () => {
  const claude = path.join(ROOT, '.vscode-test', 'agents', 'node_modules', '.bin', 'claude');
  assert.ok(fs.existsSync(claude), `${claude} is missing: run scripts/setup-agents.sh`);
  const home = tempDir('hf-mcp-claude-');
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    TERM: 'xterm-256color',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
  const run = (args: string[]) =>
    new Promise<string>((resolve) => {
      const child = execFile(claude, args, { cwd: home, env, timeout: 90_000 }, (_err, out, err) => resolve(out + err));
      child.stdin?.end();
    });
  try {
    const socket = path.join(home, 'run', 'holdfast.sock');
    await run(['mcp', 'add', '-s', 'user', 'holdfast', '--', process.execPath, CLI_SCRIPT, 'mcp', '--socket', socket]);
    await run(['mcp', 'add', '-s', 'user', 'broken', '--', process.execPath, '-e', 'process.exit(3)']);
    const listing = await run(['mcp', 'list']);
    assert.match(listing, /^holdfast: .* - ✔ Connected$/m, listing);
    assert.match(listing, /^broken: .* - ✘ Failed to connect\b/m, listing);
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
});
