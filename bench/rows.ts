// The benchmark rows. Each returns figures for Holdfast and its peers from the same run.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as NodePty from 'node-pty';
import type { HoldfastClient } from '../src/client/client';
import type { SessionInfo } from '../src/protocol/messages';
import {
  attachOwner,
  type BenchDaemon,
  rawWatcher,
  removeSession,
  startBenchDaemon,
  waitIdle,
  type DaemonLaunch,
} from './holdfast';
import { ScriptPty, shellQuote, TmuxServer } from './tmux';
import {
  log,
  markerText,
  median,
  now,
  percentile,
  printMarker,
  procCpu,
  procMemory,
  type ProcMemory,
  sleep,
  tempDir,
  waitUntil,
} from './util';

export interface Context {
  quick: boolean;
  dir: string;
  /** `seq 1 N`: ~23 MB for 3,000,000 lines (the full run), ~7 MB for --quick. */
  floodFile: string;
  floodBytes: number;
  /** 10,100 coloured lines of ~110 columns: a full 10,000-line scrollback. */
  scrollFile: string;
  scrollLines: number;
  /** `seq 1 12000`: short plain lines, more than a full 10,000-line scrollback. */
  plainFile: string;
  daemon: BenchDaemon;
  client: HoldfastClient;
  tmux?: TmuxServer;
  launch: DaemonLaunch;
}

let serial = 0;
const nextId = (): string => `${process.pid}x${++serial}`;

function seqFile(file: string, lines: number): void {
  const fd = fs.openSync(file, 'w');
  const seq = spawnSync('seq', ['1', String(lines)], { stdio: ['ignore', fd, 'inherit'] });
  fs.closeSync(fd);
  if (seq.status !== 0) throw new Error('seq failed');
}

/** The last line of the plain file. */
export const PLAIN_LAST_LINE = '12000';

export function makeFiles(
  dir: string,
  floodLines: number,
): { floodFile: string; floodBytes: number; scrollFile: string; scrollLines: number; plainFile: string } {
  const floodFile = path.join(dir, 'flood.txt');
  seqFile(floodFile, floodLines);
  const plainFile = path.join(dir, 'plain.txt');
  seqFile(plainFile, Number(PLAIN_LAST_LINE));
  const scrollLines = 10_100;
  const words = 'the quick brown fox jumps over the lazy dog while holdfast keeps every line of its scrollback'.split(
    ' ',
  );
  const out: string[] = [];
  for (let i = 1; i <= scrollLines; i++) {
    const text = Array.from({ length: 12 }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(' ');
    out.push(`\x1b[3${i % 8}mL${String(i).padStart(6, '0')}\x1b[0m ${text} \x1b[1m${i % 97}\x1b[0m`);
  }
  const scrollFile = path.join(dir, 'scroll.txt');
  fs.writeFileSync(scrollFile, out.join('\n') + '\n');
  return { floodFile, floodBytes: fs.statSync(floodFile).size, scrollFile, scrollLines, plainFile };
}

/** The text of the scroll file's last line as it appears on screen. */
export function lastScrollLine(ctx: Pick<Context, 'scrollLines'>): string {
  return `L${String(ctx.scrollLines).padStart(6, '0')}`;
}

// --- 1. flood ----------------------------------------------------------------------------

export interface FloodRun {
  ms: number;
  /** CPU time the daemon used during the run (user + system, all threads). */
  daemonCpuMs?: number;
  /** The part of daemonCpuMs the daemon's main thread used (the rest: its workers, parsing). */
  mainCpuMs?: number;
  bytes: number;
  resyncs: number;
  slowWatcherBytes?: number;
}

/** cat of the flood file in a session; done when the owner saw the end marker and the emulator parsed it all. */
export async function floodHoldfast(ctx: Context, watchers = 0): Promise<FloodRun> {
  const id = nextId();
  const marker = `END${id}`;
  const { session } = await ctx.client.request('create', {
    name: `flood-${id}`,
    argv: ['sh', '-c', `read _; cat ${shellQuote(ctx.floodFile)}; ${printMarker(marker)}`],
    cwd: ctx.dir,
    cols: 120,
    rows: 40,
  });
  const owner = await attachOwner(ctx.client, session, 120, 40);
  const others: Awaited<ReturnType<typeof rawWatcher>>[] = [];
  for (let i = 0; i < watchers; i++) others.push(await rawWatcher(ctx.daemon.socket, session.id, i !== 0));
  await sleep(100);
  const cpu0 = procCpu(ctx.daemon.pid);
  const t0 = now();
  const seen = owner.expect(markerText(marker)).done;
  const parsed = ctx.client
    .request('wait', { session: session.id, condition: { kind: 'exit' }, timeoutMs: 300_000 })
    .then(() => now());
  owner.attachment.write('\r');
  const [tSeen, tParsed] = await Promise.all([seen, parsed]);
  const cpu1 = procCpu(ctx.daemon.pid);
  const result: FloodRun = {
    ms: Math.max(tSeen, tParsed) - t0,
    daemonCpuMs: cpu1.cpuMs - cpu0.cpuMs,
    mainCpuMs: cpu1.mainCpuMs - cpu0.mainCpuMs,
    bytes: owner.received(),
    resyncs: owner.resyncs(),
  };
  if (watchers > 0) result.slowWatcherBytes = others[0].bytes();
  for (const w of others) w.close();
  await owner.attachment.detach();
  await removeSession(ctx.client, session.id);
  return result;
}

export async function floodTmux(ctx: Context): Promise<FloodRun> {
  const tmux = ctx.tmux!;
  const id = nextId();
  const name = `flood-${id}`;
  const marker = `END${id}`;
  await tmux.newSession(
    name,
    120,
    40,
    `read _; cat ${shellQuote(ctx.floodFile)}; ${printMarker(marker)}; exec sleep 1000000`,
  );
  const client = tmux.attach(name, 120, 40);
  await waitUntil(() => client.firstOutputAt > 0, 10_000, 'the tmux client to draw');
  await sleep(200);
  const seen = client.expect(markerText(marker));
  const serverPid = await tmux.pid();
  const cpu0 = procCpu(serverPid).cpuMs;
  const t0 = now();
  client.write('\r');
  const t = await seen;
  const daemonCpuMs = procCpu(serverPid).cpuMs - cpu0;
  const bytes = client.bytes;
  await client.close();
  await tmux.killSession(name);
  return { ms: t - t0, daemonCpuMs, bytes, resyncs: 0 };
}

export async function floodKernel(ctx: Context): Promise<FloodRun> {
  const marker = `END${nextId()}`;
  const p = new ScriptPty(`read _; cat ${shellQuote(ctx.floodFile)}; ${printMarker(marker)}`, 120, 40, 'script cat');
  await sleep(200);
  const seen = p.expect(markerText(marker));
  const t0 = now();
  p.write('\n');
  const t = await seen;
  const bytes = p.bytes;
  await p.close();
  return { ms: t - t0, bytes, resyncs: 0 };
}

// --- 2. echo latency ---------------------------------------------------------------------

export interface Latency {
  median: number;
  p99: number;
  samples: number;
}

function summarize(samples: number[]): Latency {
  return { median: median(samples), p99: percentile(samples, 99), samples: samples.length };
}

/**
 * Round trips before the measured ones, for every peer alike. The daemon is a long-lived process whose
 * hot paths V8 compiles after a few thousand calls: on a fresh daemon the first thousand keystrokes
 * ran while its compiler threads took the cores (p99 about 3 ms, under 1 ms once compiled).
 */
export const ECHO_WARM_UP = 2000;

const ECHO_PROGRAM = (marker: string) => `seq 1 12000; stty raw -echo; ${printMarker(marker)}; exec cat`;

/** Between two measured keystrokes at typing pace (50 keys a second), ms; 0: each right after the last echo. */
export const TYPING_GAP_MS = 20;

async function roundTrips(
  count: number,
  write: () => void,
  subscribe: (onChunk: (chunk: Buffer) => void) => void,
  gapMs = 0,
): Promise<number[]> {
  let pending: ((t: number) => void) | undefined;
  subscribe((chunk) => {
    if (pending && chunk.includes(0x78 /* x */)) {
      const resolve = pending;
      pending = undefined;
      resolve(now());
    }
  });
  const samples: number[] = [];
  const warmUp = ECHO_WARM_UP;
  for (let i = 0; i < warmUp + count; i++) {
    // The bench's own collections are not the server's latency: one before the measured trips, and a
    // young generation (package.json's bench script) that 1,000 of them do not fill.
    if (i === warmUp) (globalThis as { gc?: () => void }).gc?.();
    const got = new Promise<number>((resolve, reject) => {
      pending = resolve;
      setTimeout(() => reject(new Error('no echo within 5 s')), 5000).unref();
    });
    const t0 = now();
    write();
    const t = (await got) - t0;
    if (i >= warmUp) samples.push(t);
    // Back to back, every thread on the path stays hot; at typing pace each key finds them asleep.
    if (gapMs > 0 && i >= warmUp) await sleep(gapMs);
  }
  return samples;
}

/** A program that floods its terminal until killed (nobody attached: the server alone parses it). */
const BUSY_PROGRAM = (file: string) => `while :; do cat ${shellQuote(file)}; done`;

/** `busy`: another session floods meanwhile (detached), so the server parses while it echoes. */
export async function echoHoldfast(ctx: Context, count: number, busy = false, gapMs = 0): Promise<Latency> {
  let busyId: string | undefined;
  if (busy) {
    const { session } = await ctx.client.request('create', {
      name: `busy-${nextId()}`,
      argv: ['sh', '-c', BUSY_PROGRAM(ctx.floodFile)],
      cwd: ctx.dir,
      cols: 120,
      rows: 40,
    });
    busyId = session.id;
    await sleep(500);
  }
  try {
    return await echoHoldfastSession(ctx, count, gapMs);
  } finally {
    if (busyId) await removeSession(ctx.client, busyId);
  }
}

async function echoHoldfastSession(ctx: Context, count: number, gapMs: number): Promise<Latency> {
  const id = nextId();
  const marker = `READY${id}`;
  const { session } = await ctx.client.request('create', {
    name: `echo-${id}`,
    argv: ['sh', '-c', ECHO_PROGRAM(marker)],
    cwd: ctx.dir,
    cols: 120,
    rows: 40,
    scrollback: 10_000,
  });
  const { met } = await ctx.client.request('wait', {
    session: session.id,
    condition: { kind: 'text', pattern: markerText(marker) },
    timeoutMs: 60_000,
  });
  if (!met) throw new Error('the echo session did not get ready');
  let onChunk: (chunk: Buffer) => void = () => undefined;
  const attachment = await ctx.client.attach(
    { session: session.id, role: 'owner', cols: 120, rows: 40 },
    { onSnapshot: () => undefined, onOutput: (b) => onChunk(b) },
  );
  await sleep(200);
  const samples = await roundTrips(
    count,
    () => attachment.write('x'),
    (f) => (onChunk = f),
    gapMs,
  );
  await attachment.detach();
  await removeSession(ctx.client, session.id);
  return summarize(samples);
}

export async function echoNodePty(ctx: Context, count: number): Promise<Latency> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pty = require('node-pty') as typeof NodePty;
  const marker = `READY${nextId()}`;
  const term = pty.spawn('sh', ['-c', ECHO_PROGRAM(marker)], {
    name: 'xterm-256color',
    cols: 120,
    rows: 40,
    cwd: ctx.dir,
    env: process.env,
    encoding: null,
  });
  let onChunk: (chunk: Buffer) => void = () => undefined;
  let ready = false;
  let seenText = '';
  term.onData((d) => {
    const chunk = d as unknown as Buffer;
    if (!ready) {
      seenText = (seenText + chunk.toString('latin1')).slice(-200);
      if (seenText.includes(markerText(marker))) ready = true;
      return;
    }
    onChunk(chunk);
  });
  await waitUntil(() => ready, 30_000, 'node-pty echo session');
  await sleep(200);
  const samples = await roundTrips(
    count,
    () => term.write('x'),
    (f) => (onChunk = f),
  );
  term.kill('SIGKILL');
  return summarize(samples);
}

export async function echoTmux(ctx: Context, count: number, busy = false, gapMs = 0): Promise<Latency> {
  const tmux = ctx.tmux!;
  const busyName = busy ? `busy-${nextId()}` : undefined;
  if (busyName) {
    await tmux.newSession(busyName, 120, 40, BUSY_PROGRAM(ctx.floodFile));
    await sleep(500);
  }
  try {
    return await echoTmuxSession(ctx, count, gapMs);
  } finally {
    if (busyName) await tmux.killSession(busyName);
  }
}

async function echoTmuxSession(ctx: Context, count: number, gapMs: number): Promise<Latency> {
  const tmux = ctx.tmux!;
  const id = nextId();
  const name = `echo-${id}`;
  const marker = `READY${id}`;
  await tmux.newSession(name, 120, 40, ECHO_PROGRAM(marker));
  await waitUntil(
    async () => (await tmux.cmd('capture-pane', '-p', '-t', name)).includes(markerText(marker)),
    30_000,
    'tmux echo session',
  );
  const client = tmux.attach(name, 120, 40);
  await waitUntil(() => client.firstOutputAt > 0, 10_000, 'the tmux client to draw');
  await sleep(300);
  let onChunk: (chunk: Buffer) => void = () => undefined;
  client.child.stdout!.on('data', (d: Buffer) => onChunk(d));
  const samples = await roundTrips(
    count,
    () => client.write('x'),
    (f) => (onChunk = f),
    gapMs,
  );
  await client.close();
  await tmux.killSession(name);
  return summarize(samples);
}

// --- 3. reattach -------------------------------------------------------------------------

/** Sessions at 200x50 holding the scroll file: 10,000 lines of scrollback plus the screen. */
export async function scrollSessions(
  ctx: Context,
  count: number,
  cols = 200,
  rows = 50,
  file = ctx.scrollFile,
): Promise<SessionInfo[]> {
  const sessions: SessionInfo[] = [];
  for (let i = 0; i < count; i++) {
    const { session } = await ctx.client.request('create', {
      name: `scroll-${nextId()}`,
      // `cat` on the terminal: idle, and Enter (echoed) makes the screen change on demand.
      argv: ['sh', '-c', `cat ${shellQuote(file)}; exec cat`],
      cwd: ctx.dir,
      cols,
      rows,
      scrollback: 10_000,
    });
    sessions.push(session);
  }
  for (const s of sessions) await waitIdle(ctx.client, s.id, 300);
  return sessions;
}

/** Makes each session print (its terminal echoes an Enter) and waits until that is parsed. */
export async function touchSessions(ctx: Context, sessions: SessionInfo[]): Promise<void> {
  for (const s of sessions) await ctx.client.request('send', { session: s.id, data: '\r' });
  for (const s of sessions) await waitIdle(ctx.client, s.id, 100);
}

export interface Reattach {
  /** connect → the snapshot that carries the visible screen fully received */
  visibleMs: number;
  /** connect → the whole scrollback received */
  fullMs: number;
  snapshotBytes: number;
}

/**
 * A fresh connection (as after a window reload) attaching watchers to `sessions`, as the extension
 * does: the visible screen first, then the scrollback in a second snapshot.
 */
export async function reattachHoldfast(ctx: Context, sessions: SessionInfo[]): Promise<Reattach> {
  const t0 = now();
  const client = await ctx.daemon.connect('bench-reattach');
  let bytes = 0;
  let visibleAt = 0;
  let fullAt = 0;
  await Promise.all(
    sessions.map(
      (s) =>
        new Promise<void>((resolve, reject) => {
          client
            .attach(
              { session: s.id, role: 'watcher', screenFirst: true },
              {
                onSnapshot: (b, why) => {
                  bytes += b.length;
                  if (why === 'attach') visibleAt = now();
                  if (why === 'history') {
                    fullAt = now();
                    resolve();
                  }
                },
                onOutput: () => undefined,
              },
            )
            .catch(reject);
        }),
    ),
  );
  client.close();
  return { visibleMs: visibleAt - t0, fullMs: fullAt - t0, snapshotBytes: bytes };
}

export async function tmuxScrollSessions(
  ctx: Context,
  count: number,
  cols = 200,
  rows = 50,
  prefix = 'scroll',
  file = ctx.scrollFile,
  last = lastScrollLine(ctx),
): Promise<string[]> {
  const tmux = ctx.tmux!;
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const name = `${prefix}-${nextId()}`;
    await tmux.newSession(name, cols, rows, `cat ${shellQuote(file)}; exec sleep 1000000`);
    names.push(name);
  }
  // (tmux trims a full history by a tenth at a time, so history_size hovers around 9,000-10,000.)
  for (const name of names)
    await waitUntil(
      async () => (await tmux.cmd('capture-pane', '-p', '-t', name)).includes(last),
      60_000,
      `tmux ${name} to show the last line`,
      50,
    );
  return names;
}

/** tmux attach (in a kernel PTY) until the last line of the screen is drawn; the history via capture-pane. */
export async function reattachTmux(ctx: Context, names: string[], cols = 200, rows = 50): Promise<Reattach> {
  const tmux = ctx.tmux!;
  const t0 = now();
  const clients = names.map((name) => tmux.attach(name, cols, rows));
  const seen = await Promise.all(clients.map((c) => c.expect(lastScrollLine(ctx), 30_000)));
  const visibleMs = Math.max(...seen) - t0;
  let snapshotBytes = 0;
  for (const c of clients) snapshotBytes += c.bytes;
  await Promise.all(clients.map((c) => c.close()));
  // tmux never sends its history to a client; the nearest equivalent is capture-pane of it all.
  const t1 = now();
  const captured = await Promise.all(
    names.map((name) => tmux.cmd('capture-pane', '-p', '-e', '-J', '-S', '-', '-E', '-', '-t', name)),
  );
  const fullMs = now() - t1;
  if (!captured.every((c) => c.includes(lastScrollLine(ctx))))
    throw new Error('tmux capture-pane missed the last line');
  return { visibleMs, fullMs, snapshotBytes };
}

// --- 4 + 5. memory and idle cost --------------------------------------------------------

export interface MemoryPoint {
  sessions: number;
  holdfast: ProcMemory;
  tmux?: ProcMemory;
}

export interface IdleCost {
  seconds: number;
  cpuMs: number;
  /** Voluntary context switches of all threads, and of the main (event loop) thread alone. */
  wakeups: number;
  mainWakeups: number;
  threads: number;
}

export async function idleCost(pid: number, seconds: number, settleSeconds: number): Promise<IdleCost> {
  // Let what the filling left behind settle first (GC tasks run a few seconds after a burst of
  // allocation); an idle daemon is measured, not one cooling down.
  await sleep(settleSeconds * 1000);
  const a = procCpu(pid);
  await sleep(seconds * 1000);
  const b = procCpu(pid);
  return {
    seconds,
    cpuMs: b.cpuMs - a.cpuMs,
    wakeups: b.voluntary - a.voluntary,
    mainWakeups: b.mainVoluntary - a.mainVoluntary,
    threads: b.threads,
  };
}

export interface MemoryResult {
  baseline: { holdfast: ProcMemory; tmux?: ProcMemory };
  points: MemoryPoint[];
  idle?: { holdfastDetached: IdleCost; holdfastWatched: IdleCost; tmux?: IdleCost };
}

/** A fresh daemon and a fresh tmux server, filled step by step to each count of idle sessions. */
/** `plain`: the sessions hold the plain file (`seq`) instead of the coloured scroll file; no idle rows. */
export async function memoryAndIdle(
  ctx: Context,
  counts: number[],
  idleSeconds: number,
  idleAt: number,
  settleSeconds: number,
  plain = false,
): Promise<MemoryResult> {
  const daemon = await startBenchDaemon(ctx.launch);
  const client = await daemon.connect('bench-memory');
  const sub: Context = { ...ctx, daemon, client };
  let tmux: TmuxServer | undefined;
  if (ctx.tmux) {
    tmux = new TmuxServer(tempDir('hf-bench-tmux-'));
    await tmux.newSession('base', 120, 40, 'exec sleep 1000000');
    await tmux.pid();
  }
  const tsub: Context = { ...ctx, tmux };
  await sleep(1500);
  const baseline = { holdfast: procMemory(daemon.pid), tmux: tmux?.memory() };
  const points: MemoryPoint[] = [];
  let made = 0;
  let idle: MemoryResult['idle'] | undefined;
  const sessions: SessionInfo[] = [];
  for (const count of counts) {
    log(`memory: filling ${count} sessions`);
    const file = plain ? ctx.plainFile : ctx.scrollFile;
    sessions.push(...(await scrollSessions(sub, count - made, 120, 40, file)));
    if (tmux)
      await tmuxScrollSessions(tsub, count - made, 120, 40, 'mem', file, plain ? PLAIN_LAST_LINE : lastScrollLine(ctx));
    made = count;
    await sleep(2000);
    points.push({ sessions: count, holdfast: procMemory(daemon.pid), tmux: tmux?.memory() });
    if (count === idleAt && !plain) {
      log(`idle: ${idleSeconds} s with ${count} idle sessions, detached`);
      const holdfastDetached = await idleCost(daemon.pid, idleSeconds, settleSeconds);
      log(`idle: ${idleSeconds} s with ${count} idle sessions, each with a watcher attached`);
      const watcher = await daemon.connect('bench-idle-watcher');
      for (const s of sessions)
        await watcher.attach(
          { session: s.id, role: 'watcher' },
          { onSnapshot: () => undefined, onOutput: () => undefined },
        );
      const holdfastWatched = await idleCost(daemon.pid, idleSeconds, settleSeconds);
      watcher.close();
      let tmuxIdle: IdleCost | undefined;
      if (tmux) {
        log(`idle: ${idleSeconds} s of the tmux server with ${count} idle sessions`);
        tmuxIdle = await idleCost(await tmux.pid(), idleSeconds, settleSeconds);
      }
      idle = { holdfastDetached, holdfastWatched, tmux: tmuxIdle };
    }
  }
  await daemon.stop();
  await tmux?.kill();
  return { baseline, points, idle };
}
