// How long ago a process started, from /proc (Linux only). Pure Node, unit-tested.
import * as fs from 'node:fs';

/** Clock ticks per second for /proc/PID/stat times; 100 on every mainstream Linux. */
const CLOCK_TICKS = 100;

/** Seconds since `pid` started, or undefined where /proc cannot tell (not Linux, gone, unreadable). */
export function processAgeSeconds(pid: number, procRoot = '/proc'): number | undefined {
  try {
    const stat = fs.readFileSync(`${procRoot}/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields resume after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const startTicks = Number(fields[19]); // field 22 overall
    const uptime = Number(fs.readFileSync(`${procRoot}/uptime`, 'utf8').split(' ')[0]);
    if (!Number.isFinite(startTicks) || !Number.isFinite(uptime)) return undefined;
    return Math.max(0, uptime - startTicks / CLOCK_TICKS);
  } catch {
    return undefined;
  }
}
