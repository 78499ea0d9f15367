// Starting a daemon on demand: spawn it detached, wait for its readiness line, then connect.
// Every daemon (on demand, the extension's, `holdfast serve`) runs with the same command line (daemonArgs).
import { spawn } from 'node:child_process';
import { type ConnectOptions, HoldfastClient, NoDaemonError } from './client';
import type { StartMode } from '../protocol/messages';

export interface LaunchOptions {
  socket: string;
  /** Path of the bundled daemon script (dist/daemon.js). */
  daemonScript: string;
  /** The Node to run it with; inside VS Code this is Electron, run as Node. */
  execPath?: string;
  /** Environment for the daemon; ELECTRON_RUN_AS_NODE is added. */
  env?: NodeJS.ProcessEnv;
  /** Extra daemon arguments (e.g. --scrollback). */
  args?: string[];
  /** A command prefix the daemon runs under, e.g. `systemd-run --user --scope` (it must exec, keeping fd 3). */
  wrapper?: string[];
  timeoutMs?: number;
}

/** What the daemon writes to its readiness pipe (fd 3), one JSON line. */
export type ReadyMessage = { ready: true; pid: number } | { adopt: true; pid: number } | { error: string };

export const READY_FD = 3;

/** Spawner-side variables that must not reach the daemon (and through it, its sessions). */
const SCRUBBED_ENV = new RegExp(
  '^(VSCODE_|ELECTRON_|NODE_OPTIONS$|NODE_CHANNEL_FD$|NODE_UNIQUE_ID$|' +
    'HOLDFAST_SESSION$|HOLDFAST_NOTIFY_TOKEN$|HOLDFAST_TOKEN$)',
);

export function daemonEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) if (!SCRUBBED_ENV.test(key)) env[key] = value;
  env.ELECTRON_RUN_AS_NODE = '1';
  return env;
}

/**
 * V8's memory reducer runs GCs on a timer after an allocation spell: an idle daemon woke up about
 * 5 times a second for it, on every helper thread. It must be off from the start (set at run time
 * it does not take effect); Node and VS Code's Electron-as-Node both pass V8 flags on to V8.
 * Without it nothing collects while idle, so the daemon collects once itself when sessions go
 * quiet (idleCollector.ts, on each thread), which needs `gc` exposed.
 */
export const DAEMON_NODE_FLAGS = ['--no-memory-reducer', '--expose-gc'];

/** Node's arguments for a daemon that reports readiness on READY_FD. */
export function daemonArgs(daemonScript: string, startMode: StartMode, socket: string, extra: string[] = []): string[] {
  return [
    ...DAEMON_NODE_FLAGS,
    daemonScript,
    'run',
    startMode === 'persistent' ? '--persistent' : '--on-demand',
    '--socket',
    socket,
    '--ready-fd',
    String(READY_FD),
    ...extra,
  ];
}

/** Calls `onMessage` once, with the first line the daemon writes on its readiness pipe (or why it is unreadable). */
export function onReadiness(pipe: NodeJS.ReadableStream, onMessage: (message: ReadyMessage | Error) => void): void {
  let readiness = '';
  const onData = (chunk: Buffer) => {
    readiness += chunk.toString('utf8');
    const newline = readiness.indexOf('\n');
    if (newline < 0) return;
    pipe.off('data', onData);
    let message: ReadyMessage | Error;
    try {
      message = JSON.parse(readiness.slice(0, newline)) as ReadyMessage;
    } catch {
      message = new Error(`the daemon sent an unreadable readiness line: ${readiness.slice(0, 200)}`);
    }
    onMessage(message);
  };
  pipe.on('data', onData);
}

/**
 * Starts an on-demand daemon and resolves once it serves the socket (or another starter's
 * daemon won the race and serves it). Startup errors come back as the rejection.
 */
export function startDaemon(options: LaunchOptions): Promise<ReadyMessage> {
  return new Promise((resolve, reject) => {
    const command = [
      options.execPath ?? process.execPath,
      ...daemonArgs(options.daemonScript, 'on-demand', options.socket, options.args),
    ];
    const [file, ...args] = [...(options.wrapper ?? []), ...command];
    const child = spawn(file, args, {
      detached: true, // setsid: its own session, no controlling terminal
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
      env: daemonEnv(options.env ?? process.env),
      cwd: '/',
    });
    let stderr = '';
    let settled = false;
    const timer = setTimeout(
      () => finish(new Error(`the daemon did not report ready within ${options.timeoutMs ?? 10000} ms`)),
      options.timeoutMs ?? 10000,
    );
    const finish = (result: ReadyMessage | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.stdio[2]?.destroy();
      child.stdio[3]?.destroy();
      child.unref();
      if (result instanceof Error) reject(result);
      else if ('error' in result) reject(new Error(result.error));
      else resolve(result);
    };
    child.on('error', (err) => finish(new Error(`cannot start the daemon: ${err.message}`)));
    child.stdio[2]!.on('data', (chunk: Buffer) => {
      if (stderr.length < 8192) stderr += chunk.toString('utf8');
    });
    onReadiness(child.stdio[3] as NodeJS.ReadableStream, finish);
    // 'close', not 'exit': only once its pipes are drained has everything it wrote been read. A
    // starter that lost the race writes "adopt" and exits at once, and under load 'exit' came first.
    child.on('close', (code, signal) => {
      const stderrTail = stderr.trim() ? `: ${stderr.trim().split('\n').slice(-3).join(' | ')}` : '';
      finish(new Error(`the daemon exited during startup (${signal ?? `code ${code}`})${stderrTail}`));
    });
  });
}

/** Connects, starting an on-demand daemon first when none is listening. */
export async function connectOrStart(
  connect: ConnectOptions,
  launch: Omit<LaunchOptions, 'socket'>,
): Promise<HoldfastClient> {
  try {
    return await HoldfastClient.connect(connect);
  } catch (err) {
    if (!(err instanceof NoDaemonError)) throw err;
  }
  await startDaemon({ ...launch, socket: connect.socket });
  return HoldfastClient.connect(connect);
}
