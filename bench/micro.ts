// The daemon's parts measured alone, in the bench process (no PTY, no socket): how fast the
// emulator parses, what a snapshot costs with and without the scrollback, and what a session
// would cost hibernated (its snapshot) instead of live (its emulator). Evidence for the rows above.
import * as fs from 'node:fs';
import { Emulator } from '../src/daemon/emulator/emulator';
import { median, now } from './util';

/** Wall time, and the CPU time this process spent (steadier on a loaded machine). */
export interface Timed {
  ms: number;
  cpuMs: number;
}

export interface MicroResult {
  /** Every byte parsed (plain text not skipped): the parser's own speed. */
  parse: { bytes: number; ms: number; cpuMs: number; mbPerS: number; cpuMbPerS: number };
  /** The same flood written at once, plain text skipped where it may be (plainRun.ts). */
  skipping: Timed & { skippedBytes: number };
  snapshot: { full: Timed; fullBytes: number; visible: Timed; visibleBytes: number };
  restore: Timed;
  memory: { liveKbPerSession: number; hibernatedKbPerSession: number; sessions: number };
  /** History store bytes per stored line: `seq` lines (the flood) and coloured 110-column lines. */
  historyBytesPerLine: { plain: number; coloured: number };
}

function cpuNow(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

class Clock {
  private readonly wall: number[] = [];
  private readonly cpu: number[] = [];
  private t0 = 0;
  private c0 = 0;
  start(): void {
    this.t0 = now();
    this.c0 = cpuNow();
  }
  stop(keep: boolean): void {
    if (!keep) return;
    this.wall.push(now() - this.t0);
    this.cpu.push(cpuNow() - this.c0);
  }
  result(): Timed {
    return { ms: median(this.wall), cpuMs: median(this.cpu) };
  }
}

/** What a PTY with onlcr hands over: LF becomes CR LF. */
function ptyBytes(file: string): Buffer {
  const raw = fs.readFileSync(file);
  let lf = 0;
  for (let i = 0; i < raw.length; i++) if (raw[i] === 0x0a) lf++;
  const out = Buffer.allocUnsafe(raw.length + lf);
  let o = 0;
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] === 0x0a) out[o++] = 0x0d;
    out[o++] = raw[i];
  }
  return out;
}

/** Writes `data` in PTY-sized chunks and resolves once all of it is parsed. */
export function feed(emulator: Emulator, data: Buffer, chunk = 4096): Promise<void> {
  return new Promise((resolve) => {
    const sub = emulator.onParsed(() => {
      if (emulator.backlog === 0) {
        sub.dispose();
        resolve();
      }
    });
    for (let i = 0; i < data.length; i += chunk) emulator.write(data.subarray(i, i + chunk));
  });
}

export async function micro(floodFile: string, scrollFile: string, repeats: number): Promise<MicroResult> {
  const flood = ptyBytes(floodFile);
  const scroll = ptyBytes(scrollFile);

  const parseClock = new Clock();
  const skipClock = new Clock();
  let plainBytesPerLine = NaN;
  let skippedBytes = 0;
  for (let i = 0; i <= repeats; i++) {
    for (const skips of [false, true]) {
      const e = new Emulator({ cols: 120, rows: 40, scrollback: 10_000 });
      e.skipsPlainText = skips;
      const clock = skips ? skipClock : parseClock;
      clock.start();
      await feed(e, flood);
      clock.stop(i > 0);
      e.compactHistory();
      if (skips) skippedBytes = e.plainBytesSkipped;
      else plainBytesPerLine = e.historyBytes / e.historyLength;
      e.dispose();
    }
  }
  const parse = parseClock.result();

  const e = new Emulator({ cols: 200, rows: 50, scrollback: 10_000 });
  await feed(e, scroll);
  // As a reattach finds a quiet session: its history compacted.
  e.compactHistory();
  const colouredBytesPerLine = e.historyBytes / e.historyLength;
  const full = new Clock();
  const visible = new Clock();
  let fullSnap = '';
  let visibleSnap = '';
  for (let i = 0; i <= repeats; i++) {
    full.start();
    fullSnap = e.snapshot();
    full.stop(i > 0);
    visible.start();
    visibleSnap = e.snapshot(0);
    visible.stop(i > 0);
  }
  e.dispose();

  // Restoring a hibernated session: a fresh emulator parses the snapshot.
  const restores = new Clock();
  const snapBytes = Buffer.from(fullSnap, 'utf8');
  for (let i = 0; i <= repeats; i++) {
    const r = new Emulator({ cols: 200, rows: 50, scrollback: 10_000 });
    restores.start();
    await feed(r, snapBytes, 65536);
    restores.stop(i > 0);
    r.dispose();
  }

  // Live emulators vs their snapshots, 10 sessions at 120x40 with the same content.
  const sessions = 10;
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage();
  const live: Emulator[] = [];
  for (let i = 0; i < sessions; i++) {
    const s = new Emulator({ cols: 120, rows: 40, scrollback: 10_000 });
    await feed(s, scroll);
    s.compactHistory();
    live.push(s);
  }
  gc?.();
  const after = process.memoryUsage();
  const liveKb = (after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers) / 1024 / sessions;
  const hibernated = live.map((s) => Buffer.from(s.snapshot(), 'utf8'));
  const hibernatedKb = hibernated.reduce((n, b) => n + b.length, 0) / 1024 / sessions;
  for (const s of live) s.dispose();

  return {
    skipping: { ...skipClock.result(), skippedBytes },
    parse: {
      bytes: flood.length,
      ...parse,
      mbPerS: flood.length / 1e6 / (parse.ms / 1000),
      cpuMbPerS: flood.length / 1e6 / (parse.cpuMs / 1000),
    },
    snapshot: {
      full: full.result(),
      fullBytes: Buffer.byteLength(fullSnap),
      visible: visible.result(),
      visibleBytes: Buffer.byteLength(visibleSnap),
    },
    restore: restores.result(),
    memory: { liveKbPerSession: liveKb, hibernatedKbPerSession: hibernatedKb, sessions },
    historyBytesPerLine: { plain: plainBytesPerLine, coloured: colouredBytesPerLine },
  };
}
