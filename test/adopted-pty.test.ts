// AdoptedPty on its own: a terminal this process did not spawn the program of, as a successor daemon
// has it. What it reports when the program ends, and what is left of its group, both process paths.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { AdoptedPty } from '../src/daemon/pty/adoptedPty';
import { openPty } from '../src/daemon/pty/nodePtyInternals';
import { linuxProc, portable, portableWith, type ProcessGroups } from '../src/daemon/pty/processGroup';
import { waitFor } from './helpers/daemon';

const STEP_MS = 20_000;

/** `script` on a new terminal in its own session, its master adopted. */
function adopt(script: string, groups: ProcessGroups): { pty: AdoptedPty; child: ChildProcess; output: () => string } {
  const { master, slave } = openPty(80, 24);
  // node-pty opens both sides without close-on-exec: the program closes its copies, or it would hold them.
  const closeCopies = `exec ${master}>&- ${slave}>&-; `;
  const child = spawn('bash', ['-c', closeCopies + script], { stdio: [slave, slave, slave], detached: true });
  fs.closeSync(slave);
  const pty = new AdoptedPty({
    fd: master,
    pid: child.pid!,
    pgid: child.pid!,
    cols: 80,
    rows: 24,
    processGroups: groups,
  });
  let text = '';
  pty.onData((chunk) => (text += chunk.toString('utf8')));
  return { pty, child, output: () => text };
}

function exitOf(pty: AdoptedPty): Promise<unknown> {
  return new Promise((resolve) => pty.onExit(resolve));
}

for (const groups of [linuxProc, portable]) {
  test(`AdoptedPty (${groups.kind}): a member left behind keeps the group alive until SIGKILL ends it`, async () => {
    const script = `trap '' HUP; sleep 1000 </dev/null >/dev/null 2>&1 & echo STARTED; exit 0`;
    const { pty, output } = adopt(script, groups);
    try {
      assert.deepEqual(await exitOf(pty), { code: null, signal: null }, 'the code went with the parent');
      assert.match(output(), /STARTED/, 'the output before the end is read');
      assert.equal(await pty.groupAlive(), true, 'the background sleep is still in the group');
      assert.equal(await pty.signalGroup('SIGKILL'), true);
      // The killed sleep is an orphan: PID 1 may leave it a zombie, which counts as gone.
      await waitFor(async () => !(await pty.groupAlive()), STEP_MS, 'the group to be gone');
      assert.equal(await pty.signalGroup('SIGTERM'), false, 'a gone group is never signalled again');
    } finally {
      await pty.signalGroup('SIGKILL');
      pty.dispose();
    }
  });

  test(`AdoptedPty (${groups.kind}): a leader that closed its terminal is reported once it ends`, async () => {
    // It ignores the hangup that closing the master at the terminal's end sends (as node-pty closes it).
    const script =
      `trap '' HUP; trap 'exit 0' USR1; echo CLOSING; exec </dev/null >/dev/null 2>&1; ` +
      `while :; do sleep 0.05; done`;
    const { pty, child, output } = adopt(script, groups);
    try {
      await waitFor(() => output().includes('CLOSING'), STEP_MS, 'the program to close its terminal');
      assert.equal(pty.exited, undefined, 'no exit while the leader runs (it waits for SIGUSR1)');
      assert.equal(child.exitCode, null);
      assert.equal(await pty.signalGroup('SIGUSR1'), true);
      assert.deepEqual(await exitOf(pty), { code: null, signal: null });
      await waitFor(async () => !(await pty.groupAlive()), STEP_MS, 'the group to be gone');
    } finally {
      pty.dispose();
    }
  });
}

test('AdoptedPty without ps: the end of the terminal is the exit', async () => {
  const { pty, output } = adopt('echo BYE', portableWith('/nonexistent/ps'));
  try {
    assert.deepEqual(await exitOf(pty), { code: null, signal: null });
    assert.match(output(), /BYE/);
  } finally {
    pty.dispose();
  }
});
