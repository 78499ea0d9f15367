// Row 10, hosts: what a window's hosts cost, each reached over a real sshd on loopback (test/helpers/sshd.ts's)
// through the extension's own client code (remoteHosts.ts, hostConnection.ts, src/link). Every host's daemon is a
// pinned bench daemon of its own, named by the host entry's `socket`; this machine's is the bench's. Counted: the
// frames through each ssh's stdin and stdout, and its TCP bytes (ssh's read and written bytes, /proc/PID/io, less
// the frames: what crosses the network, encrypted); the CPU time of this process (the window), of the ssh
// processes and of the hosts' daemons.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Attachment, HoldfastClient } from '../src/client/client';
import { RemoteHosts } from '../src/extension/remoteHosts';
import type { DaemonLink } from '../src/link/daemonLink';
import { type HostEntry, hostName } from '../src/link/hosts';
import { SshStream } from '../src/link/sshStream';
import { Capability, type SessionInfo } from '../src/protocol/messages';
import { REMOTE, startSshServer } from '../test/helpers/sshd';
import type { TableRow } from './bench';
import { type BenchDaemon, startBenchDaemon, waitIdle } from './holdfast';
import { type Context, scrollSessions, touchSessions } from './rows';
import { log, median, now, onCleanup, percentile, procCpu, sleep, waitUntil } from './util';

/** One ssh to a host, as the window's link makes it, with the frames it carried counted. */
class CountedSsh extends SshStream {
  framesIn = 0;
  framesOut = 0;
  constructor(host: HostEntry, env: NodeJS.ProcessEnv) {
    super(host, env);
    this.on('data', (chunk: Buffer) => (this.framesIn += chunk.length));
  }
  override _write(chunk: Buffer, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.framesOut += chunk.length;
    super._write(chunk, encoding, callback);
  }
  /** Bytes ssh read and wrote on its TCP socket: all its reads and writes less the frames of its pipes. */
  tcpBytes(): number {
    const io = fs.readFileSync(`/proc/${this.pid}/io`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)`, 'm').exec(io)?.[1] ?? 0);
    return field('rchar') + field('wchar') - this.framesIn - this.framesOut;
  }
}

function countedLink(host: HostEntry, env: NodeJS.ProcessEnv, streams: CountedSsh[]): DaemonLink {
  const name = hostName(host);
  return {
    name,
    host,
    connect: () =>
      HoldfastClient.connect({
        socket: `${name} (over ssh)`,
        client: 'extension',
        version: 'bench',
        timeoutMs: 30_000,
        transport: () => {
          const stream = new CountedSsh(host, env);
          streams.push(stream);
          return stream;
        },
      }),
    lossOf: () => undefined,
  };
}

interface Traffic {
  seconds: number;
  frames: number;
  tcp: number;
  windowCpuMs: number;
  sshCpuMs: number;
  remoteCpuMs: number;
}

/** Counts what `streams` carry and what the processes spend while `during` runs. */
async function traffic(streams: CountedSsh[], remotes: BenchDaemon[], during: () => Promise<void>): Promise<Traffic> {
  const frames = () => streams.reduce((sum, s) => sum + s.framesIn + s.framesOut, 0);
  const tcp = () => streams.reduce((sum, s) => sum + s.tcpBytes(), 0);
  const sshCpu = () => streams.reduce((sum, s) => sum + procCpu(s.pid!).cpuMs, 0);
  const remoteCpu = () => remotes.reduce((sum, d) => sum + procCpu(d.pid).cpuMs, 0);
  const before = { frames: frames(), tcp: tcp(), ssh: sshCpu(), remote: remoteCpu(), cpu: process.cpuUsage() };
  const started = now();
  await during();
  const cpu = process.cpuUsage(before.cpu);
  return {
    seconds: (now() - started) / 1000,
    frames: frames() - before.frames,
    tcp: tcp() - before.tcp,
    windowCpuMs: (cpu.user + cpu.system) / 1000,
    sshCpuMs: sshCpu() - before.ssh,
    remoteCpuMs: remoteCpu() - before.remote,
  };
}

export interface HostsResult {
  idle: { hidden: Traffic; visible: Traffic };
  open: { local: number[]; remote: number[]; localFull: number[]; remoteFull: number[]; cpu: number[][] };
  flood: { bytes: number; remote: Traffic; there: PreviewGot; local: PreviewGot; aloneSeconds: number };
  echo: { tab: EchoRounds; ssh: EchoRounds; local: EchoRounds; tabCpuUs: number; sshCpuUs: number };
}

/** What a preview of a flood was sent: screens (redraws, then the scrollback) and streamed output. */
interface PreviewGot {
  snapshots: number;
  /** Redraws after Enter, and the seconds from Enter to the last of them. */
  screensAfter: number;
  screensSeconds: number;
  snapshotBytes: number;
  outputBytes: number;
  /** From Enter to the flood's end parsed. */
  seconds: number;
}

const quiet = { info: () => undefined, warn: () => undefined };

export async function hostsRows(ctx: Context, runs: number, idleSeconds: number): Promise<HostsResult> {
  const sshd = await startSshServer({ cliScript: path.join(__dirname, 'cli.js') });
  onCleanup(() => sshd.stop());
  const env = { ...process.env, HOLDFAST_SSH: sshd.sshProgram };
  const daemons = [];
  for (let i = 0; i < 3; i++) daemons.push(await startBenchDaemon(ctx.launch));
  const clients = await Promise.all(daemons.map((d) => d.connect('bench')));
  log('hosts: 3 hosts over sshd on loopback, 20 idle sessions each');
  for (const client of clients)
    for (let i = 0; i < 20; i++)
      await client.request('create', { name: `idle-${i}`, argv: ['sh', '-c', 'echo ready; exec cat'], cwd: ctx.dir });
  const streams: CountedSsh[] = [];
  const hosts = new RemoteHosts({ link: (entry) => countedLink(entry, env, streams), log: quiet });
  onCleanup(() => hosts.dispose());
  hosts.update(daemons.map((d, i) => ({ target: REMOTE, name: `host${i + 1}`, socket: d.socket })));
  await waitUntil(() => hosts.all.every((h) => h.sessions.all.length === 20), 60_000, 'the hosts to list 60 sessions');
  await sleep(2000);
  const hidden = await traffic(streams, daemons, () => sleep(idleSeconds * 1000));
  log(`  no preview visible: ${hidden.frames} B of frames, ${hidden.tcp} B of TCP in ${hidden.seconds.toFixed(1)} s`);
  const previews: Attachment[] = [];
  for (const host of hosts.all) {
    for (const s of host.sessions.all) {
      let shown!: () => void;
      const snapshot = new Promise<void>((resolve) => (shown = resolve));
      const client = host.connection.client!;
      previews.push(await client.attach({ session: s.id, role: 'watcher' }, { onSnapshot: shown, onOutput: () => 0 }));
      await snapshot;
    }
  }
  await sleep(2000);
  const visible = await traffic(streams, daemons, () => sleep(idleSeconds * 1000));
  log(
    `  60 previews visible: ${visible.frames} B of frames, ${visible.tcp} B of TCP in ${visible.seconds.toFixed(1)} s`,
  );
  for (const p of previews) p.dispose();

  const host1 = hosts.get('host1')!.connection.client!;
  const open = await openRows(ctx, { ...ctx, client: clients[0] }, host1, runs);
  const flood = await floodRow(ctx, clients[0], host1, streams, daemons);
  const echo = await echoRows(ctx, host1, sshd.sshProgram, runs);
  return { idle: { hidden, visible }, open, flood, echo };
}

/** Attach as a tab does (the screen first) to a session of 10k lines: ms to the screen, to the scrollback. */
async function openTab(client: HoldfastClient, session: SessionInfo): Promise<[number, number]> {
  const times: number[] = [];
  const started = now();
  let done!: () => void;
  const full = new Promise<void>((resolve) => (done = resolve));
  const attachment = await client.attach(
    { session: session.id, role: 'owner', cols: session.cols, rows: session.rows, screenFirst: true },
    {
      onSnapshot: () => {
        times.push(now() - started);
        if (times.length === 2) done();
      },
      onOutput: () => undefined,
    },
  );
  await full;
  await attachment.detach();
  return [times[0], times[1]];
}

async function openRows(ctx: Context, remoteCtx: Context, remote: HoldfastClient, runs: number) {
  log(`hosts: a tab of 10k lines opened here and on a host, warm-up + ${runs} runs`);
  const [here] = await scrollSessions(ctx, 1);
  const [there] = await scrollSessions(remoteCtx, 1);
  const result = {
    local: [] as number[],
    remote: [] as number[],
    localFull: [] as number[],
    remoteFull: [] as number[],
  };
  const cpu: number[][] = [];
  for (let i = 0; i <= runs; i++) {
    await touchSessions(ctx, [here]);
    await touchSessions(remoteCtx, [there]);
    const c0 = process.cpuUsage();
    const [a, aFull] = await openTab(ctx.client, here);
    const localCpu = cpuUs(process.cpuUsage(c0)) / 1000;
    const c1 = process.cpuUsage();
    const [b, bFull] = await openTab(remote, there);
    const remoteCpu = cpuUs(process.cpuUsage(c1)) / 1000;
    if (i === 0) continue;
    result.local.push(a);
    result.localFull.push(aFull);
    result.remote.push(b);
    result.remoteFull.push(bFull);
    cpu.push([localCpu, remoteCpu]);
    log(`  run ${i}: screen here ${a.toFixed(1)} ms, on the host ${b.toFixed(1)} ms`);
  }
  return { ...result, cpu };
}

/** A flood on a host with a preview (a watcher) attached over ssh; the same here for the peer. */
async function floodRow(
  ctx: Context,
  remoteClient: HoldfastClient,
  remote: HoldfastClient,
  streams: CountedSsh[],
  daemons: BenchDaemon[],
) {
  const argv = ['sh', '-c', `read x; cat ${ctx.floodFile}; printf '%s_%s\\n' HF END; exec cat`];
  const watched = async (owner: HoldfastClient, viewer: HoldfastClient | undefined, view?: 'screens') => {
    const { session } = await owner.request('create', { name: 'flood', argv, cwd: ctx.dir, cols: 120, rows: 40 });
    const got = { snapshots: 0, snapshotBytes: 0, outputBytes: 0, screensAfter: 0, screensSeconds: 0 };
    let started = Infinity;
    const preview = await viewer?.attach(
      { session: session.id, role: 'watcher', view },
      {
        onSnapshot: (b, why) => {
          got.snapshots++;
          got.snapshotBytes += b.length;
          if (why !== 'resync' || now() < started) return; // the attach's screen
          got.screensAfter++;
          got.screensSeconds = (now() - started) / 1000;
        },
        onOutput: (b) => (got.outputBytes += b.length),
      },
    );
    started = now();
    await owner.request('send', { session: session.id, data: '\r' });
    const { met } = await owner.request('wait', {
      session: session.id,
      condition: { kind: 'text', pattern: 'HF_END' },
      timeoutMs: 300_000,
    });
    if (!met) throw new Error('the flood did not end');
    const seconds = (now() - started) / 1000;
    await waitIdle(owner, session.id, 500);
    preview?.dispose();
    return { ...got, seconds };
  };
  log(`hosts: a ${(ctx.floodBytes / 1e6).toFixed(1)} MB flood on a host, its preview shown here`);
  const local = await watched(ctx.client, ctx.client);
  const alone = await watched(remoteClient, undefined);
  let there: PreviewGot | undefined;
  // As a window's preview of a host's session: screens only (previewHost.ts), where the host's daemon can.
  const view = remote.supports(Capability.Screens) ? 'screens' : undefined;
  const remoteTraffic = await traffic(
    streams,
    daemons,
    async () => void (there = await watched(remoteClient, remote, view)),
  );
  log(
    `  over ssh: ${remoteTraffic.tcp} B of TCP in ${remoteTraffic.seconds.toFixed(1)} s; the flood took ` +
      `${there!.seconds.toFixed(1)} s there (${alone.seconds.toFixed(1)} s with no preview), ` +
      `${local.seconds.toFixed(1)} s here; the preview got ` +
      `${there!.snapshots} screens (${there!.snapshotBytes} B) and ${there!.outputBytes} B of output`,
  );
  return { bytes: ctx.floodBytes, remote: remoteTraffic, there: there!, local, aloneSeconds: alone.seconds };
}

/** Round trips of one byte through `write`, each awaited on `echoed`. */
async function echoes(write: (b: string) => void, echoed: (f: () => void) => void, count: number): Promise<number[]> {
  const times: number[] = [];
  let waiting: (() => void) | undefined;
  echoed(() => waiting?.());
  for (let i = 0; i < count; i++) {
    const started = now();
    await new Promise<void>((resolve) => {
      waiting = resolve;
      write('x');
    });
    times.push(now() - started);
  }
  return times;
}

async function echoSessionOn(client: HoldfastClient): Promise<Attachment & { onByte(f: () => void): void }> {
  const argv = ['sh', '-c', "stty raw -echo; echo 'READY''-TO-ECHO'; exec cat"];
  const { session } = await client.request('create', { name: 'echo', argv, cols: 80, rows: 24 });
  await client.request('wait', { session: session.id, condition: { kind: 'text', pattern: 'READY-TO-ECHO' } });
  let listener: (() => void) | undefined;
  const attachment = await client.attach(
    { session: session.id, role: 'owner', cols: 80, rows: 24 },
    { onSnapshot: () => undefined, onOutput: (bytes) => bytes.includes(0x78) && listener?.() },
  );
  return Object.assign(attachment, { onByte: (f: () => void) => (listener = f) });
}

/** Per round: the median and p99 of each path's round trips. */
export interface EchoRounds {
  median: number[];
  p99: number[];
}

async function echoRows(ctx: Context, remote: HoldfastClient, ssh: string, runs: number) {
  const count = 300;
  log(`hosts: echo, ${runs} rounds of ${count} after ${count} warm-up: a host's tab, plain ssh, a tab here`);
  const tab = await echoSessionOn(remote);
  const here = await echoSessionOn(ctx.client);
  const plain = spawn(ssh, ['-tt', REMOTE, 'stty raw -echo; echo READY; exec cat'], { stdio: 'pipe' });
  onCleanup(() => void plain.kill('SIGKILL'));
  let plainListener: (() => void) | undefined;
  let ready = false;
  plain.stdout.on('data', (b: Buffer) =>
    ready ? b.includes(0x78) && plainListener?.() : (ready = b.includes('READY')),
  );
  await waitUntil(() => ready, 30_000, 'plain ssh to echo');
  const viaTab = () =>
    echoes(
      (b) => tab.write(b),
      (f) => tab.onByte(f),
      count,
    );
  const viaSsh = () =>
    echoes(
      (b) => plain.stdin.write(b),
      (f) => (plainListener = f),
      count,
    );
  const viaHere = () =>
    echoes(
      (b) => here.write(b),
      (f) => here.onByte(f),
      count,
    );
  await viaTab();
  await viaSsh();
  await viaHere();
  const rounds = (): EchoRounds => ({ median: [], p99: [] });
  const result = { tab: rounds(), ssh: rounds(), local: rounds() };
  const tabCpu: number[] = [];
  const sshCpu: number[] = [];
  for (let round = 0; round < runs; round++) {
    let c = process.cpuUsage();
    const t = await viaTab();
    tabCpu.push(cpuUs(process.cpuUsage(c)) / count);
    c = process.cpuUsage();
    const s = await viaSsh();
    sshCpu.push(cpuUs(process.cpuUsage(c)) / count);
    const l = await viaHere();
    for (const [into, times] of [
      [result.tab, t],
      [result.ssh, s],
      [result.local, l],
    ] as const) {
      into.median.push(median(times));
      into.p99.push(percentile(times, 99));
    }
    log(
      `  round ${round + 1}: median tab ${median(t).toFixed(2)} ms, ssh ${median(s).toFixed(2)} ms, ` +
        `here ${median(l).toFixed(2)} ms`,
    );
  }
  plain.kill('SIGKILL');
  tab.dispose();
  here.dispose();
  return { ...result, tabCpuUs: median(tabCpu), sshCpuUs: median(sshCpu) };
}

function cpuUs(u: NodeJS.CpuUsage): number {
  return u.user + u.system;
}

/** The table's rows for `r` (bench.ts's TableRow). */
export function hostsTable(r: HostsResult): TableRow[] {
  const kbs = (bytes: number, seconds: number) => `${(bytes / 1024 / seconds).toFixed(2)} KB/s`;
  const f = (v: number) => (v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : Math.round(v).toString());
  const { hidden, visible } = r.idle;
  const idleCpu = (t: Traffic) =>
    `window ${f(t.windowCpuMs)} / ssh ${f(t.sshCpuMs)} / hosts' daemons ${f(t.remoteCpuMs)} ms CPU ` +
    `in ${t.seconds.toFixed(0)} s`;
  const open = median(r.open.remote) - median(r.open.local);
  const openCpu = (which: 0 | 1) => median(r.open.cpu.map((c) => c[which]));
  const fl = r.flood.remote;
  const th = r.flood.there;
  const screenBytes = th.snapshotBytes / Math.max(1, th.snapshots);
  const lo = r.flood.local;
  const tab = median(r.echo.tab.median);
  const rounds = r.echo.tab.median.length;
  const ssh = median(r.echo.ssh.median);
  const row = '10 hosts';
  return [
    {
      row,
      metric: '3 hosts × 20 idle sessions, no preview visible: SSH bytes/s on TCP (frames)',
      holdfast: `${kbs(hidden.tcp, hidden.seconds)} (${kbs(hidden.frames, hidden.seconds)})`,
      tmux: '',
      other: idleCpu(hidden),
      ratio: '',
      target: '0',
      met: hidden.frames === 0,
    },
    {
      row,
      metric: '3 hosts × 20 idle sessions, 60 previews visible: SSH bytes/s on TCP (frames)',
      holdfast: `${kbs(visible.tcp, visible.seconds)} (${kbs(visible.frames, visible.seconds)})`,
      tmux: '',
      other: idleCpu(visible),
      ratio: '',
      target: '< 5 KB/s',
      met: visible.tcp / 1024 / visible.seconds < 5,
    },
    {
      row,
      metric: 'a tab of 10k lines at 200x50: attach → screen, on a host / here (scrollback after)',
      holdfast: `${f(median(r.open.remote))} ms (${f(median(r.open.remoteFull))} ms)`,
      tmux: '',
      other: `${f(median(r.open.local))} ms (${f(median(r.open.localFull))} ms) here`,
      ratio: `+${f(open)} ms; window CPU ${f(openCpu(1))} / ${f(openCpu(0))} ms`,
      target: '< +150 ms',
      met: open < 150,
    },
    {
      row,
      metric: `a ${(r.flood.bytes / 1e6).toFixed(1)} MB flood on a host, its preview shown: SSH bytes on TCP, per s`,
      holdfast: `${f(fl.tcp / 1e6)} MB in ${fl.seconds.toFixed(1)} s, ${kbs(fl.tcp, fl.seconds)}`,
      tmux: '',
      other:
        `${th.snapshots} screens (${f(th.snapshotBytes / 1e6)} MB) + ${f(th.outputBytes / 1e6)} MB streamed there; ` +
        `here ${lo.snapshots} (${f(lo.snapshotBytes / 1e6)} MB) + ${f(lo.outputBytes / 1e6)} MB`,
      ratio:
        `${((fl.tcp / r.flood.bytes) * 100).toFixed(1)}% of the flood (${kbs(r.flood.bytes, th.seconds)}); ` +
        `${th.screensAfter} screens in ${f(th.screensSeconds)} s × ${f(screenBytes / 1e3)} KB`,
      target: 'screens only, ≤ 4/s',
      // One a RedrawMs at most: the first 250 ms after a change, then each 250 ms after the one before.
      met: th.outputBytes === 0 && th.screensAfter <= 4 * th.screensSeconds,
    },
    {
      row,
      metric: `echo in a host's tab / plain \`ssh -tt host cat\`: median (p99), medians of ${rounds} rounds`,
      holdfast: `${f(tab)} ms (${f(median(r.echo.tab.p99))} ms)`,
      tmux: '',
      other: `${f(ssh)} ms (${f(median(r.echo.ssh.p99))} ms) ssh; ${f(median(r.echo.local.median))} ms here`,
      ratio: `+${f(tab - ssh)} ms; window CPU ${f(r.echo.tabCpuUs)} / ${f(r.echo.sshCpuUs)} µs a key`,
      target: '< +2 ms',
      met: tab - ssh < 2,
    },
  ];
}
