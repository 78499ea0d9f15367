// Performance: an idle daemon does not wake up. 20 idle sessions, detached and then with a watcher
// each: over 10 s no thread of the daemon is scheduled (V8's memory reducer used to run three GCs
// every few seconds on every helper thread, about 5 wake-ups a second).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { startTestDaemon } from './helpers/daemon';
import { record, sleep } from './helpers/reliability';

/** Context switches of every thread of `pid` (voluntary and not) and its CPU time in clock ticks. */
function schedulerCounts(pid: number): { switches: number; cpuTicks: number } {
  let switches = 0;
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    let status: string;
    try {
      status = fs.readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
    } catch {
      continue; // a thread that ended between the listing and the read
    }
    for (const m of status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)$/gm)) switches += Number(m[1]);
  }
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { switches, cpuTicks: Number(stat[11]) + Number(stat[12]) };
}

async function quietWindow(pid: number, ms: number): Promise<{ switches: number; cpuMs: number }> {
  const before = schedulerCounts(pid);
  await sleep(ms);
  const after = schedulerCounts(pid);
  return { switches: after.switches - before.switches, cpuMs: (after.cpuTicks - before.cpuTicks) * 10 };
}

test(
  "regression: 20 idle sessions woke the daemon about 5 times a second (V8's memory reducer); " +
    'now never, detached or watched',
  async () => {
    const daemon = await startTestDaemon();
    try {
      const client = await daemon.connect();
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push((await client.request('create', { argv: ['cat'] })).session.id);
      // Everything the creates scheduled (checkpoint writes, idle timers) has run once it answers a
      // request after them; the window starts after a short settle for the kernel's own accounting.
      await client.request('list', {});
      await sleep(2000);
      const detached = await quietWindow(daemon.pid, 10_000);
      const watcher = await daemon.connect('watcher');
      for (const session of ids) await watcher.attach({ session, role: 'watcher' }, { onSnapshot() {}, onOutput() {} });
      await watcher.request('list', {});
      await sleep(2000);
      const watched = await quietWindow(daemon.pid, 10_000);
      record({
        item: 'idle',
        name: '20 idle sessions, detached: daemon context switches (all threads) / CPU per 10 s',
        value: `${detached.switches} / ${detached.cpuMs} ms`,
        bound: '<= 3 switches',
      });
      record({
        item: 'idle',
        name: '20 idle sessions with 20 watchers: daemon context switches (all threads) / CPU per 10 s',
        value: `${watched.switches} / ${watched.cpuMs} ms`,
        bound: '<= 3 switches',
      });
      assert.ok(detached.switches <= 3, `detached: ${detached.switches} context switches in 10 s`);
      assert.ok(watched.switches <= 3, `watched: ${watched.switches} context switches in 10 s`);
    } finally {
      await daemon.stop();
    }
  },
);
