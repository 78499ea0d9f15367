// A host's session in a local tab without VS Code: the tab (pseudoterminal.ts) attached over the host's one
// connection (remoteHosts.ts) to a real sshd on loopback with a daemon of its own. Its key is "@HOST/ID"; it takes
// input and resizes the session on the host's daemon, never touching this machine's; its ssh killed, it says it is
// reconnecting and comes back by itself from a snapshot to the same remote shell.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { DaemonConnection } from '../src/extension/daemonConnection';
import { hostReconnecting } from '../src/extension/notices';
import { SessionTab } from '../src/extension/pseudoterminal';
import { RemoteHosts } from '../src/extension/remoteHosts';
import { remoteKey } from '../src/extension/sessionKey';
import type { TabHost } from '../src/extension/tabHost';
import { sshLink } from '../src/link/daemonLink';
import type { SessionInfo } from '../src/protocol/messages';
import { type CliSandbox, waitFor } from './helpers/cli';
import { BASH, bridgeSshPids, hostsSandbox, REMOTE, type SshServer, startSshServer } from './helpers/sshd';

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
const log = { info: () => undefined, warn: () => undefined };

/** The session as the host's daemon has it now (asked over its own CLI, not the window's connection). */
async function remoteShow(name: string): Promise<SessionInfo> {
  return JSON.parse(await box.ok(['--host', REMOTE, 'show', name, '--json'])) as SessionInfo;
}

/** This machine's daemon must never be asked for a host's tab: any use of it fails the test. */
const NOT_HERE = new Proxy({} as DaemonConnection, {
  get: (_, property) => {
    throw new Error(`a host's tab used this machine's daemon connection (${String(property)})`);
  },
});

test("a host's session in a tab: keyed by host, typed and resized there, back after its ssh dies", async () => {
  await box.ok(['--host', REMOTE, 'new', '--name', 'far', ...BASH]);
  const before = await remoteShow('far');
  const remotes = new RemoteHosts({ link: (entry) => sshLink(entry, box.env, 'extension'), log });
  const errors: string[] = [];
  const warnings: string[] = [];
  const host: TabHost = {
    connection: NOT_HERE,
    hostLink: (name) => remotes.get(name)?.connection,
    sessionKnown: () => assert.fail('a host tab creates no session'),
    becameOwner: () => undefined,
    sessionRemoved: () => undefined,
    reportError: (message, error) => errors.push(`${message}: ${String(error)}`),
    warn: (line) => warnings.push(line),
  };
  let tab: SessionTab | undefined;
  try {
    remotes.update([{ target: REMOTE, name: 'remote' }]);
    const remote = remotes.get('remote')!;
    await waitFor(() => remote.sessions.get(before.id) !== undefined, STEP_MS, 'the host to list the session');
    const session = remote.sessions.get(before.id)!;
    tab = new SessionTab(host, { kind: 'existing', session, host: 'remote' });
    const shown = tab;
    // The window's wiring (remoteTabs.ts): the host's connection, not this machine's, tells the tab.
    remotes.onDidLose((name) => name === 'remote' && shown.connectionLost());
    remotes.onDidConnect(({ host: name, client }) => name === 'remote' && shown.reconnected(client));
    let written = '';
    tab.onDidWrite((text) => (written += text));
    assert.equal(tab.sessionId, remoteKey('remote', before.id), 'the tab is known by its key');
    assert.equal(tab.tabName('far'), 'far (remote)');

    tab.open({ columns: 90, rows: 30 });
    await waitFor(() => shown.status === 'live' && written.includes('$ '), STEP_MS, 'the remote prompt in the tab');
    await waitFor(
      async () => {
        const now = await remoteShow('far');
        return now.clients.owners === 1 && now.cols === 90 && now.rows === 30;
      },
      STEP_MS,
      "the tab to own the session on the host's daemon, at its size",
    );
    tab.handleInput('KEPT=far-$((40+2)); echo "typed-$((6*7))"\r');
    await waitFor(() => written.includes('typed-42'), STEP_MS, 'the echo of what was typed');
    tab.setDimensions({ columns: 100, rows: 32 });
    await waitFor(async () => (await remoteShow('far')).cols === 100, STEP_MS, 'the resize on the host');

    const firstClient = remote.connection.client;
    const mark = written.length;
    const pids = bridgeSshPids();
    assert.ok(pids.length >= 1, 'an ssh running the bridge');
    for (const pid of pids) process.kill(pid, 'SIGKILL');
    await waitFor(() => written.includes(hostReconnecting('remote'), mark), STEP_MS, 'the tab to say it reconnects');
    await waitFor(
      () => remote.connection.client !== firstClient && shown.status === 'live',
      STEP_MS,
      `the tab live again over a new connection (it is ${shown.status})`,
    );
    const again = written.length;
    tab.handleInput('echo "[$KEPT]"\r');
    await waitFor(
      () => written.slice(again).includes('[far-42]'),
      STEP_MS,
      'the same remote shell after the reconnect',
    );
    const after = await remoteShow('far');
    assert.equal(after.pid, before.pid, 'the remote program is untouched');
    assert.equal(after.clients.owners, 1, 'one owner: the tab, once');
    assert.deepEqual(errors, []);
  } finally {
    tab?.dispose();
    remotes.dispose();
  }
});
