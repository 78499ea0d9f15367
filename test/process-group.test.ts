// What is left of a process group, both ways (linuxProc and portable, the macOS path), with real
// processes: live members, none, only zombies, and no ps to tell zombies apart.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { chooseProcessGroups, linuxProc, membersFromPs, portable, portableWith } from '../src/daemon/pty/processGroup';
import { PtyProcess } from '../src/daemon/pty/ptyProcess';
import { waitFor } from './helpers/daemon';

const noPs = portableWith('/nonexistent/ps');

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(text.split('\n')[0].trim());
    });
    child.once('exit', () => reject(new Error(`exited before a line: ${text}`)));
  });
}

function stateOf(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

test('the choice: portable when asked (HOLDFAST_PORTABLE_PROCESS=1), off Linux, or without /proc', () => {
  const withProc = () => true;
  assert.equal(chooseProcessGroups({}, 'linux', withProc).kind, 'linuxProc');
  assert.equal(chooseProcessGroups({ HOLDFAST_PORTABLE_PROCESS: '1' }, 'linux', withProc).kind, 'portable');
  assert.equal(chooseProcessGroups({}, 'darwin', withProc).kind, 'portable');
  assert.equal(chooseProcessGroups({}, 'linux', () => false).kind, 'portable');
});

test('ps output: a zombie or another group is not a live member', () => {
  const output = ' 100   100 Ss\n 101   100 Z+\n 102   102 R\n';
  assert.equal(membersFromPs(output, 100), 'live');
  assert.equal(membersFromPs(' 101   100 Z+\n 102   102 R\n', 100), 'zombies');
  assert.equal(membersFromPs('', 100), 'zombies');
});

test('members: live, then none once it is reaped; without ps a live group is unknown', async () => {
  const child = spawn('sleep', ['1000'], { detached: true, stdio: 'ignore' });
  const pgid = child.pid!;
  try {
    assert.equal(await linuxProc.members(pgid), 'live');
    assert.equal(await portable.members(pgid), 'live');
    assert.equal(await noPs.members(pgid), 'unknown');
  } finally {
    child.kill('SIGKILL');
    await exited(child);
  }
  for (const groups of [linuxProc, portable, noPs]) assert.equal(await groups.members(pgid), 'none', groups.kind);
});

test('members: a group whose only member is a zombie counts as zombies (gone) both ways', async () => {
  // The setsid'd child exits; its parent is now `sleep`, which never reaps it: a zombie alone in its group.
  const parent = spawn('sh', ['-c', 'setsid sh -c "exit 0" & echo $!; exec sleep 1000'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    const zombie = Number(await firstLine(parent));
    await waitFor(() => stateOf(zombie) === 'Z', 5000, 'the child to be a zombie');
    assert.equal(await linuxProc.members(zombie), 'zombies');
    assert.equal(await portable.members(zombie), 'zombies');
    assert.equal(await noPs.members(zombie), 'unknown');
  } finally {
    parent.kill('SIGKILL');
    await exited(parent);
  }
});

function leaveMemberBehind(groups = portable): PtyProcess {
  return new PtyProcess({
    argv: ['sh', '-c', "trap '' HUP; sleep 1000 & exit 0"],
    cwd: '/',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    cols: 80,
    rows: 24,
    processGroups: groups,
  });
}

for (const groups of [linuxProc, portable]) {
  test(`PtyProcess (${groups.kind}): a member left behind keeps the group alive until SIGKILL ends it`, async () => {
    const proc = leaveMemberBehind(groups);
    try {
      await new Promise<void>((resolve) => proc.onExit(() => resolve()));
      assert.equal(await proc.groupAlive(), true, 'the background sleep is still in the group');
      assert.equal(await proc.signalGroup('SIGKILL'), true);
      // The killed sleep is an orphan: PID 1 may leave it a zombie, which counts as gone.
      await waitFor(async () => !(await proc.groupAlive()), 5000, 'the group to be gone');
      assert.equal(await proc.signalGroup('SIGTERM'), false, 'a gone group is never signalled again');
    } finally {
      await proc.signalGroup('SIGKILL'); // a failed check leaves no sleep behind (a no-op once gone)
      proc.dispose();
    }
  });
}

test('PtyProcess without ps: the group counts as gone once SIGKILL was sent after the leader exited', async () => {
  const proc = leaveMemberBehind(noPs);
  try {
    await new Promise<void>((resolve) => proc.onExit(() => resolve()));
    assert.equal(await proc.groupAlive(), true, 'the group exists and nothing tells its members apart');
    assert.equal(await proc.signalGroup('SIGHUP'), true, 'ignored by the sleep: the group stays');
    assert.equal(await proc.groupAlive(), true);
    assert.equal(await proc.signalGroup('SIGKILL'), true);
    assert.equal(await proc.groupAlive(), false);
    assert.equal(await proc.signalGroup('SIGTERM'), false);
  } finally {
    await proc.signalGroup('SIGKILL'); // a failed check leaves no sleep behind (a no-op once gone)
    proc.dispose();
  }
});
