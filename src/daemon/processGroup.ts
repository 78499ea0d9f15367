// What is left of a program's process group once node-pty has reaped its leader: the one module
// that asks the system about processes, so that the rest of the daemon runs wherever Node does.
//
// Signals are the portable core. `kill(-pgid, 0)` fails with ESRCH once no process at all, zombie
// or not, is in the group (EPERM: it exists, its members are not ours to signal). The kernel gives
// a pid out again only when nothing holds it, not even as a process group id, so while the group
// exists its id is still ours; and a process that answers `kill(pid, 0)` after the leader was
// reaped has reused its pid.
//
// What signal 0 cannot tell is a zombie from a live member: PID 1 here may leave exited orphans as
// zombies for a while, and a group whose only members are zombies must count as gone (nothing is
// left to end). Two ways to tell, chosen once, when the daemon loads this module:
// - `linuxProc` (Linux with a readable /proc): each process's state and group from /proc/PID/stat;
// - `portable` (elsewhere): one listing, `ps -A -o pid=,pgid=,state=`, which procps and the BSD
//   ps of macOS both print (not `ps -g`: on procps it selects by session, not process group).
//   Where ps cannot run, zombies cannot be told apart: the answer is `unknown`, and PtyProcess
//   counts the group as gone once it has sent SIGKILL to it after the leader was reaped (no live
//   process survives that).
// Both list only when signal 0 says the group still exists after its leader exited, which is rare
// (a kill of a program that left something behind), so a ps run costs nothing most of the time.
// HOLDFAST_PORTABLE_PROCESS=1 in the daemon's environment forces `portable`: only the tests set
// it, to run the macOS path on Linux.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';

/** What a process group holds: nothing, something alive, only zombies, or "exists, cannot tell". */
export type GroupMembers = 'none' | 'live' | 'zombies' | 'unknown';

/** One process: running (with its group), a zombie, none, or "cannot tell" (no ps). */
export type ProcessState = { kind: 'live'; pgid: number } | { kind: 'zombie' } | { kind: 'none' } | { kind: 'unknown' };

export interface ProcessGroups {
  readonly kind: 'linuxProc' | 'portable';
  /** What is left in process group `pgid`. */
  members(pgid: number): GroupMembers;
  /** What process `pid` is now: a daemon that adopted a program is not its parent, so cannot wait for it. */
  process(pid: number): ProcessState;
}

/** Whether signal 0 reaches `target` (a pid, or -pgid for a group): it exists, even as a zombie. */
function exists(target: number): boolean {
  try {
    process.kill(target, 0);
    return true;
  } catch (err) {
    // ESRCH: no such process or group; EPERM: it exists, only it is not ours to signal.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether some process has `pid` (any state). After the leader was reaped: its pid was reused. */
export function pidInUse(pid: number): boolean {
  return exists(pid);
}

/** Zombie ('Z') and dead ('X') processes are gone: they run nothing and cannot be ended. */
function isGoneState(state: string): boolean {
  return state.startsWith('Z') || state.startsWith('X');
}

/** The group's members from /proc: pid (comm) state ppid pgrp ...; comm may hold spaces and ')'. */
function linuxProcMembers(pgid: number): GroupMembers {
  if (!exists(-pgid)) return 'none';
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return 'unknown'; // /proc went away (a hardened mount): only signal 0 can be asked
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'latin1');
    } catch {
      continue; // exited since the directory was read
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && !isGoneState(fields[0])) return 'live';
  }
  return 'zombies';
}

/** From one /proc/PID/stat or ps line's state and group. */
function stateOf(state: string, pgid: string): ProcessState {
  return isGoneState(state) ? { kind: 'zombie' } : { kind: 'live', pgid: Number(pgid) };
}

function linuxProcProcess(pid: number): ProcessState {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? { kind: 'none' } : { kind: 'unknown' };
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return stateOf(fields[0], fields[2]);
}

/** Parses `ps -o pid=,pgid=,state= -p PID` output: the process, or none when ps shows no line. */
export function processFromPs(output: string, pid: number): ProcessState {
  for (const line of output.split('\n')) {
    const [shown, group, state] = line.trim().split(/\s+/);
    if (Number(shown) === pid && state !== undefined) return stateOf(state, group);
  }
  return { kind: 'none' };
}

/** Parses `ps -A -o pid=,pgid=,state=` output: what of group `pgid` it shows. */
export function membersFromPs(output: string, pgid: number): 'live' | 'zombies' {
  for (const line of output.split('\n')) {
    const [, group, state] = line.trim().split(/\s+/);
    if (Number(group) === pgid && state !== undefined && !isGoneState(state)) return 'live';
  }
  return 'zombies'; // the group exists (signal 0) but shows nothing alive
}

/** The portable way, listing with `ps` (another command only in tests: one that is missing). */
export function portableWith(ps: string): ProcessGroups {
  return {
    kind: 'portable',
    members(pgid) {
      if (!exists(-pgid)) return 'none';
      let output: string;
      try {
        output = execFileSync(ps, ['-A', '-o', 'pid=,pgid=,state='], {
          encoding: 'latin1',
          stdio: ['ignore', 'pipe', 'ignore'],
          timeout: 5000,
        });
      } catch {
        return 'unknown'; // no ps, or it failed: the caller falls back to what signals can tell
      }
      return membersFromPs(output, pgid);
    },
    process(pid) {
      if (!exists(pid)) return { kind: 'none' };
      try {
        const output = execFileSync(ps, ['-o', 'pid=,pgid=,state=', '-p', String(pid)], {
          encoding: 'latin1',
          stdio: ['ignore', 'pipe', 'ignore'],
          timeout: 5000,
        });
        return processFromPs(output, pid);
      } catch (err) {
        // ps exits 1 with nothing printed when the process went away after signal 0 saw it.
        const failed = err as { status?: number | null; stdout?: string };
        if (failed.status === 1 && !failed.stdout?.trim()) return { kind: 'none' };
        return { kind: 'unknown' };
      }
    },
  };
}

export const linuxProc: ProcessGroups = { kind: 'linuxProc', members: linuxProcMembers, process: linuxProcProcess };
export const portable: ProcessGroups = portableWith('ps');

function procReadable(): boolean {
  try {
    fs.accessSync(`/proc/${process.pid}/stat`, fs.constants.R_OK);
    return true;
  } catch {
    return false; // no /proc (or not mounted here): the portable way
  }
}

/** linuxProc on Linux with a readable /proc, portable elsewhere or when the tests ask for it. */
export function chooseProcessGroups(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
  hasProc: () => boolean = procReadable,
): ProcessGroups {
  if (env.HOLDFAST_PORTABLE_PROCESS === '1' || platform !== 'linux') return portable;
  return hasProc() ? linuxProc : portable;
}

/** The daemon's choice, made once at start. */
export const processGroups = chooseProcessGroups(process.env, process.platform);
