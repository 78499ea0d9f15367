// E2E: VS Code's own MCP support lists the server the extension offers
// (lm.registerMcpServerDefinitionProvider), starts it, and the server answers with its tools; the
// server it starts is held by the daemon to the workspace's sessions.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type HoldfastE2E, trace, waitFor, scenarioHooks } from './harness';
import type { Workbench } from './workbench';

/** Starts the Holdfast server from MCP: List Servers and returns how many tools VS Code discovered. */
async function startServer(wb: Workbench): Promise<number> {
  await wb.runCommand('MCP: List Servers');
  const items = await waitFor(
    async () => {
      const labels = await wb.quickPickItems();
      return labels.some((l) => /Holdfast/.test(l)) ? labels : undefined;
    },
    { timeout: 30_000, message: 'Holdfast among the MCP servers' },
  );
  assert.ok(
    items.some((l) => /Holdfast/.test(l)),
    JSON.stringify(items),
  );
  await wb.pickQuickItem(/Holdfast/);
  await wb.pickQuickItem(/^Start Server$/);
  // VS Code lists the tools of a running server; its state shows in the list.
  const running = await waitFor(
    async () => {
      await wb.runCommand('MCP: List Servers');
      const labels = await wb.quickPickItems();
      const row = await wb.page
        .locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'Holdfast' })
        .first()
        .textContent();
      await wb.closeQuickInput();
      return labels.length > 0 && /Running|tools/i.test(row ?? '') ? row : undefined;
    },
    { timeout: 60_000, message: 'the Holdfast server running' },
  );
  trace(`MCP server row: ${running}`);
  // Its output, as VS Code logs it: the handshake went through and the tools were listed.
  await wb.runCommand('MCP: List Servers');
  await wb.pickQuickItem(/Holdfast/);
  await wb.pickQuickItem(/^Show Output$/);
  const output = await waitFor(
    async () => {
      const text = await wb.outputText();
      return /Discovered \d+ tools/.test(text) ? text : undefined;
    },
    { timeout: 30_000, message: "VS Code's MCP output to list Holdfast's tools" },
  );
  trace(
    `MCP output: ${output
      .split('\n')
      .filter((l) => /tools|Connection state/.test(l))
      .join(' | ')}`,
  );
  return Number(/Discovered (\d+) tools/.exec(output)![1]);
}

interface ServerProcess {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
}

/** The `holdfast mcp` process VS Code started for the daemon at `socket`, read from /proc. */
function serverProcess(socket: string): ServerProcess | undefined {
  for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
      if (!argv[1]?.endsWith(path.join('dist', 'cli.js')) || argv[2] !== 'mcp') continue;
      const env: Record<string, string> = {};
      for (const entry of fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
        const at = entry.indexOf('=');
        if (at > 0) env[entry.slice(0, at)] = entry.slice(at + 1);
      }
      if (env.HOLDFAST_SOCKET === socket) return { argv, env, cwd: fs.readlinkSync(`/proc/${pid}/cwd`) };
    } catch {
      // Ended while read: not the one.
    }
  }
  return undefined;
}

/** An MCP client of a second server run as VS Code runs its own (same program, arguments, environment, folder). */
async function sameServer(server: ServerProcess): Promise<Client> {
  const transport = new StdioClientTransport({
    command: server.argv[0],
    args: server.argv.slice(1),
    env: server.env,
    cwd: server.cwd,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'holdfast-e2e', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** The names of the sessions `list_sessions` shows. */
async function listedNames(client: Client): Promise<string[]> {
  const result = (await client.callTool({ name: 'list_sessions', arguments: {} })) as CallToolResult;
  const data = result.structuredContent as { sessions: { name: string }[] };
  return data.sessions.map((s) => s.name).sort();
}

/** Two sessions: one in `folder` (the workspace's), one in the isolation's own directory (outside it). */
function insideAndOutside(e2e: HoldfastE2E, folder: string): void {
  for (const [name, cwd] of [
    ['inside', folder],
    ['outside', e2e.iso.dir],
  ]) {
    // sh -c: the CLI helper appends --socket after the command, which sh takes as $0 and $1.
    const made = e2e.iso.cli(['new', '--name', name, '--cwd', cwd, '--', '/bin/sh', '-c', 'exec bash --norc']);
    assert.equal(made.code, 0, made.stderr);
  }
}

describe('in a trusted workspace', () => {
  let e2e: HoldfastE2E;
  let server: ServerProcess;
  // MCP lives with VS Code's AI features, which the other scenarios turn off.
  // Chat on and every built-in extension, as a user's VS Code has them.
  scenarioHooks(
    { name: 'mcp', settings: { 'chat.disableAIFeatures': false }, builtinExtensions: 'all' },
    (started) => (e2e = started),
  );

  test('MCP: List Servers shows Holdfast; started, it reports all its tools', { timeout: 240_000 }, async (t) => {
    await e2e.run(t.name, async () => {
      const folder = e2e.workspace('mcp');
      await e2e.open(folder);
      assert.equal(await startServer(e2e.wb), 9, 'the five reading tools and the four acting ones (run_command too)');
      server = await waitFor(() => serverProcess(e2e.iso.socket), { message: 'the holdfast mcp process' });
      assert.deepEqual(server.argv.slice(2), ['mcp', '--sessions', 'workspace']);
      assert.equal(server.cwd, folder);
    });
  });

  test('the server VS Code runs reaches the workspace sessions only', { timeout: 120_000 }, async (t) => {
    await e2e.run(t.name, async () => {
      insideAndOutside(e2e, e2e.workspace('mcp'));
      const client = await sameServer(server);
      try {
        assert.deepEqual(await listedNames(client), ['inside']);
        const refused = (await client.callTool({
          name: 'send',
          arguments: { session: 'outside', text: 'echo reached', enter: true },
        })) as CallToolResult;
        assert.equal(refused.isError, true, JSON.stringify(refused.content));
        const sent = (await client.callTool({
          name: 'send',
          arguments: { session: 'inside', text: 'echo reached-$((40+2))', enter: true },
        })) as CallToolResult;
        assert.notEqual(sent.isError, true, JSON.stringify(sent.content));
        const inside = e2e.iso.sessions().find((s) => s.name === 'inside')!;
        await e2e.iso.waitForScreen(inside.id, /reached-42/);
        const outside = e2e.iso.sessions().find((s) => s.name === 'outside')!;
        assert.doesNotMatch(e2e.iso.screen(outside.id).join('\n'), /reached/);
      } finally {
        await client.close();
      }
    });
  });
});
