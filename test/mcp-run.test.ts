// `holdfast mcp`'s run_command: a command in a shell session, its output and exit code, within the
// server's rights (sessions it may use, not with --read-only) and a time and output budget.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { SessionInfo } from '../src/protocol/messages';
import { CLI_SCRIPT, startTestDaemon, type TestDaemon, tempDir, waitForText } from './helpers/daemon';
import { atPrompt, integratedBash } from './helpers/marks';

let daemon: TestDaemon;
let shell: SessionInfo;
let other: SessionInfo;
const clients: Client[] = [];

async function mcp(args: string[]): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_SCRIPT, 'mcp', ...args],
    env: daemon.env as Record<string, string>,
    cwd: daemon.dir,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'holdfast-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call(client: Client, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name: 'run_command', arguments: args })) as CallToolResult;
}

before(async () => {
  daemon = await startTestDaemon();
  const control = await daemon.connect();
  shell = await integratedBash(control, tempDir('hf-mcp-run-'), { name: 'shell' });
  other = await integratedBash(control, tempDir('hf-mcp-run-'), { name: 'other' });
});
after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await daemon.stop();
});

test('run_command answers with the output and exit code; its end within maxOutputChars; the timeout', async () => {
  const client = await mcp([]);
  const result = await call(client, { session: 'shell', command: 'echo hi; (exit 3)' });
  assert.ok(!result.isError, JSON.stringify(result.content));
  const data = result.structuredContent as Record<string, unknown>;
  assert.deepEqual([data.exitCode, data.output, data.truncated, data.timedOut], [3, 'hi\n', false, false]);
  assert.match((result.content[0] as { text: string }).text, /^exit 3 in [0-9a-f]+ "shell" .*\nhi\n$/);
  const cut = (await call(client, { session: 'shell', command: 'seq 1 1000', maxOutputChars: 9 })).structuredContent;
  assert.deepEqual([cut?.output, cut?.truncated, cut?.exitCode], ['998\n999\n1000\n'.slice(-9), true, 0]);
  // A timeout before the shell ran the line: no output yet, never the command before's (its output, the
  // prompt and the line typed were what the shell showed until then).
  const early = (await call(client, { session: 'shell', command: 'echo begun; sleep 1; echo early-end', timeoutMs: 1 }))
    .structuredContent;
  assert.equal(early?.timedOut, true);
  assert.ok(
    ['', 'begun\n'].includes(early?.output as string),
    `only its own output: ${JSON.stringify(early?.output).slice(0, 200)}`,
  );
  const control = await daemon.connect();
  assert.ok((await waitForText(control, shell.id, '^early-end$', 30_000)).met);
  await atPrompt(control, shell.id);
  // Begun within 2 s however busy the machine (echo is the shell's own).
  const slow = (await call(client, { session: 'shell', command: 'echo begun; sleep 3', timeoutMs: 2000 }))
    .structuredContent;
  assert.deepEqual([slow?.timedOut, slow?.exitCode, slow?.output], [true, undefined, 'begun\n']);
  const after = await atPrompt(await daemon.connect(), shell.id);
  assert.equal(after.shell?.lastExit, 0, 'the command went on to its end');
});

test('run_command stays within the rights: not with --read-only, not in a session outside --sessions', async () => {
  const readOnly = await mcp(['--read-only']);
  assert.ok(!(await readOnly.listTools()).tools.some((t) => t.name === 'run_command'));
  const scoped = await mcp(['--sessions', 'shell']);
  const refused = await call(scoped, { session: 'other', command: 'echo no' });
  assert.equal(refused.isError, true);
  assert.match((refused.content[0] as { text: string }).text, /other/);
  const { lines } = await (await daemon.connect()).request('read', { session: other.id });
  assert.ok(!lines.some((l) => l.includes('echo no')), 'nothing was typed into the session outside the scope');
  const ok = await call(scoped, { session: 'shell', command: 'echo yes' });
  assert.equal((ok.structuredContent as { output: string }).output, 'yes\n');
  assert.equal(shell.name, 'shell');
});
