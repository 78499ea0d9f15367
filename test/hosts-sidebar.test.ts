// The Sessions view's host sections without VS Code (remoteHosts.ts): a real sshd on loopback with a daemon of its
// own, the window's connection per host, its cards keyed by host and id, a failing host's one line, a far end that
// never answers, its ssh killed and the section back by itself; and what a hostile host may say, checked.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { sshLink } from '../src/link/daemonLink';
import type { HostEntry } from '../src/link/hosts';
import { EventBudget } from '../src/link/eventBudget';
import { MAX_REMOTE_SESSIONS, remoteEvent, remoteSessionList, remoteTabEvent } from '../src/link/remoteSessions';
import { RemoteHosts } from '../src/extension/remoteHosts';
import { parseKey, remoteKey } from '../src/extension/sessionKey';
import type { HostSection } from '../src/extension/sessionState';
import { type CliSandbox, waitFor } from './helpers/cli';
import { sessionInfo } from './helpers/sessionInfo';
import {
  BASH,
  bridgeSshPids,
  hostsSandbox,
  NOBODY_THERE,
  REMOTE,
  type SshServer,
  startSshServer,
  UNKNOWN_KEY,
} from './helpers/sshd';

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

const log = { info: () => undefined, warn: () => undefined };

async function sectionWhere(
  remotes: RemoteHosts,
  name: string,
  fits: (section: HostSection) => boolean,
  what: string,
): Promise<HostSection> {
  let found: HostSection | undefined;
  await waitFor(
    () => {
      found = remotes.sections(Date.now()).find((s) => s.name === name);
      return !!found && fits(found);
    },
    60_000,
    what,
  );
  return found!;
}

test('a section per host: sessions keyed by host and id, live, back by itself after its ssh is killed', async () => {
  await box.ok(['--host', REMOTE, 'new', '--name', 'far', ...BASH]);
  const silent = path.join(box.dir, 'silent-ssh');
  fs.writeFileSync(silent, '#!/bin/sh\nexec cat >/dev/null\n', { mode: 0o755 });
  const entries: HostEntry[] = [
    { target: REMOTE, name: 'remote' },
    { target: UNKNOWN_KEY },
    { target: NOBODY_THERE },
    { target: 'hf-silent', timeoutMs: 1000 },
  ];
  const remotes = new RemoteHosts({
    link: (entry) =>
      sshLink(entry, entry.target === 'hf-silent' ? { ...box.env, HOLDFAST_SSH: silent } : box.env, 'extension'),
    log,
  });
  try {
    remotes.update(entries);
    assert.deepEqual(
      remotes.sections(Date.now()).map((s) => s.name),
      ['remote', UNKNOWN_KEY, NOBODY_THERE, 'hf-silent'],
    );
    const remote = await sectionWhere(remotes, 'remote', (s) => s.cards.length === 1, 'the remote session');
    const [card] = remote.cards;
    assert.equal(card.name, 'far');
    assert.equal(card.host, 'remote');
    assert.equal(card.here, false);
    const { host, id } = parseKey(card.id);
    assert.equal(host, 'remote');
    assert.equal(card.id, remoteKey('remote', id));
    assert.match(id, /^[0-9a-f]{8}$/);
    // A preview's watcher over the host's connection: the session's screen.
    let screen = '';
    const watcher = await remotes
      .get('remote')!
      .connection.client!.attach(
        { session: id, role: 'watcher' },
        { onSnapshot: (bytes) => (screen += bytes.toString()), onOutput: (bytes) => (screen += bytes.toString()) },
      );
    await waitFor(() => screen.includes('$'), 20_000, "the remote session's screen");
    watcher.dispose();

    const unknown = await sectionWhere(remotes, UNKNOWN_KEY, (s) => s.state === 'failed', 'the host key failure');
    assert.equal(unknown.error, `ssh: host key unknown — run \`ssh ${UNKNOWN_KEY}\` once`);
    const nobody = await sectionWhere(remotes, NOBODY_THERE, (s) => !!s.error, 'the refused connection');
    assert.match(nobody.error!, /refused the connection/);
    const silentSection = await sectionWhere(remotes, 'hf-silent', (s) => !!s.error, 'the handshake timeout');
    assert.match(silentSection.error!, /did not answer the handshake within 1000 ms/);

    // A new session there shows up by the host's own event.
    await box.ok(['--host', REMOTE, 'new', '--name', 'far-2', ...BASH]);
    await sectionWhere(remotes, 'remote', (s) => s.cards.some((c) => c.name === 'far-2'), 'the second session');

    // ssh killed: the section reconnects by itself and shows the same sessions.
    const connection = remotes.get('remote')!.connection;
    const firstClient = connection.client;
    const pids = bridgeSshPids().filter((pid) => pid !== undefined);
    assert.ok(pids.length >= 1, 'an ssh running the bridge');
    for (const pid of pids) process.kill(pid, 'SIGKILL');
    await waitFor(() => !!connection.client && connection.client !== firstClient, 60_000, 'the reconnection');
    await sectionWhere(remotes, 'remote', (s) => s.state === 'connected' && s.cards.length === 2, 'both again');

    // Removed from the setting: its connection ends.
    remotes.update([{ target: REMOTE, name: 'remote' }]);
    assert.deepEqual(
      remotes.sections(Date.now()).map((s) => s.name),
      ['remote'],
    );
    assert.equal(remotes.get('remote')!.connection, connection, 'an unchanged entry keeps its connection');
  } finally {
    remotes.dispose();
  }
  await waitFor(() => bridgeSshPids().length === 0, 20_000, 'every ssh to end with the hosts');
});

test('a hostile host: forged sessions and events dropped, a flood bounded, keys never pass for local ids', () => {
  const good = sessionInfo('abcd1234', {
    name: 'x',
    lastOutputAt: 1,
    createdAt: 1,
    attention: { state: 'running', since: 1, source: 'output' },
  });
  const forged = [
    { ...good, id: '../local' },
    { ...good, name: 42 },
    { ...good, cols: 1e9 },
    { ...good, attention: { state: 'waiting', since: 1, source: 'hook', reason: 'x'.repeat(5000) } },
    'junk',
    null,
  ];
  assert.deepEqual(
    remoteSessionList([good, ...forged]).map((s) => s.id),
    ['abcd1234'],
  );
  const flood = Array.from({ length: 10_000 }, (_, i) => ({ ...good, id: `s${i}` }));
  assert.equal(remoteSessionList(flood).length, MAX_REMOTE_SESSIONS);
  assert.equal(remoteSessionList({ length: 3 }).length, 0);
  assert.equal(remoteEvent({ type: 'session', session: { ...good, name: {} } }), undefined);
  assert.equal(remoteEvent({ type: 'removed', id: 'a/b' }), undefined);
  assert.equal(remoteEvent({ type: 'role', channel: 1, role: 'owner', reason: '' }), undefined);
  assert.equal(remoteEvent({ type: 'stopping' }), undefined);
  assert.deepEqual(remoteEvent({ type: 'removed', id: 'abcd1234' }), { type: 'removed', id: 'abcd1234' });
  // What a tab is told: its role and its session's exit, checked (a signal is a signal's name, nothing more).
  const exit = (signal: unknown) => ({ type: 'exit', id: 'abcd1234', exit: { code: null, signal, at: 1 } });
  assert.deepEqual(remoteTabEvent(exit('SIGKILL')), exit('SIGKILL'));
  for (const forged of [
    exit('\x1b]0;x\x07'),
    exit('SIGKILL '),
    { type: 'exit', id: 'abcd1234', exit: { code: {}, signal: null, at: 1 } },
    { type: 'exit', id: 'abcd1234', exit: null },
    { type: 'role', channel: 1, role: 'root', reason: '' },
    { type: 'role', channel: 1, role: 'watcher', reason: 'x'.repeat(5000) },
    { type: 'role', channel: '1', role: 'owner', reason: '' },
    { type: 'session', session: { ...good, cols: 0 } },
    null,
  ])
    assert.equal(remoteTabEvent(forged), undefined, JSON.stringify(forged));
  assert.equal(remoteEvent(exit('\x1b[2J')), undefined, 'a forged exit in the sidebar path');
  // The budget: so many a second, then dropped and counted; the flood's end is said once, with the count.
  const said: string[] = [];
  let dropped = -1;
  const budget = new EventBudget('host h', { log: (line) => said.push(line), ended: (n) => (dropped = n) }, 3);
  assert.deepEqual(
    [0, 1, 2, 3, 4, 999, 1000].map((at) => budget.admit(at)),
    [true, true, true, false, false, false, true],
  );
  assert.deepEqual(said, ['host h sends more than 3 events a second: the rest are dropped']);
  budget.dispose();
  assert.equal(dropped, -1, 'disposed: no end is told');
  // Keys: a host's session never reads as this machine's, nor as another host's.
  assert.deepEqual(parseKey('abcd1234'), { id: 'abcd1234' });
  assert.deepEqual(parseKey(remoteKey('ssh://me@h:22/x', 'abcd1234')), { host: 'ssh://me@h:22/x', id: 'abcd1234' });
  assert.notEqual(remoteKey('a', 'b/c'), remoteKey('a/b', 'c'));
  assert.deepEqual(parseKey('@%E0%A4%A/x'), { host: '', id: '' });
});
