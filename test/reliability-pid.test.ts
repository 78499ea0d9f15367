// Reliability 6: no PID recycling. A session whose process was reaped is never signalled again, even
// when its PID now belongs to an unrelated process group. The reuse is forced for real: as root,
// /proc/sys/kernel/ns_last_pid makes the next fork get the reaped PID (pid_max is 32768 here, so
// reuse also happens on its own).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { PtyProcess } from '../src/daemon/ptyProcess';
import type { HoldfastClient } from '../src/protocol/client';
import type { SessionInfo } from '../src/protocol/messages';
import { isAlive, startTestDaemon, waitFor } from './helpers/daemon';
import { record, sleep } from './helpers/reliability';

const NS_LAST_PID = '/proc/sys/kernel/ns_last_pid';

/**
 * An unrelated process group leader (setsid) whose pid is `target`, or undefined after `attempts` tries. bash
 * writes ns_last_pid and forks at once (from Node the gap was milliseconds, for another fork to come between).
 */
function unrelatedGroupWithPid(target: number, attempts = 500): { pid: number; tries: number } | undefined {
  const script =
    `for try in $(seq 1 ${attempts}); do echo ${target - 1} > ${NS_LAST_PID}; ` +
    `setsid sleep 1000 </dev/null >/dev/null 2>&1 & pid=$!; ` +
    `if [ "$pid" = ${target} ]; then echo "$try"; exit 0; fi; kill -9 "$pid"; done; exit 1`;
  const forced = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
  return forced.status === 0 ? { pid: target, tries: Number(forced.stdout.trim()) } : undefined;
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function groupOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

/**
 * A session whose program exited and was reaped, and an unrelated group leader that now has its pid. A round
 * whose pid another process on the machine took first (pids wrap around at 32768 on a busy machine) starts over
 * with a new session.
 */
async function exitedSessionWithReusedPid(
  client: HoldfastClient,
  unrelated: number[],
  rounds = 5,
): Promise<{ session: SessionInfo; tries: number }> {
  for (let round = 1; round <= rounds; round++) {
    const { session } = await client.request('create', { argv: ['sh', '-c', 'exit 0'] });
    await client.request('wait', { session: session.id, condition: { kind: 'exit' }, timeoutMs: 10_000 });
    await waitFor(() => !fs.existsSync(`/proc/${session.pid}`), 5000, 'the session process to be reaped');
    const forced = unrelatedGroupWithPid(session.pid);
    if (!forced) continue;
    unrelated.push(forced.pid);
    // Its own group once setsid has run in it (the fork that took the pid comes back before that).
    await waitFor(() => groupOf(session.pid) === session.pid, 5000, 'the unrelated process to lead its own group');
    return { session, tries: forced.tries };
  }
  assert.fail(`no new process could be made to get a reaped session's pid in ${rounds} rounds`);
}

test('regression: kill, remove and stop after exit never signal the process group that reused its pid', async () => {
  const daemon = await startTestDaemon();
  const unrelated: number[] = [];
  try {
    const client = await daemon.connect();
    const { session, tries } = await exitedSessionWithReusedPid(client, unrelated);
    record({ item: '6', name: 'forks to get the reaped pid back', value: tries });

    await client.request('kill', { session: session.id, signal: 'KILL', graceMs: 0 });
    await sleep(200);
    assert.ok(isAlive(session.pid), 'kill of an exited session signalled the process that reused its pid');
    await client.request('remove', { session: session.id });
    await sleep(200);
    assert.ok(isAlive(session.pid), 'remove of an exited session signalled the process that reused its pid');

    // stop kills every remaining session: an exited one among them must not reach the reused pid.
    const { session: second } = await exitedSessionWithReusedPid(client, unrelated);
    await client.request('stop', {});
    await waitFor(() => !isAlive(daemon.pid), 10_000, 'the daemon to stop');
    assert.ok(isAlive(second.pid), 'stop signalled the process that reused an exited session’s pid');
  } finally {
    for (const pid of unrelated) killQuietly(pid);
    await daemon.stop();
  }
});

test('PtyProcess: once reaped, signalGroup never reaches a group that later bears the same id', async () => {
  // In-process, at the boundary: the recorded pid is pointed at an unrelated live group leader.
  const proc = new PtyProcess({
    argv: ['sh', '-c', 'exit 0'],
    cwd: '/',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    cols: 80,
    rows: 24,
  });
  await new Promise<void>((resolve) => proc.onExit(() => resolve()));
  const unrelated = spawn('sleep', ['1000'], { detached: true, stdio: 'ignore' });
  try {
    Object.defineProperty(proc, 'pid', { value: unrelated.pid });
    assert.equal(proc.groupAlive, false, 'the unrelated group counts as the session’s');
    assert.equal(proc.signalGroup('SIGKILL'), false);
    proc.dispose();
    await sleep(100);
    assert.ok(isAlive(unrelated.pid!), 'the unrelated process group was signalled');
  } finally {
    unrelated.kill('SIGKILL');
  }
});
