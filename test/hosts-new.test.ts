// Starting a session on an SSH host from the window (New Terminal / New Agent on a host): the window's one
// connection to a host with no daemon says so, and start() starts the host's on-demand daemon over ssh
// (`bridge --start`, as `holdfast new --host` does) and becomes that connection; a folder not there is the host's
// one line. A real sshd on loopback with a remote HOME of its own (test/helpers/sshd.ts).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { HostConnection } from '../src/extension/hostConnection';
import { sshLink } from '../src/link/daemonLink';
import { RequestError } from '../src/client/client';
import { type CliSandbox, waitFor } from './helpers/cli';
import { hostsSandbox, REMOTE, type SshServer, startSshServer, UNKNOWN_KEY } from './helpers/sshd';

let box: CliSandbox;
let sshd: SshServer;
before(async () => {
  sshd = await startSshServer();
  box = hostsSandbox(sshd);
});
after(async () => {
  await box?.cleanup();
  await sshd?.stop();
});

const STEP_MS = 60_000;

test("a host with no daemon: the window's connection says so, start() starts one there and connects", async () => {
  const lines: string[] = [];
  const connection = new HostConnection(sshLink({ target: REMOTE, name: 'remote' }, box.env, 'extension'), (line) =>
    lines.push(line),
  );
  try {
    await waitFor(
      () => connection.state.kind === 'failed' && /no Holdfast daemon is listening on remote/.test(lines.join('\n')),
      STEP_MS,
      "the host's no-daemon line",
    );
    const [client, same] = await Promise.all([connection.start(), connection.start()]);
    assert.equal(client, same, 'one connection for two asks');
    assert.equal(connection.state.kind, 'connected');
    assert.equal(connection.client, client);
    assert.equal(await connection.start(), client, 'connected: the same client');

    await assert.rejects(
      client.request('create', { cwd: '/no/such/folder/here' }),
      (err: unknown) => err instanceof RequestError && err.message === 'no such directory: /no/such/folder/here',
    );
    const home = sshd.remoteEnv.HOME!;
    const { session } = await client.request('create', { name: 'started', cwd: home, argv: ['sleep', '100000'] });
    assert.equal(session.cwd, home);
    const listed = JSON.parse(await box.ok(['--host', REMOTE, 'show', 'started', '--json'])) as { pid: number };
    assert.equal(listed.pid, session.pid, "the session runs on the host's daemon");
    // The reconnect loop the first failure began was dropped: the connection stays the one start() made.
    assert.equal(connection.client, client);
    assert.ok(!lines.some((line) => /lost/.test(line)), lines.join('\n'));
    await box.ok(['--host', REMOTE, 'kill', 'started', '--remove']);
  } finally {
    connection.dispose();
  }
});

test('a host that cannot be reached: start() fails at once with its one line, never a prompt', async () => {
  const lines: string[] = [];
  const connection = new HostConnection(sshLink({ target: UNKNOWN_KEY }, box.env, 'extension'), (line) =>
    lines.push(line),
  );
  try {
    await assert.rejects(connection.start(), { message: `ssh: host key unknown — run \`ssh ${UNKNOWN_KEY}\` once` });
    assert.equal(connection.state.kind, 'failed');
  } finally {
    connection.dispose();
  }
});
