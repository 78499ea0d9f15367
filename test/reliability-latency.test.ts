// No stall: while one session floods (`cat` of a big file in a loop) and a watcher keeps reattaching
// to it, a second client's `list` and an echo in another session answer within 100 ms, since the
// emulators parse and render snapshots in worker threads and the main thread only moves bytes.
// The figures go to docs/reliability.md.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { HoldfastClient } from '../src/client/client';
import { startTestDaemon, waitFor } from './helpers/daemon';
import { echoSession, percentile, record, type Round, startLatencyProbe } from './helpers/reliability';

/**
 * What 9 in 10 `list`s and echoes stay under while another session floods. The goal is every one; on
 * the shared 2-core machine (load 12-16 from others' builds) the slowest ones wait for a core, with or
 * without the workers, so the tail is recorded, not asserted.
 */
const BOUND_MS = 100;
/** How long each phase is probed. */
const PROBE_MS = 5000;

/** CPU time (user + system, ms) of each thread of a process, by thread id; the main thread's id is the pid. */
function threadCpuMs(pid: number): Map<number, number> {
  const threads = new Map<number, number>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    threads.set(Number(tid), ((Number(fields[11]) + Number(fields[12])) * 1000) / 100); // clock ticks, 100 Hz
  }
  return threads;
}

/** The daemon's main thread's CPU over a span, and the busiest other thread's (an emulator worker's). */
function cpuSpent(pid: number, before: Map<number, number>): { main: number; busiestOther: number } {
  const after = threadCpuMs(pid);
  let busiestOther = 0;
  for (const [tid, ms] of after) if (tid !== pid) busiestOther = Math.max(busiestOther, ms - (before.get(tid) ?? 0));
  return { main: after.get(pid)! - before.get(pid)!, busiestOther };
}

/**
 * A watcher attaching to the flood again and again, as windows reloading do: each attach costs a
 * snapshot of the screen and its scrollback. Resolves with the count once `stopped()`.
 */
async function reattachLoop(client: HoldfastClient, session: string, stopped: () => boolean): Promise<number> {
  let attaches = 0;
  while (!stopped()) {
    let snapshotSeen!: () => void;
    const snapshot = new Promise<void>((resolve) => (snapshotSeen = resolve));
    const watcher = await client.attach(
      { session, role: 'watcher' },
      { onSnapshot: () => snapshotSeen(), onOutput: () => undefined },
    );
    await snapshot;
    await watcher.detach();
    attaches++;
  }
  return attaches;
}

/** The rounds sent in the next `ms`, once they are all answered. */
async function probeFor(rounds: Round[], ms: number): Promise<Round[]> {
  const from = Date.now();
  await waitFor(() => rounds.some(([sent]) => sent > from + ms), ms + 60_000, 'the probe rounds');
  return rounds.filter(([sent]) => sent >= from && sent <= from + ms);
}

function figures(phase: string, taken: Round[]): { list: number; echo: number } {
  const list = taken.map((r) => r[1]);
  const echo = taken.map((r) => r[2]);
  const p90 = { list: percentile(list, 90), echo: percentile(echo, 90) };
  record({
    item: 'latency',
    name: `${phase}: another client's list / an echo in another session, ${taken.length} rounds`,
    value:
      `list p50 ${percentile(list, 50)}, p90 ${p90.list}, p99 ${percentile(list, 99)}, max ${Math.max(...list)} ms; ` +
      `echo p50 ${percentile(echo, 50)}, p90 ${p90.echo}, p99 ${percentile(echo, 99)}, max ${Math.max(...echo)} ms`,
    bound: `p90 < ${BOUND_MS} ms`,
  });
  return p90;
}

test('while one session floods, another client’s list and an echo in another session answer in 100 ms', async () => {
  const daemon = await startTestDaemon();
  let probe: ChildProcess | undefined;
  try {
    const client = await daemon.connect();
    const file = path.join(daemon.dir, 'flood.txt');
    const line = 'the quick brown fox jumps over the lazy dog 0123456789 '.repeat(2) + '\n';
    fs.writeFileSync(file, line.repeat(Math.ceil((8 * 1024 * 1024) / line.length)));
    const echo = await echoSession(client);
    const rounds: Round[] = [];
    probe = startLatencyProbe(daemon.socket, echo, rounds);
    await waitFor(() => rounds.length > 5, 30_000, 'the probe to start');
    const quiet = figures('quiet', await probeFor(rounds, PROBE_MS / 2));
    const { session: flood } = await client.request('create', {
      argv: ['sh', '-c', `while :; do cat ${file}; done`],
      name: 'flood',
    });
    await client.request('wait', { session: flood.id, condition: { kind: 'text', pattern: 'lazy dog' } });
    let stopped = false;
    const watcher = await daemon.connect('watcher');
    const reattaching = reattachLoop(watcher, flood.id, () => stopped);
    const cpuBefore = threadCpuMs(daemon.pid);
    const flooding = figures('one session flooding (and reattached by a watcher)', await probeFor(rounds, PROBE_MS));
    const cpu = cpuSpent(daemon.pid, cpuBefore);
    stopped = true;
    const attaches = await reattaching;
    record({
      item: 'latency',
      name: 'meanwhile: snapshots of the flood taken; CPU of the daemon main thread / of its busiest other thread',
      value: `${attaches}; ${cpu.main} / ${cpu.busiestOther} ms`,
      bound: 'main < other',
    });
    const { session: after } = await client.request('show', { session: flood.id });
    assert.equal(after.state, 'running', 'the flood ran all along');
    assert.ok(quiet.list < BOUND_MS && quiet.echo < BOUND_MS, `quiet: ${JSON.stringify(quiet)}`);
    assert.ok(flooding.list < BOUND_MS, `list waited ${flooding.list} ms (p90) during the flood`);
    assert.ok(flooding.echo < BOUND_MS, `an echo waited ${flooding.echo} ms (p90) during the flood`);
    // The parsing and the snapshots are a worker's work: the main thread only moves bytes.
    assert.ok(cpu.main < cpu.busiestOther, `main thread ${cpu.main} ms of CPU, a worker ${cpu.busiestOther} ms`);
  } finally {
    probe?.kill('SIGKILL');
    await daemon.stop();
  }
});
