// Reliability 6: no PID recycling. A session whose process was reaped is never signalled again, even
// when its PID now belongs to an unrelated process group. The reuse is forced for real: as root,
// /proc/sys/kernel/ns_last_pid makes the next fork get the reaped PID (pid_max is 32768 here, so
// reuse also happens on its own).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { AdoptedPty } from '../src/daemon/pty/adoptedPty';
import { openPty } from '../src/daemon/pty/nodePtyInternals';
import type { ProgramPty } from '../src/daemon/pty/programPty';
import { PtyProcess } from '../src/daemon/pty/ptyProcess';
import type { HoldfastClient } from '../src/client/client';
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
    // the process is already gone: nothing left to signal
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

/** A program that leaves a member behind in its group and exits, held as a daemon holds it. */
interface Held {
  pty: ProgramPty;
  /** The member's pid, once printed. */
  member: Promise<number>;
  exit: Promise<unknown>;
}

/** The same program both ways a daemon holds one: its own child, or adopted from a previous daemon. */
const HOLDERS: Record<string, (script: string) => Held> = {
  PtyProcess(script) {
    const pty = new PtyProcess({
      argv: ['bash', '-c', script],
      cwd: '/',
      env: { PATH: process.env.PATH! },
      cols: 80,
      rows: 24,
    });
    return { pty, member: printedPid(pty), exit: new Promise((resolve) => pty.onExit(resolve)) };
  },
  AdoptedPty(script) {
    const { master, slave } = openPty(80, 24);
    // node-pty opens both sides without close-on-exec: the program closes its copies, or it would hold them.
    const child = spawn('bash', ['-c', `exec ${master}>&- ${slave}>&-; ${script}`], {
      stdio: [slave, slave, slave],
      detached: true,
    });
    fs.closeSync(slave);
    const pty = new AdoptedPty({ fd: master, pid: child.pid!, pgid: child.pid!, cols: 80, rows: 24 });
    return { pty, member: printedPid(pty), exit: new Promise((resolve) => pty.onExit(resolve)) };
  },
};

function printedPid(pty: ProgramPty): Promise<number> {
  let text = '';
  return new Promise((resolve) =>
    pty.onData((chunk) => {
      text += chunk.toString('latin1');
      const pid = /MEMBER (\d+)/.exec(text);
      if (pid) resolve(Number(pid[1]));
    }),
  );
}

// One guard for both (groupGuard.ts): the same case, each way, so that the two cannot drift apart again.
// The member keeps the group after the leader's exit; once it is gone too, the group's id is free.
for (const [kind, hold] of Object.entries(HOLDERS)) {
  test(`${kind}: after the exit, the group is never signalled once an unrelated group bears its id`, async () => {
    const script = `trap '' HUP; sleep 1000 </dev/null >/dev/null 2>&1 & echo "MEMBER $!"; exit 0`;
    const { pty, member, exit } = hold(script);
    let unrelated: number | undefined;
    try {
      const memberPid = await member;
      await exit;
      assert.equal(await pty.groupAlive(), true, 'the member is still in the group');
      killQuietly(memberPid); // not through the guard: it has not seen a SIGKILL
      // Reaped: the leader by its parent (node-pty, or this process), the orphaned member by PID 1.
      await waitFor(() => ![pty.pid, memberPid].some((pid) => fs.existsSync(`/proc/${pid}`)), 30_000, 'both reaped');
      const forced = unrelatedGroupWithPid(pty.pid);
      assert.ok(forced, `no new process could be made to get pid ${pty.pid}`);
      unrelated = forced.pid;
      await waitFor(() => groupOf(forced.pid) === forced.pid, 5000, 'the unrelated process to lead its own group');
      assert.equal(await pty.groupAlive(), false, 'the unrelated group counts as the program’s');
      assert.equal(await pty.signalGroup('SIGKILL'), false);
      assert.ok(isAlive(forced.pid), 'the unrelated process group was signalled');
    } finally {
      if (unrelated) killQuietly(unrelated);
      pty.dispose();
    }
  });
}
