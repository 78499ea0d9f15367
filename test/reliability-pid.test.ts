// Reliability 6: no PID recycling. A session whose process was reaped is never signalled again, even
// when its PID now belongs to an unrelated process group. The reuse is forced for real: as root,
// /proc/sys/kernel/ns_last_pid makes the next fork get the reaped PID (pid_max is 32768 here, so
// reuse also happens on its own).
import assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { PtyProcess } from '../src/daemon/ptyProcess';
import { isAlive, startTestDaemon, waitFor } from './helpers/daemon';
import { record, sleep } from './helpers/reliability';

const NS_LAST_PID = '/proc/sys/kernel/ns_last_pid';

/** An unrelated process group leader (setsid) whose pid is `target`, or undefined after `attempts` tries. */
async function unrelatedGroupWithPid(
  target: number,
  attempts = 200,
): Promise<{ child: ChildProcess; tries: number } | undefined> {
  for (let tries = 1; tries <= attempts; tries++) {
    fs.writeFileSync(NS_LAST_PID, String(target - 1));
    const child = spawn('sleep', ['1000'], { detached: true, stdio: 'ignore' });
    if (child.pid === target) return { child, tries };
    child.kill('SIGKILL');
    await sleep(5); // another process on the machine forked in between: try again
  }
  return undefined;
}

function groupOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

test('regression: kill, remove and stop after exit never signal the process group that reused its pid', async () => {
  const daemon = await startTestDaemon();
  let unrelated: ChildProcess | undefined;
  try {
    const client = await daemon.connect();
    const { session } = await client.request('create', { argv: ['sh', '-c', 'exit 0'] });
    await client.request('wait', { session: session.id, condition: { kind: 'exit' }, timeoutMs: 10_000 });
    await waitFor(() => !fs.existsSync(`/proc/${session.pid}`), 5000, 'the session process to be reaped');
    const forced = await unrelatedGroupWithPid(session.pid);
    assert.ok(forced, `could not make a new process get pid ${session.pid}`);
    unrelated = forced.child;
    assert.equal(groupOf(session.pid), session.pid, 'the unrelated process leads process group = the reaped pid');
    record({ item: '6', name: 'forks to get the reaped pid back', value: forced.tries });

    await client.request('kill', { session: session.id, signal: 'KILL', graceMs: 0 });
    await sleep(200);
    assert.ok(isAlive(session.pid), 'kill of an exited session signalled the process that reused its pid');
    await client.request('remove', { session: session.id });
    await sleep(200);
    assert.ok(isAlive(session.pid), 'remove of an exited session signalled the process that reused its pid');

    // stop kills every remaining session: an exited one among them must not reach the reused pid.
    const { session: second } = await client.request('create', { argv: ['sh', '-c', 'exit 0'] });
    await client.request('wait', { session: second.id, condition: { kind: 'exit' }, timeoutMs: 10_000 });
    await waitFor(() => !fs.existsSync(`/proc/${second.pid}`), 5000, 'the second session process to be reaped');
    const again = await unrelatedGroupWithPid(second.pid);
    assert.ok(again, `could not make a new process get pid ${second.pid}`);
    await client.request('stop', {});
    await waitFor(() => !isAlive(daemon.pid), 10_000, 'the daemon to stop');
    assert.ok(isAlive(second.pid), 'stop signalled the process that reused an exited session’s pid');
    again.child.kill('SIGKILL');
  } finally {
    unrelated?.kill('SIGKILL');
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
