// Which process group is in the foreground of a program's terminal (its tpgid). A shell's marks are
// output that any program can print: `run` types only while the shell itself is in the foreground (no
// program of it runs, so the shell and not a program reads the keys), and takes a command's end only
// once it is again. Read from /proc/PID/stat, or (macOS, and HOLDFAST_PORTABLE_PROCESS=1) from ps.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';

const portable = process.env.HOLDFAST_PORTABLE_PROCESS === '1' || !fs.existsSync('/proc/self/stat');

/** How long ps may take before the answer is "cannot tell". */
const PS_TIMEOUT_MS = 2000;

/** The foreground process group of `pid`'s terminal, or undefined when it cannot be told (it is gone, no ps). */
export async function foregroundGroup(pid: number): Promise<number | undefined> {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  if (portable) return psForeground(pid);
  try {
    const stat = await fs.promises.readFile(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state ppid pgrp session tty_nr tpgid ...: comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const tpgid = Number(fields[5]);
    return Number.isInteger(tpgid) && tpgid > 0 ? tpgid : undefined;
  } catch {
    return undefined; // gone: its exit is on its way
  }
}

function psForeground(pid: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    execFile('ps', ['-o', 'tpgid=', '-p', String(pid)], { timeout: PS_TIMEOUT_MS }, (err, stdout) => {
      const tpgid = err ? NaN : Number(stdout.trim());
      resolve(Number.isInteger(tpgid) && tpgid > 0 ? tpgid : undefined);
    });
  });
}

/** Whether `pid` (a shell, the leader of its own process group) is in the foreground: unknown counts as yes. */
export async function inForeground(pid: number): Promise<boolean> {
  const group = await foregroundGroup(pid);
  return group === undefined || group === pid;
}
