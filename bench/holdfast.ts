// A Holdfast daemon for the bench: isolated (temp XDG dirs, private socket, as in test/helpers),
// persistent, optionally under `node --cpu-prof`, stopped and cleaned up at the end.
import { spawn } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import { type Attachment, HoldfastClient } from '../src/client/client';
import { encodeJson, FrameDecoder, FrameKind } from '../src/protocol/frame';
import { DAEMON_NODE_FLAGS, daemonEnv } from '../src/client/launch';
import { PROTOCOL_VERSION, type SessionInfo } from '../src/protocol/messages';
import * as fs from 'node:fs';
import { tokenPathFor } from '../src/host/paths';
import { log, Marker, now, onCleanup, tempDir, waitUntil } from './util';
import { DAEMON_BUNDLES } from '../src/host/bundles';

export interface BenchDaemon {
  pid: number;
  socket: string;
  dir: string;
  connect(name?: string): Promise<HoldfastClient>;
  stop(): Promise<void>;
}

export interface DaemonLaunch {
  /** Extra node flags, e.g. --cpu-prof --cpu-prof-dir=DIR. */
  nodeArgs?: string[];
}

let pinnedScript: string | undefined;

/**
 * The daemon the bench runs: a copy of dist/daemon.js taken when the bench starts, so a rebuild
 * during a long run (npm test builds too) cannot mix two versions of the daemon in one table.
 */
export function daemonScript(): string {
  if (pinnedScript) return pinnedScript;
  const dir = tempDir('hf-bench-dist-');
  // With the worker threads' bundles beside it: the daemon starts them from its own folder.
  for (const file of DAEMON_BUNDLES.flatMap((f) => [f, `${f}.map`])) {
    if (fs.existsSync(path.join(__dirname, file))) fs.copyFileSync(path.join(__dirname, file), path.join(dir, file));
  }
  pinnedScript = path.join(dir, 'daemon.js');
  return pinnedScript;
}

/** node_modules for the pinned copy (node-pty is not bundled). */
function nodePath(): string {
  const own = path.resolve(__dirname, '..', 'node_modules');
  return [own, process.env.NODE_PATH].filter(Boolean).join(path.delimiter);
}

export async function startBenchDaemon(launch: DaemonLaunch = {}): Promise<BenchDaemon> {
  const dir = tempDir('hf-bench-');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    XDG_RUNTIME_DIR: path.join(dir, 'run'),
    XDG_STATE_HOME: path.join(dir, 'state'),
    XDG_CONFIG_HOME: path.join(dir, 'config'),
  };
  const socket = path.join(dir, 'run', 'holdfast', 'holdfast.sock');
  env.HOLDFAST_SOCKET = socket;
  env.NODE_PATH = nodePath();
  fs.mkdirSync(path.join(dir, 'run'), { mode: 0o700 });
  const args = [
    ...DAEMON_NODE_FLAGS,
    ...(launch.nodeArgs ?? []),
    daemonScript(),
    'run',
    '--persistent',
    '--socket',
    socket,
    '--ready-fd',
    '3',
    '--log',
    path.join(dir, 'daemon.log'),
  ];
  const child = spawn(process.execPath, args, {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    env: daemonEnv(env),
    cwd: '/',
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const pid = await new Promise<number>((resolve, reject) => {
    let line = '';
    const timer = setTimeout(() => reject(new Error(`the daemon did not get ready: ${stderr}`)), 15_000);
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (d: Buffer) => {
      line += d.toString('utf8');
      if (!line.includes('\n')) return;
      clearTimeout(timer);
      const ready = JSON.parse(line) as { ready?: boolean; pid?: number; error?: string };
      if (ready.ready && ready.pid) resolve(ready.pid);
      else reject(new Error(`the daemon did not start: ${line.trim()}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the daemon exited during startup (${signal ?? code}): ${stderr}`));
    });
  });
  const clients: HoldfastClient[] = [];
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    for (const c of clients) c.close();
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      return;
    }
    // Graceful: the daemon hangs up its sessions (2 s grace) and writes its CPU profile if asked.
    const exited = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 15_000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve(true);
      });
      if (child.exitCode !== null || child.signalCode !== null) {
        clearTimeout(timer);
        resolve(true);
      }
    });
    if (!exited) {
      log(`daemon ${pid} did not stop within 15 s: killing it`);
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // the process is already gone: nothing left to signal
      }
    }
  };
  onCleanup(stop);
  return {
    pid,
    socket,
    dir,
    async connect(name = 'bench') {
      const client = await HoldfastClient.connect({ socket, client: name, version: 'bench', timeoutMs: 30_000 });
      clients.push(client);
      return client;
    },
    stop,
  };
}

/** A session that the bench drives: an owner attachment that tracks markers in the output. */
export interface OwnedSession {
  info: SessionInfo;
  attachment: Attachment;
  /** Resolves when the output after the snapshot contains `text`. */
  expect(text: string): { done: Promise<number>; marker: Marker };
  /** Bytes of output received after the snapshot. */
  received(): number;
  resyncs(): number;
}

export async function attachOwner(
  client: HoldfastClient,
  session: SessionInfo,
  cols: number,
  rows: number,
): Promise<OwnedSession> {
  let snapshotResolve!: () => void;
  const snapshot = new Promise<void>((resolve) => (snapshotResolve = resolve));
  let listeners: ((chunk: Buffer) => void)[] = [];
  let received = 0;
  let resyncs = 0;
  const attachment = await client.attach(
    { session: session.id, role: 'owner', cols, rows },
    {
      onSnapshot: (_bytes, why) => {
        if (why === 'resync') resyncs++;
        snapshotResolve();
      },
      onOutput: (bytes) => {
        received += bytes.length;
        for (const l of listeners) l(bytes);
      },
    },
  );
  await snapshot;
  return {
    info: session,
    attachment,
    expect(text: string) {
      const marker = new Marker(text);
      const done = new Promise<number>((resolve) => {
        const listener = (chunk: Buffer) => {
          if (marker.push(chunk)) {
            listeners = listeners.filter((l) => l !== listener);
            resolve(now());
          }
        };
        listeners.push(listener);
      });
      return { done, marker };
    },
    received: () => received,
    resyncs: () => resyncs,
  };
}

/**
 * A watcher that speaks the wire itself and can be told never to read its socket: the slow
 * client the daemon must not wait for. A reading one discards what it gets (counting bytes only).
 */
export async function rawWatcher(
  socketPath: string,
  sessionId: string,
  reads: boolean,
): Promise<{ close(): void; bytes(): number }> {
  const socket = await new Promise<net.Socket>((resolve, reject) => {
    const s = net.createConnection(socketPath);
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
  const token = fs.readFileSync(tokenPathFor(socketPath), 'utf8').trim();
  let bytes = 0;
  socket.on('error', () => undefined);
  socket.write(
    encodeJson(FrameKind.Hello, {
      protocol: PROTOCOL_VERSION,
      client: 'bench-watcher',
      version: 'bench',
      token,
      capabilities: [],
    }),
  );
  socket.write(
    encodeJson(FrameKind.Request, {
      id: 1,
      method: 'attach',
      params: { session: sessionId, channel: 1, role: 'watcher' },
    }),
  );
  // Read until the snapshot has arrived (the watcher is live from then on), then maybe stop reading.
  await new Promise<void>((resolve, reject) => {
    const decoder = new FrameDecoder();
    const timer = setTimeout(() => reject(new Error('a watcher got no snapshot within 30 s')), 30_000);
    const onData = (d: Buffer) => {
      bytes += d.length;
      if (decoder.push(d).some((f) => f.kind === FrameKind.Snapshot || f.kind === FrameKind.Error)) {
        clearTimeout(timer);
        socket.off('data', onData);
        resolve();
      }
    };
    socket.on('data', onData);
  });
  if (reads) socket.on('data', (d: Buffer) => (bytes += d.length));
  else socket.pause();
  onCleanup(() => void socket.destroy());
  return { close: () => socket.destroy(), bytes: () => bytes };
}

export async function waitIdle(client: HoldfastClient, session: string, ms = 300, timeoutMs = 120_000): Promise<void> {
  const { met } = await client.request('wait', { session, condition: { kind: 'idle', ms }, timeoutMs });
  if (!met) throw new Error(`session ${session} did not go idle`);
}

export async function removeSession(client: HoldfastClient, session: string): Promise<void> {
  await client.request('kill', { session, signal: 'SIGKILL', graceMs: 0, remove: true }).catch(() => undefined);
}

export { waitUntil };
