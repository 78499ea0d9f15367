// Nothing the daemon asks the system blocks the thread that serves clients. On the portable process path
// (`ps`, as on macOS) with a `ps` that takes a second first on the daemon's PATH, an echo in another session
// comes back as quickly as ever while the daemon asks what is left of a group: a spawned program that left
// a member behind, then, after a handoff, an adopted program killed (asked about before every signal). Both
// cores are kept busy. Before, each `ps` ran on the main thread, and every echo waited for it.
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { isAlive, startTestDaemon, tempDir, type TestDaemon, waitFor } from './helpers/daemon';
import { busyCores, echoSession, percentile, record, type Round, startLatencyProbe } from './helpers/reliability';

/**
 * How long the fake `ps` takes while echoes are measured: an echo that waited for one would wait this
 * long, ten times the bound. The daemon asks it 6-8 times in the two windows, one run after another.
 */
const PS_MS = 1000;
/** What 9 in 10 echoes stay under (as in reliability-latency and -bounds). */
const BOUND_MS = 100;

/**
 * A `ps` that sleeps PS_MS first while the file `slow` exists (only while echoes are measured: the
 * handoff's and the end's runs prove nothing here), then runs the real one; each run's start and end go
 * to `runs`.
 */
function slowPs(dir: string, runs: string, slow: string): string {
  const bin = path.join(dir, 'slow-ps');
  fs.mkdirSync(bin);
  const real = execFileSync('sh', ['-c', 'command -v ps'], { encoding: 'utf8' }).trim();
  const script =
    `#!/bin/sh\necho start >> '${runs}'\n[ ! -e '${slow}' ] || sleep ${PS_MS / 1000}\n'${real}' "$@"\n` +
    `status=$?\necho end >> '${runs}'\nexit $status\n`;
  fs.writeFileSync(path.join(bin, 'ps'), script, { mode: 0o755 });
  return bin;
}

function psRuns(runs: string): { started: number; ended: number } {
  const lines = fs.existsSync(runs) ? fs.readFileSync(runs, 'utf8').split('\n') : [];
  return { started: lines.filter((l) => l === 'start').length, ended: lines.filter((l) => l === 'end').length };
}

/**
 * Runs `act` (which makes the daemon ask `ps`, slow meanwhile) while the probe echoes; the echoes of
 * rounds sent while a `ps` ran, asserted and recorded.
 */
async function echoesDuring(
  daemon: TestDaemon,
  echo: string,
  { runs, slow }: { runs: string; slow: string },
  phase: string,
  act: () => Promise<void>,
): Promise<void> {
  const rounds: Round[] = [];
  const probe: ChildProcess = startLatencyProbe(daemon.socket, echo, rounds);
  let busy: ChildProcess[] = [];
  try {
    await waitFor(() => rounds.length > 5, 30_000, 'the probe to start');
    busy = busyCores(); // only while it is measured
    fs.writeFileSync(slow, '');
    const before = psRuns(runs);
    const from = Date.now();
    await act();
    const asked = psRuns(runs);
    assert.ok(asked.started > before.started, `${phase}: the daemon asked ps`);
    await waitFor(() => psRuns(runs).ended >= asked.started, 4 * PS_MS, 'the last ps to end');
    const to = Date.now();
    fs.rmSync(slow);
    await waitFor(() => rounds.some(([sent]) => sent > to), 30_000, 'the rounds sent meanwhile to come back');
    const echoes = rounds.filter(([sent]) => sent >= from && sent <= to).map((round) => round[2]);
    const p90 = percentile(echoes, 90);
    const max = Math.max(...echoes);
    record({
      item: 'latency',
      name: `${phase}: an echo in another session while ps ran (${asked.started - before.started} runs of ${PS_MS} ms)`,
      value: `${echoes.length} rounds in ${to - from} ms: p50 ${percentile(echoes, 50)}, p90 ${p90}, max ${max} ms`,
      bound: `p90 < ${BOUND_MS} ms; none waits for a ps`,
    });
    assert.ok(echoes.length >= 10, `${phase}: only ${echoes.length} echoes while ps ran`);
    assert.ok(max < PS_MS / 2, `${phase}: an echo waited ${max} ms: for a ps`);
    assert.ok(p90 < BOUND_MS, `${phase}: echoes waited ${p90} ms (p90) while ps ran`);
  } finally {
    for (const child of [probe, ...busy]) child.kill('SIGKILL');
  }
}

test('a ps that takes a second delays no echo: a spawned program’s leftovers, an adopted one killed', async () => {
  const dir = tempDir('hf-slow-ps-');
  const ps = { runs: path.join(dir, 'ps-runs'), slow: path.join(dir, 'ps-slow') };
  const extraEnv = { PATH: `${slowPs(dir, ps.runs, ps.slow)}:${process.env.PATH}`, HOLDFAST_PORTABLE_PROCESS: '1' };
  const daemon = await startTestDaemon([], '--persistent', extraEnv);
  try {
    let client = await daemon.connect();
    const echo = await echoSession(client);
    const leaver = "trap '' HUP; sleep 1000 </dev/null >/dev/null 2>&1 & echo LEFT-ONE; exit 0";
    await echoesDuring(daemon, echo, ps, 'a spawned program leaves a member behind, then is killed', async () => {
      const { session } = await client.request('create', { argv: ['sh', '-c', leaver], name: 'leaver' });
      await client.request('wait', { session: session.id, condition: { kind: 'exit' }, timeoutMs: 30_000 });
      await client.request('kill', { session: session.id, signal: 'KILL', graceMs: 0 });
    });

    const { session: adopted } = await client.request('create', { argv: ['sleep', '1000'], name: 'adopted' });
    const letGo = new Promise<void>((resolve) => client.onClose(() => resolve()));
    const { pid: successor } = await client.request('handoff', {});
    await letGo;
    client = await daemon.connect();
    assert.equal(client.hello.pid, successor);
    await echoesDuring(daemon, echo, ps, 'an adopted program killed', async () => {
      await client.request('kill', { session: adopted.id, signal: 'TERM', graceMs: 10_000 });
    });
    assert.ok(!isAlive(adopted.pid), 'the adopted program was killed');
  } finally {
    await daemon.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(daemon.dir, { recursive: true, force: true });
  }
});
