// A hostile host, reached over a real sshd on loopback: its far end (helpers/hostileHost.ts, run in place of
// `holdfast bridge`) forges what a tab and the sidebar are told, floods events, never answers, or sends a frame no
// daemon would. Each time this machine's side stays responsive: a request to a local daemon, asked every 20 ms
// meanwhile, is answered within a bound.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { HoldfastClient } from '../src/client/client';
import type { DaemonConnection } from '../src/extension/daemonConnection';
import { NOTICE } from '../src/extension/notices';
import { SessionTab } from '../src/extension/pseudoterminal';
import { RemoteHosts } from '../src/extension/remoteHosts';
import type { TabHost } from '../src/extension/tabHost';
import { sshLink } from '../src/link/daemonLink';
import { HOST_EVENTS_PER_SECOND } from '../src/link/eventBudget';
import type { HostEntry } from '../src/link/hosts';
import { type CliSandbox, waitFor } from './helpers/cli';
import { startTestDaemon, type TestDaemon } from './helpers/daemon';
import { FLOOD_MS, FORGED_DONE, FORGED_SIGNAL, HOSTILE_SESSION } from './helpers/hostileHost';
import { percentile, record } from './helpers/reliability';
import { bridgeSshPids, hostsSandbox, REMOTE, type SshServer, startSshServer } from './helpers/sshd';

let box: CliSandbox;
let sshd: SshServer;
let local: TestDaemon;
let localClient: HoldfastClient;
before(async () => {
  sshd = await startSshServer();
  box = hostsSandbox(sshd);
  local = await startTestDaemon();
  localClient = await local.connect('window');
});
after(async () => {
  await local?.stop();
  await box?.cleanup();
  await sshd?.stop();
});

/** A local request the window makes while the host misbehaves must be answered within this. */
const LOCAL_BOUND_MS = 1000;
const STEP_MS = 60_000;

/** The host entry whose far end is the hostile one in `mode`. */
function hostile(mode: string, extra: Partial<HostEntry> = {}): HostEntry {
  const script = path.join(__dirname, 'helpers', 'hostileHost.js');
  return { target: REMOTE, name: mode, command: `${process.execPath} ${script} ${mode} #`, ...extra };
}

/** The window's hosts, with what they log kept. */
function window(entries: HostEntry[]): { remotes: RemoteHosts; lines: string[] } {
  const lines: string[] = [];
  const log = { info: (line: string) => lines.push(line), warn: (line: string) => lines.push(line) };
  const remotes = new RemoteHosts({ link: (entry) => sshLink(entry, box.env, 'extension'), log });
  remotes.update(entries);
  return { remotes, lines };
}

/** Asks the local daemon for its list every 20 ms until stopped: how long each answer took, in ms. */
function probeLocal(): { stop(): Promise<{ count: number; p90: number; max: number }> } {
  const times: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      await localClient.request('list', {});
      times.push(Date.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { count: times.length, p90: percentile(times, 90), max: Math.max(...times) };
    },
  };
}

const NOT_HERE = new Proxy({} as DaemonConnection, {
  get: (_, property) => {
    throw new Error(`a host's tab used this machine's daemon connection (${String(property)})`);
  },
});

test("a host's tab is told a forged role and exit, forged sessions: dropped, nothing printed, input kept", async () => {
  const { remotes } = window([hostile('forge')]);
  const errors: string[] = [];
  const host: TabHost = {
    connection: NOT_HERE,
    hostLink: (name) => remotes.get(name)?.connection,
    sessionKnown: () => assert.fail('a host tab creates no session'),
    becameOwner: () => undefined,
    sessionRemoved: () => assert.fail('a forged removal closed the tab'),
    reportError: (message, error) => errors.push(`${message}: ${String(error)}`),
    warn: () => undefined,
  };
  let tab: SessionTab | undefined;
  const probe = probeLocal();
  try {
    const remote = remotes.get('forge')!;
    await waitFor(() => remote.sessions.all.length > 0, STEP_MS, 'the hostile host to list its session');
    assert.deepEqual(
      remote.sessions.all.map((s) => s.id),
      [HOSTILE_SESSION],
      'the forged session infos of its list are dropped',
    );
    tab = new SessionTab(host, { kind: 'existing', session: remote.sessions.get(HOSTILE_SESSION)!, host: 'forge' });
    let written = '';
    tab.onDidWrite((text) => (written += text));
    tab.open({ columns: 80, rows: 24 });
    const shown = tab;
    await waitFor(() => written.includes(FORGED_DONE), STEP_MS, 'the output after the forged events');
    assert.ok(!written.includes(FORGED_SIGNAL) && !written.includes('pwned'), 'a forged exit status was printed');
    assert.ok(!written.includes('process exited'), 'a forged exit ended the tab');
    assert.ok(!written.includes(NOTICE.inputMoved), 'a forged role took the input away');
    assert.equal(shown.status, 'live');
    assert.equal(remote.sessions.get(HOSTILE_SESSION)?.state, 'running', 'a forged exit reached the sidebar');
    assert.deepEqual(errors, []);
    const local = await probe.stop();
    assert.ok(local.max < LOCAL_BOUND_MS, `a local list took ${local.max} ms`);
    record({
      item: 'hostile',
      name:
        "a host's far end forging, to a tab of its session: a role 'root' and one with a 10,000-character reason, " +
        'an exit whose signal is escape sequences, one whose code is an object, a session info with cols 1e9, a ' +
        "removal of '../ID'; in its list, sessions with a bad id or pid (over a real sshd)",
      value:
        `all dropped: nothing printed, the tab live and owning; its card running, one session listed; local list max ` +
        `${local.max} ms ` +
        '(was: the forged exit printed in the tab, its escapes with it)',
      bound: `local < ${LOCAL_BOUND_MS} ms`,
    });
  } finally {
    await probe.stop();
    tab?.dispose();
    remotes.dispose();
  }
});

test('a host flooding events: at most its budget applied, one line when it starts and ends, resynced', async () => {
  const { remotes, lines } = window([hostile('flood')]);
  const probe = probeLocal();
  let applied = 0;
  let received = 0;
  let firstAt = 0;
  let lastAt = 0;
  let resynced = false;
  const starts = () => lines.filter((l) => l.includes('events a second'));
  const ends = () => lines.filter((l) => l.includes('its flood of events ended'));
  try {
    const remote = remotes.get('flood')!;
    remote.sessions.onEvent(() => applied++);
    remote.connection.onDidConnect((client) =>
      client.onEvent(() => {
        received++;
        lastAt = Date.now();
        firstAt ||= lastAt;
      }),
    );
    // After a flood's end, its list read again: the session as the host lists it, not as its events said.
    remote.sessions.onDidChange(() => {
      if (ends().length > 0 && remote.sessions.get(HOSTILE_SESSION)?.name === 'hostile') resynced = true;
    });
    await waitFor(() => starts().length > 0, STEP_MS, 'the flood to be noticed');
    // Over: nothing came for 2 s and every flood the window saw has ended (a starved window may see two).
    await waitFor(
      () => ends().length === starts().length && Date.now() - lastAt > 2000,
      STEP_MS,
      'the end of the flood',
    ).catch((err: Error) => {
      throw new Error(`${err.message}: ${received} received, last ${Date.now() - lastAt} ms ago; ${lines.join('; ')}`);
    });
    const seconds = (lastAt - firstAt) / 1000;
    const local = await probe.stop();
    assert.ok(received > FLOOD_MS, `the far end sent only ${received} events`);
    assert.ok(
      applied <= HOST_EVENTS_PER_SECOND * (seconds + 2 * starts().length),
      `${applied} of ${received} events applied in ${seconds.toFixed(1)} s`,
    );
    const dropped = ends().reduce((sum, line) => sum + Number(/, (\d+) dropped$/.exec(line)![1]), 0);
    assert.equal(dropped, received - applied, lines.join('\n'));
    await waitFor(() => resynced, STEP_MS, 'the list read again after the flood');
    assert.ok(local.max < LOCAL_BOUND_MS, `a local list took ${local.max} ms`);
    record({
      item: 'hostile',
      name: 'a host flooding session events as fast as ssh takes them for 4 s (a changed session, an attention)',
      value:
        `${applied} of ${received} events applied, the rest dropped and counted, a line when it started and one ` +
        `when it ended (${starts().length} floods seen), then its list read again; local list p90 ${local.p90} / ` +
        `max ${local.max} ms ` +
        '(was: every event checked and applied)',
      bound: `≤ ${HOST_EVENTS_PER_SECOND} a second; local < ${LOCAL_BOUND_MS} ms`,
    });
  } finally {
    await probe.stop();
    remotes.dispose();
  }
  await waitFor(() => bridgeSshPids().length === 0, 20_000, 'every ssh to end with the hosts');
});

test('a host that answers its hello and then nothing: one line on its section, the window answers', async () => {
  // Long enough for ssh and the far end to start on two busy cores: the hello comes within it.
  const { remotes } = window([hostile('mute', { timeoutMs: 8000 })]);
  const probe = probeLocal();
  const started = Date.now();
  try {
    const connection = remotes.get('mute')!.connection;
    await waitFor(() => connection.state.kind === 'connected', STEP_MS, 'the mute host to say hello');
    await waitFor(
      () => remotes.sections(Date.now())[0].state === 'failed',
      STEP_MS,
      'the section to say the host does not answer',
    );
    const ms = Date.now() - started;
    const section = remotes.sections(Date.now())[0];
    assert.match(section.error!, /^mute: subscribe was not answered within 8000 ms$/);
    await assert.rejects(connection.get(), /not answered/);
    const local = await probe.stop();
    assert.ok(local.max < LOCAL_BOUND_MS, `a local list took ${local.max} ms`);
    record({
      item: 'hostile',
      name: 'a host whose far end answers the hello and then never answers (the window, over a real sshd)',
      value:
        `its section says so in one line after ${ms} ms, tried again in 30 s; local list max ${local.max} ms ` +
        '(was: connected with no sessions for ever, opening its tab waited for ever)',
      bound: `its timeoutMs; local < ${LOCAL_BOUND_MS} ms`,
    });
  } finally {
    await probe.stop();
    remotes.dispose();
  }
});

test('a host that sends a 4 GiB frame after each hello: dropped, and not reconnected in a loop', async () => {
  const { remotes, lines } = window([hostile('huge')]);
  const probe = probeLocal();
  try {
    const connection = remotes.get('huge')!.connection;
    await waitFor(() => connection.state.kind === 'failed', STEP_MS, 'the host to fail');
    await waitFor(() => lines.some((l) => l.includes('again (')), STEP_MS, 'the second drop');
    const connects = () => lines.filter((l) => l.includes(': connected (')).length;
    const atDrop = connects();
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const local = await probe.stop();
    assert.equal(atDrop, 2, lines.join('\n'));
    assert.equal(connects(), 2, `connections in the 5 s after: ${lines.join('\n')}`);
    assert.match(remotes.sections(Date.now())[0].error!, /frame of 4294967295 bytes exceeds/);
    assert.ok(local.max < LOCAL_BOUND_MS, `a local list took ${local.max} ms`);
    record({
      item: 'hostile',
      name: 'a host whose far end sends a 4 GiB frame header right after each hello (the window)',
      value:
        `refused by the frame limit; 2 connections, then one line and the next try in 30 s; local list max ` +
        `${local.max} ms (was: never failed, a new ssh after each drop and a 50 ms pause)`,
      bound: `2 connections in 5 s; local < ${LOCAL_BOUND_MS} ms`,
    });
  } finally {
    await probe.stop();
    remotes.dispose();
  }
});
