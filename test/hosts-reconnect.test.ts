// Clients that ride through a lost connection: `holdfast attach` across a local `holdfast upgrade` (a handoff) and
// across its ssh process killed (a real sshd on loopback), `holdfast wait` across an upgrade, `holdfast mcp --host`'s
// wait across its ssh killed. Each says so in one
// line, reconnects by itself and resyncs; the program never notices (same pid, same shell variables).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { connectOptions } from '../src/client/clientOptions';
import { HoldfastClient } from '../src/client/client';
import { AttachTerminal, showSession, STEP_TIMEOUT_MS } from './helpers/attach';
import { CLI_SCRIPT, type CliSandbox, runCli, waitFor } from './helpers/cli';
import { hostsSandbox, REMOTE, type SshServer, startSshServer } from './helpers/sshd';

let box: CliSandbox;
let sshd: SshServer;
before(async () => {
  sshd = await startSshServer();
  box = hostsSandbox(sshd, [{ target: REMOTE, name: 'remote' }]);
});
after(async () => {
  await box?.cleanup();
  await sshd?.stop();
});

const BASH = ['--env', 'PS1=$ ', '--', 'bash', '--norc', '--noprofile'];

/** The processes whose parent is `pid` (Linux). */
function childrenOf(pid: number): number[] {
  const list = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return list ? list.split(/\s+/).map(Number) : [];
}

function commandOf(pid: number): string {
  return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
}

/** Types a line that sets a variable, then checks it is still set after the reconnect: the shell is the same one. */
async function typeAndSee(t: AttachTerminal, line: string, expected: string, what: string): Promise<void> {
  const mark = t.output.length;
  t.term.write(`${line}\r`);
  await t.expect(expected, what, mark);
}

test('attach rides through `holdfast upgrade`: one line, then the same shell, typed into', async () => {
  await box.ok(['new', '--name', 'here', ...BASH]);
  const before = await showSession(box, 'here');
  const t = new AttachTerminal(box, ['here']);
  await t.expect('$ ', 'the prompt');
  await typeAndSee(t, 'KEPT=here-$((20+22))', '$ ', 'the assignment');
  const upgraded = await box.run(['upgrade']);
  assert.equal(upgraded.code, 0, upgraded.stderr);
  await t.expect(/holdfast: the connection to the daemon was lost \([^)]*\); reconnecting…/, 'the one line');
  await typeAndSee(t, 'echo "[$KEPT]"', '[here-42]', 'the same shell after the handoff');
  const after = await showSession(box, 'here');
  assert.equal(after.pid, before.pid, 'the program is untouched');
  assert.equal(after.clients.owners, 1);
  t.term.write('\x1c');
  const { rc } = await t.finished();
  assert.equal(rc, 0);
});

test('wait rides through `holdfast upgrade` and still sees its text', async () => {
  await box.ok(['new', '--name', 'waited', ...BASH]);
  // The wait is in the daemon once the daemon counts its connection beside ours alone (the CLI connects, then asks
  // at once): the connections of the tests before have gone first.
  const probe = await HoldfastClient.connect(connectOptions(box.socket, box.env));
  const connections = async () => (await probe.request('status', {})).clients;
  let waiting: ReturnType<typeof runCli>;
  try {
    await waitFor(async () => (await connections()) === 1, STEP_TIMEOUT_MS, 'earlier connections to go');
    waiting = runCli(box.env, ['wait', 'waited', '--for', 'text:^ready-after$', '--timeout-ms', '60000'], {
      timeoutMs: 90_000,
    });
    await waitFor(async () => (await connections()) >= 2, STEP_TIMEOUT_MS, 'the wait to connect');
  } finally {
    probe.close();
  }
  const upgraded = await box.run(['upgrade']);
  assert.equal(upgraded.code, 0, upgraded.stderr);
  await box.ok(['send', 'waited', '--text', 'echo ready-after', '--enter']);
  const result = await waiting;
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /^holdfast: the connection to the daemon was lost \([^)]*\); reconnecting…$/m);
});

test('attach over ssh: ssh killed, the attach reconnects and the remote program never noticed', async () => {
  await box.ok(['--host', 'remote', 'new', '--name', 'far', ...BASH]);
  const remoteBefore = JSON.parse(await box.ok(['--host', 'remote', 'show', 'far', '--json'])) as { pid: number };
  const t = new AttachTerminal({ ...box, env: { ...box.env, HOLDFAST_HOST: 'remote' } }, ['far']);
  await t.expect('$ ', 'the remote prompt');
  await typeAndSee(t, 'KEPT=far-$((40+2))', '$ ', 'the assignment');
  // The sh of the terminal runs node (the CLI), which runs ssh.
  let ssh: number | undefined;
  await waitFor(
    () => {
      const cli = childrenOf(t.term.pid).find((pid) => commandOf(pid).includes('attach'));
      ssh = cli === undefined ? undefined : childrenOf(cli).find((pid) => commandOf(pid).includes('ssh'));
      return ssh !== undefined;
    },
    STEP_TIMEOUT_MS,
    'the attach to run ssh',
  );
  process.kill(ssh!, 'SIGKILL');
  await t.expect(/holdfast: the connection to remote was lost \([^)]*SIGKILL[^)]*\); reconnecting…/, 'the one line');
  await typeAndSee(t, 'echo "[$KEPT]"', '[far-42]', 'the same remote shell after the reconnect');
  const remoteAfter = JSON.parse(await box.ok(['--host', 'remote', 'show', 'far', '--json'])) as { pid: number };
  assert.equal(remoteAfter.pid, remoteBefore.pid, 'the remote program is untouched');
  t.term.write('\x1c');
  const { rc } = await t.finished();
  assert.equal(rc, 0);
});

test('holdfast mcp --host: a wait in flight when its ssh is killed reconnects, is asked again and is met', async () => {
  await box.ok(['--host', 'remote', 'new', '--name', 'mcp-far', ...BASH]);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_SCRIPT, 'mcp', '--host', 'remote'],
    env: box.env as Record<string, string>,
    cwd: box.dir,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'holdfast-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    // In flight once the remote daemon counts its connection beside the probe's alone (earlier ones gone first).
    const remoteSocket = path.join(sshd.remoteEnv.XDG_RUNTIME_DIR!, 'holdfast', 'holdfast.sock');
    const probe = await HoldfastClient.connect(connectOptions(remoteSocket, sshd.remoteEnv));
    const connections = async () => (await probe.request('status', {})).clients;
    let waiting: ReturnType<typeof client.callTool>;
    try {
      await waitFor(async () => (await connections()) === 1, STEP_TIMEOUT_MS, 'earlier connections to go');
      waiting = client.callTool(
        { name: 'wait', arguments: { session: 'mcp-far', for: 'text', pattern: '^mcp-after$', timeoutMs: 60_000 } },
        undefined,
        { timeout: 90_000 },
      );
      await waitFor(async () => (await connections()) >= 2, STEP_TIMEOUT_MS, 'the wait');
    } finally {
      probe.close();
    }
    const ssh = childrenOf(transport.pid!).filter((pid) => commandOf(pid).includes('ssh'));
    assert.equal(ssh.length, 1, 'one ssh, the wait call');
    process.kill(ssh[0], 'SIGKILL');
    await waitFor(() => stderr.includes('reconnecting'), STEP_TIMEOUT_MS, 'the one line on stderr');
    assert.match(stderr, /^holdfast mcp: the connection to remote was lost \([^)]*SIGKILL[^)]*\); reconnecting…$/m);
    await box.ok(['--host', 'remote', 'send', 'mcp-far', '--text', 'echo mcp-after', '--enter']);
    const result = (await waiting) as unknown as { structuredContent: { met: boolean }; isError?: boolean };
    assert.equal(result.isError, undefined, JSON.stringify(result));
    assert.equal(result.structuredContent.met, true);
  } finally {
    await client.close();
  }
});
