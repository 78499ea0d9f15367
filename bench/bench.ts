// `npm run bench [-- --quick] [-- --json]`: Holdfast side by side with tmux and the kernel PTY.
// Prints one table: each row Holdfast's figure, the peers' figures from the same run, the ratio and
// the target. Medians of several runs after a warm-up. Never fails on speed: exit 0 unless it
// could not run at all.
//
// Other options:
//   --only flood,echo,reattach,memory,idle,watchers,parts,shell,hosts   run some rows only
//   --runs N                                           runs per measurement (after the warm-up)
//   --profile DIR                                      run the daemons under node --cpu-prof into DIR
//                                                      and summarize the profiles at the end
//   --summarize FILE.cpuprofile...                     only summarize existing profiles
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { daemonScript, startBenchDaemon } from './holdfast';
import { formatProfile, profileSpan, type ProfileSummary, summarizeProfile } from './profile';
import {
  type Context,
  ECHO_WARM_UP,
  TYPING_GAP_MS,
  echoHoldfast,
  echoNodePty,
  echoTmux,
  floodHoldfast,
  type FloodRun,
  floodKernel,
  type Latency,
  floodTmux,
  makeFiles,
  memoryAndIdle,
  type MemoryResult,
  reattachHoldfast,
  touchSessions,
  reattachTmux,
  type Reattach,
  scrollSessions,
  tmuxScrollSessions,
} from './rows';
import { micro } from './micro';
import { FLOOD_KINDS, type FloodKind } from './shellFlood';
import { shellRows } from './shellRows';
import { hasTmux, TmuxServer } from './tmux';
import { hostsRows, hostsTable } from './hosts';
import { SSHD } from '../test/helpers/sshd';
import { log, machine, median, now, onCleanup, phase, phases, run, runCleanups, tempDir } from './util';

const ROWS = ['flood', 'echo', 'reattach', 'memory', 'idle', 'watchers', 'parts', 'shell', 'hosts'] as const;
type RowName = (typeof ROWS)[number];

/** A row of the printed table (and of the saved JSON). */
export interface TableRow {
  row: string;
  metric: string;
  holdfast: string;
  tmux: string;
  other: string;
  ratio: string;
  target: string;
  met: boolean | null;
}

function ms(v: number | undefined): string {
  if (v === undefined || Number.isNaN(v)) return '–';
  if (v < 10) return `${v.toFixed(2)} ms`;
  if (v < 100) return `${v.toFixed(1)} ms`;
  return `${Math.round(v)} ms`;
}

function mb(kb: number | undefined): string {
  if (kb === undefined || Number.isNaN(kb)) return '–';
  const v = kb / 1024;
  return v < 10 ? `${v.toFixed(2)} MB` : `${v.toFixed(1)} MB`;
}

function x(a: number, b: number | undefined): string {
  if (b === undefined || !b || Number.isNaN(a) || Number.isNaN(b)) return '–';
  return `${(a / b).toFixed(2)}×`;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean' },
      quick: { type: 'boolean' },
      only: { type: 'string' },
      runs: { type: 'string' },
      profile: { type: 'string' },
      summarize: { type: 'string', multiple: true },
      table: { type: 'string' },
    },
    allowPositionals: true,
  });
  if (values.table) {
    // Re-print the table of a saved --json run.
    const saved = JSON.parse(fs.readFileSync(values.table, 'utf8')) as { machine: MachineInfo; table: TableRow[] };
    console.log(formatTable(saved.table));
    console.log(`\n${footer(saved.machine)}`);
    return 0;
  }
  if (values.summarize) {
    for (const file of values.summarize) console.log(formatProfile(summarizeProfile(file)) + '\n');
    return 0;
  }
  // `npm run bench --quick` (without `--`) reaches us as npm config in the environment.
  const quick = !!values.quick || process.env.npm_config_quick === 'true';
  const json = !!values.json || process.env.npm_config_json === 'true';
  const only = new Set<RowName>((values.only ? values.only.split(',') : ROWS).map((s) => s.trim() as RowName));
  for (const r of only) if (!ROWS.includes(r)) throw new Error(`unknown row "${r}" (rows: ${ROWS.join(', ')})`);
  const runs = values.runs ? Number(values.runs) : quick ? 2 : 5;
  const profileDir = values.profile ? path.resolve(values.profile) : undefined;
  if (profileDir) fs.mkdirSync(profileDir, { recursive: true });
  const launch = { nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [] };

  const started = now();
  daemonScript(); // pin this build of the daemon for the whole run
  const measured = await revision(); // what that build was made from (sources may change during the run)
  // Profiles are written when the daemons exit (at cleanup) and read before the pinned copy (and
  // its source map) is removed: this step runs after every later cleanup step.
  const profiles: ProfileSummary[] = [];
  onCleanup(() => {
    if (!profileDir) return;
    for (const f of fs.readdirSync(profileDir).filter((name) => name.endsWith('.cpuprofile'))) {
      const file = path.join(profileDir, f);
      profiles.push(summarizeProfile(file));
      // The same profile cut to each phase of the run that it covers (e.g. only the floods).
      const span = profileSpan(file);
      for (const name of new Set(phases.map((p) => p.name))) {
        const windows = phases.filter((p) => p.name === name && p.endUs >= span.startUs && p.startUs <= span.endUs);
        if (windows.length) profiles.push(summarizeProfile(file, 25, windows, name));
      }
    }
  });
  const tmuxAvailable = hasTmux();
  if (!tmuxAvailable) log('tmux is not installed: its columns stay empty (apt-get install tmux)');
  const tmuxVersion = tmuxAvailable ? (await run('tmux', ['-V'])).stdout.trim() : undefined;
  const dir = tempDir('hf-bench-files-');
  log('writing the flood and scrollback files');
  const loadAtStart = machine().load;
  const files = makeFiles(dir, quick ? 1_000_000 : 3_000_000);
  const daemon = await startBenchDaemon(launch);
  const client = await daemon.connect('bench');
  const ctx: Context = {
    quick,
    dir,
    ...files,
    daemon,
    client,
    launch,
    tmux: tmuxAvailable ? new TmuxServer(tempDir('hf-bench-tmux-')) : undefined,
  };
  // The tmux server starts with its first session; keep one so it lives between measurements.
  if (ctx.tmux) await ctx.tmux.newSession('keep', 80, 24, 'exec sleep 1000000');

  const table: TableRow[] = [];
  const raw: Record<string, unknown> = {};
  const floodMb = (files.floodBytes / 1e6).toFixed(1);

  // 1. flood ---------------------------------------------------------------------------------
  let floodZero: FloodRun[] = [];
  let kernelFloodMs: number | undefined;
  let tmuxPerSessionKb: number | undefined;
  if (only.has('flood')) {
    log(`flood: ${floodMb} MB, warm-up + ${runs} runs each (Holdfast, tmux, script)`);
    const hf: FloodRun[] = [];
    const tm: FloodRun[] = [];
    const kn: FloodRun[] = [];
    for (let i = 0; i <= runs; i++) {
      const a = await phase('flood', () => floodHoldfast(ctx));
      const b = ctx.tmux ? await floodTmux(ctx) : undefined;
      const c = await floodKernel(ctx);
      if (i === 0) continue; // warm-up
      hf.push(a);
      if (b) tm.push(b);
      kn.push(c);
      log(
        `  run ${i}: holdfast ${ms(a.ms)} (daemon CPU ${ms(a.daemonCpuMs)}, main thread ${ms(a.mainCpuMs)}, ` +
          `${a.bytes} bytes, ${a.resyncs} resyncs)` +
          `  tmux ${ms(b?.ms)} (server CPU ${ms(b?.daemonCpuMs)})  script ${ms(c.ms)}`,
      );
    }
    floodZero = hf;
    const h = median(hf.map((r) => r.ms));
    const t = tm.length ? median(tm.map((r) => r.ms)) : undefined;
    const k = median(kn.map((r) => r.ms));
    kernelFloodMs = k;
    raw.flood = {
      bytes: files.floodBytes,
      holdfast: hf,
      tmux: tm,
      kernel: kn,
      median: { holdfast: h, tmux: t, kernel: k },
    };
    table.push({
      row: '1 flood',
      metric: `cat ${floodMb} MB at 120x40 → attached client, parsed`,
      holdfast: ms(h),
      tmux: ms(t),
      other: `${ms(k)} (script)`,
      ratio: `${x(h, t)} tmux, ${x(h, k)} kernel`,
      target: '≤1.0× tmux, ≤1.3× kernel',
      met: t === undefined ? null : h <= t && h <= 1.3 * k,
    });
    // CPU time is steadier than wall time on a loaded machine: what each server spent per flood.
    const hCpu = median(hf.map((r) => r.daemonCpuMs ?? NaN));
    const tCpu = tm.length ? median(tm.map((r) => r.daemonCpuMs ?? NaN)) : undefined;
    table.push({
      row: '1 flood',
      metric: 'CPU time of the daemon / tmux server per flood',
      holdfast: ms(hCpu),
      tmux: ms(tCpu),
      other: '',
      ratio: `${x(hCpu, tCpu)} tmux`,
      target: '(evidence)',
      met: null,
    });
  }

  // 2. echo ----------------------------------------------------------------------------------
  if (only.has('echo')) {
    const count = 1000;
    // A p99 of 1,000 round trips is its 10th slowest: one round's tail moves with the machine, so
    // several rounds, the peers taking turns, and the median of each figure.
    const rounds = quick ? 3 : 5;
    log(`echo: ${rounds} rounds of ${count} round trips each (after ${ECHO_WARM_UP} warm-up), scrollback full`);
    const runs: Record<'hf' | 'np' | 'tm' | 'hfBusy' | 'tmBusy' | 'hfTyping' | 'tmTyping', Latency[]> = {
      hf: [],
      np: [],
      tm: [],
      hfBusy: [],
      tmBusy: [],
      hfTyping: [],
      tmTyping: [],
    };
    for (let round = 0; round < rounds; round++) {
      runs.hf.push(await echoHoldfast(ctx, count));
      runs.np.push(await echoNodePty(ctx, count));
      if (ctx.tmux) runs.tm.push(await echoTmux(ctx, count));
    }
    log(`echo: the same while another session floods (nobody attached to it)`);
    for (let round = 0; round < rounds; round++) {
      runs.hfBusy.push(await echoHoldfast(ctx, count, true));
      if (ctx.tmux) runs.tmBusy.push(await echoTmux(ctx, count, true));
    }
    // 500 keys 20 ms apart: 10 s a round and peer; a p99 of them is their 5th slowest.
    const typingCount = 500;
    log(`echo: ${typingCount} keys ${TYPING_GAP_MS} ms apart while another session floods`);
    for (let round = 0; round < rounds; round++) {
      runs.hfTyping.push(await echoHoldfast(ctx, typingCount, true, TYPING_GAP_MS));
      if (ctx.tmux) runs.tmTyping.push(await echoTmux(ctx, typingCount, true, TYPING_GAP_MS));
    }
    const typical = (latencies: Latency[]): Latency | undefined =>
      latencies.length
        ? {
            median: median(latencies.map((l) => l.median)),
            p99: median(latencies.map((l) => l.p99)),
            samples: latencies.reduce((sum, l) => sum + l.samples, 0),
          }
        : undefined;
    const [hf, np, hfBusy, hfTyping] = [runs.hf, runs.np, runs.hfBusy, runs.hfTyping].map((r) => typical(r)!);
    const [tm, tmBusy, tmTyping] = [typical(runs.tm), typical(runs.tmBusy), typical(runs.tmTyping)];
    raw.echo = runs;
    table.push({
      row: '2 echo',
      metric: 'keystroke echo, median (cat, raw, 10k scrollback)',
      holdfast: ms(hf.median),
      tmux: ms(tm?.median),
      other: `${ms(np.median)} (node-pty)`,
      ratio: `+${ms(hf.median - np.median)} over node-pty`,
      target: '< +1 ms',
      met: hf.median - np.median < 1,
    });
    table.push({
      row: '2 echo',
      metric: 'keystroke echo, p99',
      holdfast: ms(hf.p99),
      tmux: ms(tm?.p99),
      other: `${ms(np.p99)} (node-pty)`,
      ratio: `+${ms(hf.p99 - np.p99)} over node-pty`,
      target: '< 5 ms',
      met: hf.p99 < 5,
    });
    // Holdfast beside tmux, median / p99, the ratio of the p99s: evidence, no target.
    const latencyRow = (metric: string, holdfast: Latency, tmux: Latency | undefined) =>
      table.push({
        row: '2 echo',
        metric: `${metric}: median / p99 (medians of ${rounds} rounds)`,
        holdfast: `${ms(holdfast.median)} / ${ms(holdfast.p99)}`,
        tmux: tmux ? `${ms(tmux.median)} / ${ms(tmux.p99)}` : '–',
        other: '',
        ratio: tmux ? `${x(holdfast.p99, tmux.p99)} tmux (p99)` : '',
        target: '(evidence)',
        met: null,
      });
    latencyRow('keystroke echo while another session floods', hfBusy, tmBusy);
    latencyRow(`the same at typing pace, a key every ${TYPING_GAP_MS} ms`, hfTyping, tmTyping);
  }

  // 3. reattach ------------------------------------------------------------------------------
  if (only.has('reattach')) {
    const reRuns = quick ? 3 : 10;
    log(`reattach: one session (10k lines at 200x50), warm-up + ${reRuns} runs`);
    const [one] = await scrollSessions(ctx, 1);
    const tmOne = ctx.tmux ? await tmuxScrollSessions(ctx, 1) : [];
    // Cold: the session printed a line since the last attach, so no earlier snapshot can be
    // reused. Warm: attached again right after, nothing changed (a window reload of idle sessions).
    const hf: Reattach[] = [];
    const hfWarm: Reattach[] = [];
    const tm: Reattach[] = [];
    for (let i = 0; i <= reRuns; i++) {
      await touchSessions(ctx, [one]);
      const a = await phase('reattach one session', () => reattachHoldfast(ctx, [one]));
      const w = await phase('reattach one session, unchanged', () => reattachHoldfast(ctx, [one]));
      const b = ctx.tmux ? await reattachTmux(ctx, tmOne) : undefined;
      if (i === 0) continue;
      hf.push(a);
      hfWarm.push(w);
      if (b) tm.push(b);
    }
    const multiRuns = quick ? 1 : 3;
    log(`reattach: 20 sessions at once, ${multiRuns} runs`);
    const twenty = await scrollSessions(ctx, 20);
    const tmTwenty = ctx.tmux ? await tmuxScrollSessions(ctx, 20) : [];
    const hf20: Reattach[] = [];
    const hf20Warm: Reattach[] = [];
    const tm20: Reattach[] = [];
    for (let i = 1; i <= multiRuns; i++) {
      await touchSessions(ctx, twenty);
      const a = await phase('reattach 20 sessions', () => reattachHoldfast(ctx, twenty));
      const w = await phase('reattach 20 sessions, unchanged', () => reattachHoldfast(ctx, twenty));
      const b = ctx.tmux ? await reattachTmux(ctx, tmTwenty) : undefined;
      hf20.push(a);
      hf20Warm.push(w);
      if (b) tm20.push(b);
      log(`  run ${i}: holdfast ${ms(a.fullMs)} (unchanged: ${ms(w.fullMs)})  tmux ${ms(b?.visibleMs)}`);
    }
    for (const s of [one, ...twenty])
      await client
        .request('kill', { session: s.id, signal: 'SIGKILL', graceMs: 0, remove: true })
        .catch(() => undefined);
    for (const name of [...tmOne, ...tmTwenty]) await ctx.tmux?.killSession(name);
    const m = (rs: Reattach[], k: keyof Reattach) => (rs.length ? median(rs.map((r) => r[k])) : undefined);
    raw.reattach = {
      one: { holdfast: hf, holdfastUnchanged: hfWarm, tmux: tm },
      twenty: { holdfast: hf20, holdfastUnchanged: hf20Warm, tmux: tm20 },
    };
    const visible = m(hf, 'visibleMs')!;
    const full = m(hf, 'fullMs')!;
    const all20 = m(hf20, 'fullMs')!;
    table.push({
      row: '3 reattach',
      metric: '10k lines at 200x50: connect → visible screen',
      holdfast: ms(visible),
      tmux: ms(m(tm, 'visibleMs')),
      other: `${(m(hf, 'snapshotBytes')! / 1e6).toFixed(2)} MB snapshot`,
      ratio: `${x(visible, m(tm, 'visibleMs'))} tmux`,
      target: '< 50 ms',
      met: visible < 50,
    });
    table.push({
      row: '3 reattach',
      metric: '10k lines: connect → full scrollback (tmux: capture-pane)',
      holdfast: ms(full),
      tmux: ms(m(tm, 'fullMs')),
      other: '',
      ratio: `${x(full, m(tm, 'fullMs'))} tmux`,
      target: '< 250 ms',
      met: full < 250,
    });
    table.push({
      row: '3 reattach',
      metric: '20 sessions at once (one connection; tmux: 20 clients)',
      holdfast: ms(all20),
      tmux: ms(m(tm20, 'visibleMs')),
      other: '',
      ratio: `${x(all20, m(tm20, 'visibleMs'))} tmux`,
      target: '< 1000 ms',
      met: all20 < 1000,
    });
    table.push({
      row: '3 reattach',
      metric: 'again, nothing changed since the last attach: 1 / 20 sessions',
      holdfast: `${ms(m(hfWarm, 'fullMs'))} / ${ms(m(hf20Warm, 'fullMs'))}`,
      tmux: `${ms(m(tm, 'visibleMs'))} / ${ms(m(tm20, 'visibleMs'))}`,
      other: '',
      ratio: '',
      target: '(evidence)',
      met: null,
    });
  }

  // 6. watchers ------------------------------------------------------------------------------
  if (only.has('watchers')) {
    const wRuns = quick ? 1 : 3;
    log(`watchers: flood with 0, 1, 10, 50 watchers (one never reads), ${wRuns} runs each`);
    if (floodZero.length === 0) await floodHoldfast(ctx); // warm-up
    // 1 watcher: only the one that never reads, to tell its cost from that of the readers.
    const results: Record<number, FloodRun[]> = { 0: [], 1: [], 10: [], 50: [] };
    for (let i = 0; i < wRuns; i++) {
      for (const n of [0, 1, 10, 50]) {
        const r = await phase(`flood with ${n} watchers`, () => floodHoldfast(ctx, n));
        results[n].push(r);
        log(
          `  run ${i + 1}, ${n} watchers: ${ms(r.ms)} ` +
            `(daemon CPU ${ms(r.daemonCpuMs)}, main thread ${ms(r.mainCpuMs)})` +
            `${n ? `, the slow watcher got ${r.slowWatcherBytes} bytes` : ''}`,
        );
      }
    }
    raw.watchers = results;
    const zero = median(results[0].map((r) => r.ms));
    for (const n of [1, 10, 50]) {
      const v = median(results[n].map((r) => r.ms));
      table.push({
        row: '6 watchers',
        metric: n === 1 ? 'flood with 1 watcher that never reads' : `flood with ${n} watchers (one never reads)`,
        holdfast: ms(v),
        tmux: '',
        other: `${ms(zero)} (0 watchers)`,
        ratio: `${x(v, zero)} 0 watchers`,
        target: '≈ 1.0× (≤1.1×)',
        met: v <= 1.1 * zero,
      });
    }
  }

  // 9. shell integration: what VS Code's scripts and the daemon's marks cost (listed last) -------
  if (only.has('shell')) await shellTable(ctx, quick, table, raw);

  // 10. hosts over ssh on loopback: the sidebar's traffic, opening a tab, a flood, echo ------------
  if (only.has('hosts') && !fs.existsSync(SSHD))
    log(`hosts: no ${SSHD}, row 10 left out (apt-get install openssh-server)`);
  else if (only.has('hosts')) {
    const hosts = await hostsRows(ctx, runs, quick ? 5 : 10);
    raw.hosts = hosts;
    table.push(...hostsTable(hosts));
  }

  client.close();

  // 4 + 5. memory and idle (a fresh daemon and tmux server) -------------------------------
  if (only.has('memory') || only.has('idle')) {
    const counts = only.has('memory') ? (quick ? [1, 20] : [1, 20, 100]) : [20];
    const idleSeconds = quick ? 5 : 10;
    const mem: MemoryResult = await memoryAndIdle(ctx, counts, idleSeconds, 20, quick ? 3 : 5);
    raw.memory = mem;
    if (only.has('memory')) {
      memoryRows(table, mem, 'coloured 120-column lines');
      const last = mem.points[mem.points.length - 1];
      if (last.tmux && mem.baseline.tmux)
        tmuxPerSessionKb = (last.tmux.rssKb - mem.baseline.tmux.rssKb) / last.sessions;
      log('memory: short plain lines (seq)');
      const plain = await memoryAndIdle(ctx, quick ? [20] : [20, 100], idleSeconds, 0, quick ? 3 : 5, true);
      raw.memoryPlain = plain;
      memoryRows(table, plain, '`seq` lines');
    }
    if (only.has('idle')) {
      const { holdfastDetached: d, holdfastWatched: w, tmux: t } = mem.idle!;
      const per10 = (v: number, s: number) => (v * 10) / s;
      table.push({
        row: '5 idle',
        metric: '20 idle sessions: CPU time per 10 s (detached / 20 watchers)',
        holdfast: `${ms(per10(d.cpuMs, d.seconds))} / ${ms(per10(w.cpuMs, w.seconds))}`,
        tmux: t ? ms(per10(t.cpuMs, t.seconds)) : '–',
        other: '',
        ratio: '',
        target: '0',
        met: d.cpuMs === 0 && w.cpuMs === 0,
      });
      table.push({
        row: '5 idle',
        metric: '20 idle sessions: wakeups/s, all threads [main thread] (detached / 20 watchers)',
        holdfast:
          `${(d.wakeups / d.seconds).toFixed(1)} [${(d.mainWakeups / d.seconds).toFixed(1)}] / ` +
          `${(w.wakeups / w.seconds).toFixed(1)} [${(w.mainWakeups / w.seconds).toFixed(1)}]`,
        tmux: t ? (t.wakeups / t.seconds).toFixed(1) : '–',
        other: '',
        ratio: '',
        target: '0',
        met: d.wakeups === 0 && w.wakeups === 0,
      });
    }
  }

  // 7. the parts alone (in this process) ----------------------------------------------------
  if (only.has('parts')) {
    log('parts: emulator parse, snapshot, hibernate/restore, in-process');
    const p = await micro(files.floodFile, files.scrollFile, quick ? 1 : 3);
    raw.parts = p;
    table.push({
      row: '7 parts',
      metric: `emulator parse alone, ${floodMb} MB at 120x40, in-process, every byte parsed: wall [CPU]`,
      holdfast: `${ms(p.parse.ms)} [${ms(p.parse.cpuMs)}, ${p.parse.cpuMbPerS.toFixed(1)} MB/s of CPU]`,
      tmux: '',
      other: kernelFloodMs === undefined ? '' : `${ms(kernelFloodMs)} (script)`,
      ratio: kernelFloodMs === undefined ? '' : `${x(p.parse.ms, kernelFloodMs)} kernel`,
      target: '(evidence)',
      met: null,
    });
    table.push({
      row: '7 parts',
      metric: 'the same, written at once, plain text skipped where it scrolls out of all a session keeps: wall [CPU]',
      holdfast: `${ms(p.skipping.ms)} [${ms(p.skipping.cpuMs)}], ${mb(p.skipping.skippedBytes / 1024)} skipped`,
      tmux: '',
      other: '',
      ratio: '',
      target: '(evidence)',
      met: null,
    });
    table.push({
      row: '7 parts',
      metric: 'snapshot of 10k lines at 200x50: full / visible screen only, wall [CPU]',
      holdfast:
        `${ms(p.snapshot.full.ms)} [${ms(p.snapshot.full.cpuMs)}] / ` +
        `${ms(p.snapshot.visible.ms)} [${ms(p.snapshot.visible.cpuMs)}]`,
      tmux: '',
      other: `${(p.snapshot.fullBytes / 1e6).toFixed(2)} MB / ${(p.snapshot.visibleBytes / 1e3).toFixed(1)} kB`,
      ratio: '',
      target: '(evidence)',
      met: null,
    });
    table.push({
      row: '7 parts',
      metric: 'one session with 10k lines at 120x40: hibernated (its snapshot) / live (JS heap + buffers)',
      holdfast: `${mb(p.memory.hibernatedKbPerSession)} / ${mb(p.memory.liveKbPerSession)}`,
      tmux: tmuxPerSessionKb === undefined ? '' : mb(tmuxPerSessionKb),
      other: '',
      ratio:
        tmuxPerSessionKb === undefined ? '' : `${x(p.memory.hibernatedKbPerSession, tmuxPerSessionKb)} tmux hibernated`,
      target: '(evidence)',
      met: null,
    });
    table.push({
      row: '7 parts',
      metric: 'history store bytes per line: `seq` lines / coloured 110-column lines',
      holdfast: `${p.historyBytesPerLine.plain.toFixed(1)} / ${p.historyBytesPerLine.coloured.toFixed(1)}`,
      tmux: '',
      other: '',
      ratio: '',
      target: '(evidence)',
      met: null,
    });
    table.push({
      row: '7 parts',
      metric: 'restore a hibernated session (parse its snapshot, 200x50): wall [CPU]',
      holdfast: `${ms(p.restore.ms)} [${ms(p.restore.cpuMs)}]`,
      tmux: '',
      other: '',
      ratio: '',
      target: '(evidence)',
      met: null,
    });
  }

  const elapsed = (now() - started) / 1000;
  const info: MachineInfo = {
    ...machine(),
    loadAtStart,
    tmux: tmuxVersion,
    revision: measured,
    date: new Date().toISOString(),
    quick,
    runs,
    seconds: Math.round(elapsed),
  };
  await runCleanups();

  if (json) {
    console.log(JSON.stringify({ machine: info, table, raw, profiles }, null, 2));
  } else {
    console.log(formatTable(table));
    console.log(`\n${footer(info)}`);
    for (const p of profiles) console.log('\n' + formatProfile(p));
  }
  return 0;
}

/** RSS per idle session at each count, and PSS at the last. */
function memoryRows(table: TableRow[], mem: MemoryResult, content: string): void {
  for (const p of mem.points) {
    const hfPer = (p.holdfast.rssKb - mem.baseline.holdfast.rssKb) / p.sessions;
    const tmPer = p.tmux && mem.baseline.tmux ? (p.tmux.rssKb - mem.baseline.tmux.rssKb) / p.sessions : undefined;
    table.push({
      row: '4 memory',
      metric: `RSS per idle session, ${content}, ${p.sessions} session${p.sessions > 1 ? 's' : ''} (daemon total)`,
      holdfast: `${mb(hfPer)} (${mb(p.holdfast.rssKb)})`,
      tmux: p.tmux ? `${mb(tmPer)} (${mb(p.tmux.rssKb)})` : '–',
      other: '',
      ratio: `${x(hfPer, tmPer)} tmux`,
      target: '≤1.0× tmux',
      met: tmPer === undefined ? null : hfPer <= tmPer,
    });
  }
  const last = mem.points[mem.points.length - 1];
  const hfPss = (last.holdfast.pssKb - mem.baseline.holdfast.pssKb) / last.sessions;
  const tmPss =
    last.tmux && mem.baseline.tmux ? (last.tmux.pssKb - mem.baseline.tmux.pssKb) / last.sessions : undefined;
  table.push({
    row: '4 memory',
    metric: `PSS per idle session, ${content}, ${last.sessions} sessions (daemon total)`,
    holdfast: `${mb(hfPss)} (${mb(last.holdfast.pssKb)})`,
    tmux: last.tmux ? `${mb(tmPss)} (${mb(last.tmux.pssKb)})` : '–',
    other: '',
    ratio: `${x(hfPss, tmPss)} tmux`,
    target: '≤1.0× tmux',
    met: tmPss === undefined ? null : hfPss <= tmPss,
  });
}

type MachineInfo = ReturnType<typeof machine> & {
  loadAtStart: string;
  tmux?: string;
  revision: string;
  date: string;
  quick: boolean;
  runs: number;
  seconds: number;
};

function footer(info: MachineInfo): string {
  return (
    `${info.cpu}, ${info.cores} cores, ${info.memGb} GB, ${info.kernel}, node ${info.node}, ` +
    `${info.tmux ?? 'no tmux'}; holdfast ${info.revision}; ` +
    `load average ${info.loadAtStart} at start, ${info.load} at end; ` +
    `${info.quick ? 'quick' : 'full'} run, ${info.seconds} s, ${info.date}`
  );
}

/**
 * The commit measured, and which daemon sources differ from it (npm run bench builds the working
 * tree). Read when the daemon build is pinned; dist/daemon.js is assumed to be built from the
 * sources as they are then (npm run bench builds right before).
 */
async function revision(): Promise<string> {
  const root = path.resolve(__dirname, '..');
  try {
    const head = (await run('git', ['-C', root, 'rev-parse', '--short', 'HEAD'])).stdout.trim();
    const sources = ['src/daemon', 'src/protocol', 'src/base', 'src/text', 'src/host', 'src/agents'];
    const dirty = (await run('git', ['-C', root, 'status', '--porcelain', '--', ...sources])).stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => path.basename(line.slice(3)));
    return head ? `${head}${dirty.length ? ` + uncommitted changes to ${dirty.join(', ')}` : ''}` : 'unknown';
  } catch {
    return 'unknown';
  }
}

function formatTable(rows: TableRow[]): string {
  const header = ['#', 'benchmark', 'Holdfast', 'tmux', 'other peer', 'ratio', 'target', 'met'];
  const body = rows.map((r) => [
    r.row,
    r.metric,
    r.holdfast,
    r.tmux,
    r.other,
    r.ratio,
    r.target,
    r.met === null ? '–' : r.met ? 'yes' : 'NO',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

let exiting = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (exiting) return;
    exiting = true;
    log(`${signal}: cleaning up`);
    void runCleanups().then(() => process.exit(130));
  });
}

/** The `shell` rows: echo and a flood at a bash prompt with VS Code's shell integration and without; marks' memory. */
async function shellTable(
  ctx: Context,
  quick: boolean,
  table: TableRow[],
  raw: Record<string, unknown>,
): Promise<void> {
  const r = await shellRows(ctx, quick ? 2 : 5, quick ? 5 : 10);
  raw.shell = r;
  const { on, off, flood, memory } = r;
  const row = (metric: string, holdfast: string, other: string, ratio: string, target: string, met: boolean | null) =>
    table.push({ row: '9 shell', metric, holdfast, tmux: '', other, ratio, target, met });
  row(
    `keystroke echo at a bash prompt, integration on / off: median / p99 (medians of ${r.rounds} rounds)`,
    `${ms(on.median)} / ${ms(on.p99)}`,
    `${ms(off.median)} / ${ms(off.p99)} (off)`,
    `+${ms(on.median - off.median)} median`,
    '< +0.1 ms',
    on.median - off.median < 0.1,
  );
  const floods: Record<FloodKind, string> = {
    seq: 'seq (plain, partly skipped)',
    coloured: 'coloured lines',
    commands: 'commands, a line each (off: no marks)',
  };
  for (const kind of FLOOD_KINDS) {
    const { on: a, off: b, cpuRatio } = flood[kind];
    row(
      `cat ${a.mb.toFixed(1)} MB of ${floods[kind]} at a bash prompt, on / off: daemon CPU per MB [main thread]; wall`,
      `${a.cpuMsPerMb.toFixed(1)} ms [${a.mainMsPerMb.toFixed(1)}]; ${ms(a.ms)}`,
      `${b.cpuMsPerMb.toFixed(1)} ms [${b.mainMsPerMb.toFixed(1)}]; ${ms(b.ms)} (off)`,
      `${cpuRatio.toFixed(3)}× CPU (median of rounds), ${x(a.ms, b.ms)} wall`,
      // A flood of commands is evidence: its marks are bytes of its own, parsed and kept.
      kind === 'commands' ? '(evidence)' : '≤ 1.05× CPU',
      kind === 'commands' ? null : cpuRatio <= 1.05,
    );
  }
  row(
    `${memory.commands} commands in the scrollback: history store with marks / without; marks on rows`,
    `${mb(memory.storeBytesWithMarks / 1024)} / ${mb(memory.storeBytes / 1024)}; ${memory.liveMarks}`,
    '',
    `+${((memory.storeBytesWithMarks - memory.storeBytes) / memory.commands).toFixed(1)} B a command`,
    '(evidence)',
    null,
  );
  const h = memory.hostile;
  row(
    `hostile: ${h.lines} lines, each a whole command with a 4 KiB command line: store B/line; marks on rows`,
    `${h.storeBytesPerLine.toFixed(0)} (${h.plainStoreBytesPerLine.toFixed(0)} without marks); ${h.liveMarks}`,
    '',
    '',
    '≤ +4 KiB a line (2,048 chars); ≤ 2048',
    h.storeBytesPerLine - h.plainStoreBytesPerLine <= 4096 + 64 && h.liveMarks <= 2048,
  );
}

main().then(
  (code) => process.exit(code),
  async (err) => {
    log(`could not run: ${(err as Error).stack ?? err}`);
    await runCleanups();
    process.exit(1);
  },
);
