// What is left of a program's process group once its leader is gone: the one module that asks the
// system about processes, so that the rest of the daemon runs wherever Node does. Every question is
// answered off the main thread (a /proc read in libuv's pool, a `ps` as a child process): how many
// processes the machine runs, or how slow `ps` is, never delays a keystroke.
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
//   Where ps cannot run, zombies cannot be told apart: the answer is `unknown`, and the group guard
//   counts the group as gone once it has sent SIGKILL to it after the leader exited (no live
//   process survives that).
// Both list only when signal 0 says the group still exists after its leader exited, which is rare
// (a kill of a program that left something behind); those asking while a listing runs share the
// next one, so a hundred sessions ended at once start at most two.
// HOLDFAST_PORTABLE_PROCESS=1 in the daemon's environment forces `portable`: only the tests set
// it, to run the macOS path on Linux.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';

/** What a process group holds: nothing, something alive, only zombies, or "exists, cannot tell". */
export type GroupMembers = 'none' | 'live' | 'zombies' | 'unknown';

/** One process: running (with its group), a zombie, none, or "cannot tell" (no ps). */
export type ProcessState = { kind: 'live'; pgid: number } | { kind: 'zombie' } | { kind: 'none' } | { kind: 'unknown' };

export interface ProcessGroups {
  readonly kind: 'linuxProc' | 'portable';
  /** What is left in process group `pgid`. */
  members(pgid: number): Promise<GroupMembers>;
  /** What process `pid` is now: a daemon that adopted a program is not its parent, so cannot wait for it. */
  process(pid: number): Promise<ProcessState>;
}

export enum ProcessListing {
  /** A `ps` that takes longer is stopped and its answer is "cannot tell" (it never runs on the main thread). */
  PsTimeoutMs = 5000,
  /** What a `ps` may print: ~30 bytes a process, so room for half a million. */
  PsMaxBytes = 16 * 1024 * 1024,
  /** /proc/PID/stat files read at once in a scan. */
  ProcReadsAtOnce = 32,
}

/** One process of a listing: its pid, group and state letter. */
interface Listed {
  pid: number;
  pgid: number;
  state: string;
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

/** From one /proc/PID/stat or ps line's state and group. */
function stateOf(state: string, pgid: number): ProcessState {
  return isGoneState(state) ? { kind: 'zombie' } : { kind: 'live', pgid };
}

/** /proc/PID/stat is `pid (comm) state ppid pgrp ...`; comm may hold spaces and ')'. */
function fromStat(pid: number, stat: string): Listed {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { pid, pgid: Number(fields[2]), state: fields[0] };
}

/** What of group `pgid` a listing shows: something alive, or only zombies (the group exists: signal 0). */
function membersOf(listing: Listed[], pgid: number): 'live' | 'zombies' {
  return listing.some((p) => p.pgid === pgid && !isGoneState(p.state)) ? 'live' : 'zombies';
}

/** Group `pgid`'s members: none (signal 0 says so, no listing needed), else as a fresh listing shows them. */
async function membersListed(pgid: number, listing: FreshListing): Promise<GroupMembers> {
  if (!exists(-pgid)) return 'none';
  const listed = await listing.get();
  return listed === 'unknown' ? 'unknown' : membersOf(listed, pgid);
}

/**
 * Runs `list` so that each caller gets a listing begun after it asked (a listing from before a
 * signal could show what the signal ended); callers while one runs share the next.
 */
class FreshListing {
  private running: Promise<Listed[] | 'unknown'> | undefined;
  private next: Promise<Listed[] | 'unknown'> | undefined;

  constructor(private readonly list: () => Promise<Listed[] | 'unknown'>) {}

  get(): Promise<Listed[] | 'unknown'> {
    if (!this.running) return this.start();
    const begin = () => {
      this.next = undefined;
      return this.start();
    };
    this.next ??= this.running.then(begin, begin);
    return this.next;
  }

  private start(): Promise<Listed[] | 'unknown'> {
    const run = this.list()
      .catch(() => 'unknown' as const)
      .finally(() => {
        if (this.running === run) this.running = undefined;
      });
    this.running = run;
    return run;
  }
}

/** Every process from /proc, read in libuv's pool; 'unknown' when /proc cannot be listed. */
async function procListing(): Promise<Listed[] | 'unknown'> {
  let entries: string[];
  try {
    entries = await fs.promises.readdir('/proc');
  } catch {
    return 'unknown'; // /proc went away (a hardened mount): only signal 0 can be asked
  }
  const pids = entries.filter((entry) => entry.charCodeAt(0) >= 48 && entry.charCodeAt(0) <= 57).map(Number);
  const listed: Listed[] = [];
  for (let i = 0; i < pids.length; i += ProcessListing.ProcReadsAtOnce) {
    const batch = pids.slice(i, i + ProcessListing.ProcReadsAtOnce);
    const stats = await Promise.all(
      // A process that exited since the directory was read has no stat: it is not listed.
      batch.map((pid) => fs.promises.readFile(`/proc/${pid}/stat`, 'latin1').catch(() => undefined)),
    );
    stats.forEach((stat, at) => stat !== undefined && listed.push(fromStat(batch[at], stat)));
  }
  return listed;
}

/** Parses `ps -A -o pid=,pgid=,state=` output. */
export function listingFromPs(output: string): Listed[] {
  const listed: Listed[] = [];
  for (const line of output.split('\n')) {
    const [pid, pgid, state] = line.trim().split(/\s+/);
    if (state !== undefined) listed.push({ pid: Number(pid), pgid: Number(pgid), state });
  }
  return listed;
}

/** Parses a ps listing: process `pid`, or none when it shows no line for it. */
export function processFromPs(output: string, pid: number): ProcessState {
  const shown = listingFromPs(output).find((p) => p.pid === pid);
  return shown ? stateOf(shown.state, shown.pgid) : { kind: 'none' };
}

/** Parses a ps listing: what of group `pgid` it shows. */
export function membersFromPs(output: string, pgid: number): 'live' | 'zombies' {
  return membersOf(listingFromPs(output), pgid);
}

/** One `ps` listing as a child process; 'unknown' when it cannot run, fails or takes too long. */
function psListing(ps: string): Promise<Listed[] | 'unknown'> {
  return new Promise((resolve) => {
    const options = {
      encoding: 'latin1' as const,
      timeout: ProcessListing.PsTimeoutMs,
      maxBuffer: ProcessListing.PsMaxBytes,
    };
    execFile(ps, ['-A', '-o', 'pid=,pgid=,state='], options, (err, stdout) =>
      // no ps, or it failed: the caller falls back to what signals can tell
      resolve(err ? 'unknown' : listingFromPs(stdout)),
    );
  });
}

/** The portable way, listing with `ps` (another command only in tests: one that is missing). */
export function portableWith(ps: string): ProcessGroups {
  const listing = new FreshListing(() => psListing(ps));
  return {
    kind: 'portable',
    members: (pgid) => membersListed(pgid, listing),
    async process(pid) {
      if (!exists(pid)) return { kind: 'none' };
      const listed = await listing.get();
      if (listed === 'unknown') return { kind: 'unknown' };
      const shown = listed.find((p) => p.pid === pid);
      // Not shown: it went away after signal 0 saw it.
      return shown ? stateOf(shown.state, shown.pgid) : { kind: 'none' };
    },
  };
}

const procScan = new FreshListing(procListing);

export const linuxProc: ProcessGroups = {
  kind: 'linuxProc',
  members: (pgid) => membersListed(pgid, procScan),
  async process(pid) {
    try {
      const { state, pgid } = fromStat(pid, await fs.promises.readFile(`/proc/${pid}/stat`, 'latin1'));
      return stateOf(state, pgid);
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ENOENT' ? { kind: 'none' } : { kind: 'unknown' };
    }
  },
};

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
