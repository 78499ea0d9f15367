// Helpers for the reliability suite (test/reliability-*.test.ts): figures for docs/reliability.md,
// daemon memory from /proc, raw protocol connections, process checks.
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { encodeJson, type Frame, FrameDecoder, FrameKind } from '../../src/protocol/frame';
import type { HoldfastClient } from '../../src/client/client';
import { PROTOCOL_VERSION } from '../../src/protocol/messages';
import { tokenPathFor } from '../../src/host/paths';

/** Longer soak variants run with HOLDFAST_SOAK=1; CI runs the short ones. */
export const SOAK = process.env.HOLDFAST_SOAK === '1';

export interface Figure {
  item: string;
  name: string;
  value: number | string;
  unit?: string;
  /** What the test asserts about it, e.g. "< 400 MiB". */
  bound?: string;
}

/** Records a measured figure: printed, and appended to $HOLDFAST_RELIABILITY_REPORT (JSON lines) for the report. */
export function record(figure: Figure): void {
  const line = JSON.stringify({ ...figure, soak: SOAK, at: new Date().toISOString() });
  process.stdout.write(`# figure ${line}\n`);
  const file = process.env.HOLDFAST_RELIABILITY_REPORT;
  if (file) fs.appendFileSync(file, line + '\n');
}

/** Resident memory of a process in MiB (VmRSS), or 0 when it is gone. */
export function rssMiB(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'latin1'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** CPU time (user + system) a process has used, in ms. */
export function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (100 Hz)
}

/** Samples a process's RSS every `everyMs` until stopped; keeps the peak. */
export class RssSampler {
  peak = 0;
  samples = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    everyMs = 100,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  sample(): number {
    const now = rssMiB(this.pid);
    this.samples++;
    if (now > this.peak) this.peak = now;
    return now;
  }

  stop(): number {
    clearInterval(this.timer);
    this.sample();
    return this.peak;
  }
}

export function daemonToken(socket: string): string {
  return fs.readFileSync(tokenPathFor(socket), 'utf8').trim();
}

/** A client hello; `token: null` leaves the token out. */
export function helloFrame(socket: string, token: string | null = daemonToken(socket), client = 'raw'): Buffer {
  return encodeJson(FrameKind.Hello, {
    protocol: PROTOCOL_VERSION,
    client,
    version: 'test',
    ...(token === null ? {} : { token }),
    capabilities: [],
  });
}

/** A raw socket to the daemon that records the frames it gets back and when it closed. */
export class RawConnection {
  readonly socket: net.Socket;
  readonly frames: Frame[] = [];
  readonly closed: Promise<number>;
  private readonly decoder = new FrameDecoder(() => Number.MAX_SAFE_INTEGER);
  /** Keep only this many frames (fuzzers get answers they do not need). */
  keep = Infinity;
  received = 0;
  /** Ids of the answers received. */
  readonly answered = new Set<number>();

  constructor(socketPath: string) {
    this.socket = net.createConnection(socketPath);
    this.socket.on('error', () => undefined);
    this.socket.on('data', (chunk: Buffer) => {
      this.received += chunk.length;
      for (const frame of this.decoder.push(chunk)) {
        if (frame.kind === FrameKind.Response)
          this.answered.add((JSON.parse(frame.payload.toString('utf8')) as { id: number }).id);
        if (frame.kind === FrameKind.Error || this.frames.length < this.keep)
          this.frames.push({ kind: frame.kind, payload: Buffer.from(frame.payload) });
      }
    });
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve(Date.now())));
  }

  connected(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket.once('connect', resolve);
      this.socket.once('error', reject);
    });
  }

  /** Resolves when the daemon closed the connection; rejects after `timeoutMs`. */
  closedWithin(timeoutMs: number, what: string): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<number>(
      (_, reject) =>
        (timer = setTimeout(
          () => reject(new Error(`${what}: the daemon did not close the connection within ${timeoutMs} ms`)),
          timeoutMs,
        )),
    );
    return Promise.race([this.closed, timeout]).finally(() => clearTimeout(timer));
  }

  /** The refusal's code and message (a protocol refusal also says what the daemon speaks: errorBody). */
  errorFrame(): { code: string; message: string } | undefined {
    const body = this.errorBody() as { code: string; message: string } | undefined;
    return body && { code: body.code, message: body.message };
  }

  /** The Error frame's whole body, as the daemon sent it. */
  errorBody(): unknown {
    const frame = this.frames.find((f) => f.kind === FrameKind.Error);
    return frame ? (JSON.parse(frame.payload.toString('utf8')) as unknown) : undefined;
  }

  kinds(): number[] {
    return this.frames.map((f) => f.kind);
  }

  destroy(): void {
    this.socket.destroy();
  }
}

export function daemonLog(env: NodeJS.ProcessEnv): string {
  try {
    return fs.readFileSync(path.join(env.XDG_STATE_HOME!, 'holdfast', 'daemon.log'), 'utf8');
  } catch {
    return '';
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The daemon's log once every line it wrote before now is in the file (it writes in the background): a
 * SIGHUP, which it logs and otherwise ignores, marks the spot, and lines reach the file in order.
 */
export async function daemonLogNow(daemon: { env: NodeJS.ProcessEnv; pid: number }): Promise<string> {
  const marks = () =>
    daemonLog(daemon.env)
      .split('\n')
      .filter((line) => line.endsWith(' ignored SIGHUP')).length;
  const before = marks();
  process.kill(daemon.pid, 'SIGHUP');
  const deadline = Date.now() + 10_000;
  while (marks() <= before) {
    if (Date.now() > deadline) throw new Error('the daemon did not log the SIGHUP within 10 s');
    await sleep(20);
  }
  return daemonLog(daemon.env);
}

/** Busy loops on every core, so the daemon competes for CPU as on a loaded machine. */
export function busyCores(count = 2): ChildProcess[] {
  return Array.from({ length: count }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
}

/** A session running `cat` in raw mode, ready: what the latency probe echoes through. Its id. */
export async function echoSession(client: HoldfastClient): Promise<string> {
  const { session } = await client.request('create', {
    argv: ['sh', '-c', "stty raw -echo; echo 'READY''-TO-ECHO'; exec cat"],
    name: 'echo',
  });
  const ready = await client.request('wait', {
    session: session.id,
    condition: { kind: 'text', pattern: 'READY-TO-ECHO' },
    timeoutMs: 30_000,
  });
  if (!ready.met) throw new Error('the echo session did not get to raw mode');
  return session.id;
}

/** [sent at, list ms, echo ms] of each round of the latency probe (latencyProbe.ts). */
export type Round = [number, number, number];

/** The latency probe in a process of its own, against `session` (`cat` in raw mode); its rounds go to `rounds`. */
export function startLatencyProbe(socket: string, session: string, rounds: Round[]): ChildProcess {
  const script = path.join(__dirname, 'latencyProbe.js');
  const child = spawn(process.execPath, [script, socket, session], { stdio: ['ignore', 'pipe', 'inherit'] });
  let partial = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) rounds.push(line.split(' ').map(Number) as Round);
  });
  return child;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}
