// Shared helpers for the benchmarks: timing, statistics, /proc readers, temp dirs, child processes
// and the cleanup of everything the bench started.
import { type ChildProcess, spawn, type SpawnOptions } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export function now(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** Named stretches of the run, in µs of the monotonic clock that V8's CPU profiles also use. */
export interface Phase {
  name: string;
  startUs: number;
  endUs: number;
}

export const phases: Phase[] = [];

/** Runs `fn` and records its stretch of time under `name` (a name may have many stretches). */
export async function phase<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const startUs = Number(process.hrtime.bigint() / 1000n);
  try {
    return await fn();
  } finally {
    phases.push({ name, startUs, endUs: Number(process.hrtime.bigint() / 1000n) });
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Nearest-rank percentile. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export function log(line: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

// --- cleanup -------------------------------------------------------------------------------

type Cleanup = () => void | Promise<void>;
const cleanups: Cleanup[] = [];

/** Registers an undo step; steps run in reverse order at the end (or on a signal). */
export function onCleanup(step: Cleanup): () => void {
  cleanups.push(step);
  return () => {
    const i = cleanups.indexOf(step);
    if (i >= 0) cleanups.splice(i, 1);
  };
}

export async function runCleanups(): Promise<void> {
  while (cleanups.length > 0) {
    const step = cleanups.pop()!;
    try {
      await step();
    } catch {
      // one cleanup that fails must not keep the others from running
    }
  }
}

export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  onCleanup(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Spawns a child that is killed (its whole process group) at cleanup if still running. */
export function spawnTracked(file: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  const child = spawn(file, args, { detached: true, ...options });
  const undo = onCleanup(() => killGroup(child));
  child.once('exit', () => undo());
  return child;
}

export function killGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // the process is already gone: nothing left to signal
    }
  }
}

export function waitExit(child: ChildProcess, timeoutMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      killGroup(child);
      resolve();
    }, timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Runs a command to completion; resolves with its stdout. */
export function run(
  file: string,
  args: string[],
  options: SpawnOptions = {},
  timeoutMs = 60_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} ${args.join(' ')} timed out`));
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
  everyMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

// --- /proc ---------------------------------------------------------------------------------

const CLOCK_TICKS = 100; // USER_HZ on Linux

export interface ProcMemory {
  rssKb: number;
  pssKb: number;
}

export function procMemory(pid: number): ProcMemory {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const rss = /VmRSS:\s+(\d+)/.exec(status);
  let pss = NaN;
  try {
    const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const m = /^Pss:\s+(\d+)/m.exec(rollup);
    if (m) pss = Number(m[1]);
  } catch {
    // smaps_rollup needs a 4.14+ kernel and ptrace access
  }
  return { rssKb: rss ? Number(rss[1]) : NaN, pssKb: pss };
}

export interface ProcCpu {
  /** user + system CPU time of the whole process (all threads), ms. */
  cpuMs: number;
  /** Voluntary context switches summed over every thread: how often it went to sleep (i.e. woke up). */
  voluntary: number;
  /** The same for the main thread alone (the event loop). */
  mainVoluntary: number;
  /** user + system CPU time of the main thread alone, ms. */
  mainCpuMs: number;
  involuntary: number;
  threads: number;
}

export function procCpu(pid: number): ProcCpu {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): utime is field 14, stime field 15
  const cpuMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  let voluntary = 0;
  let involuntary = 0;
  let threads = 0;
  let mainVoluntary = 0;
  let mainCpuMs = 0;
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const status = fs.readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
      const v = Number(/\nvoluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0);
      voluntary += v;
      if (task === String(pid)) {
        mainVoluntary = v;
        const main = fs.readFileSync(`/proc/${pid}/task/${task}/stat`, 'latin1');
        const mainFields = main.slice(main.lastIndexOf(')') + 2).split(' ');
        mainCpuMs = ((Number(mainFields[11]) + Number(mainFields[12])) * 1000) / CLOCK_TICKS;
      }
      involuntary += Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0);
      threads++;
    } catch {
      // the thread ended while read: not counted
    }
  }
  return { cpuMs, voluntary, mainVoluntary, mainCpuMs, involuntary, threads };
}

export function machine(): { cpu: string; cores: number; memGb: number; kernel: string; node: string; load: string } {
  const cpu = os.cpus()[0]?.model ?? 'unknown';
  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  return {
    cpu,
    cores: os.cpus().length,
    memGb: Math.round(os.totalmem() / 2 ** 30),
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    load,
  };
}

// --- output watching ---------------------------------------------------------------------

/** Finds a marker in a byte stream that arrives in arbitrary chunks. */
export class Marker {
  private readonly needle: Buffer;
  private tail = Buffer.alloc(0);
  bytes = 0;
  found = false;

  constructor(text: string) {
    this.needle = Buffer.from(text, 'utf8');
  }

  push(chunk: Buffer): boolean {
    this.bytes += chunk.length;
    if (this.found) return true;
    if (chunk.indexOf(this.needle) >= 0) return (this.found = true);
    if (this.tail.length > 0) {
      const joined = Buffer.concat([this.tail, chunk.subarray(0, this.needle.length)]);
      if (joined.indexOf(this.needle) >= 0) return (this.found = true);
    }
    const keep = this.needle.length - 1;
    const source = chunk.length >= keep ? chunk : Buffer.concat([this.tail, chunk]);
    this.tail = Buffer.from(source.subarray(Math.max(0, source.length - keep)));
    return false;
  }
}

/** A shell fragment that prints `HF_<name>` without the marker appearing in the command itself. */
export function printMarker(name: string): string {
  return `printf '%s_%s\\n' HF ${name}`;
}

export function markerText(name: string): string {
  return `HF_${name}`;
}
