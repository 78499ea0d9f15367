// Processes as Linux shows them in /proc: what the e2e checks (who is alive, whose child, with what
// environment) and how it ends what a test left behind.
import * as fs from 'node:fs';

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  state: string;
  cmdline: string[];
}

export function readProc(pid: number): ProcInfo | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid pgrp session ..."; comm may hold spaces and parentheses.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    let cmdline: string[] = [];
    try {
      cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    } catch {
      // the process ended while read: no command line to match
    }
    return { pid, state: rest[0], ppid: Number(rest[1]), pgid: Number(rest[2]), sid: Number(rest[3]), cmdline };
  } catch {
    return undefined;
  }
}

export function allProcs(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const info = readProc(Number(entry));
    if (info) out.push(info);
  }
  return out;
}

/** True while `pid` exists and is not a zombie (PID 1 here may leave zombies around). */
export function isAlive(pid: number): boolean {
  const info = readProc(pid);
  return !!info && info.state !== 'Z' && info.state !== 'X';
}

/** `root` and all its descendants, parents before children. */
export function processTree(root: number, procs: ProcInfo[] = allProcs()): ProcInfo[] {
  const children = new Map<number, ProcInfo[]>();
  for (const p of procs) {
    const list = children.get(p.ppid) ?? [];
    list.push(p);
    children.set(p.ppid, list);
  }
  const out: ProcInfo[] = [];
  const self = procs.find((p) => p.pid === root);
  const queue: ProcInfo[] = self ? [self] : [];
  while (queue.length) {
    const p = queue.shift()!;
    out.push(p);
    queue.push(...(children.get(p.pid) ?? []));
  }
  return out;
}

/** A process's environment as NAME=VALUE lines ([] when it is gone). */
export function readEnviron(pid: number): string[] {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/** Sends `signal` to `pid`; a process that is already gone is not an error. */
export function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // the process is already gone: nothing left to signal
  }
}
