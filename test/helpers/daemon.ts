// Test helpers: a real daemon (dist/daemon.js, detached as in production) on a private socket.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HoldfastClient } from '../../src/client/client';
import type { SessionInfo } from '../../src/protocol/messages';
import { startDaemon } from '../../src/client/launch';

export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const DAEMON_SCRIPT = path.join(ROOT, 'dist', 'daemon.js');
export const CLI_SCRIPT = path.join(ROOT, 'dist', 'cli.js');

export interface TestDaemon {
  dir: string;
  socket: string;
  env: NodeJS.ProcessEnv;
  pid: number;
  connect(name?: string): Promise<HoldfastClient>;
  stop(): Promise<void>;
}

export function tempDir(prefix = 'hf-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** An environment isolated from the user's own daemon, state and config. */
export function isolatedEnv(dir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    XDG_RUNTIME_DIR: path.join(dir, 'run'),
    XDG_STATE_HOME: path.join(dir, 'state'),
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    HOLDFAST_SOCKET: path.join(dir, 'run', 'holdfast', 'holdfast.sock'),
  };
}

/** A daemon on a private socket; `extraEnv` on top of its isolated env (e.g. HOME, for its agents' folders). */
export async function startTestDaemon(
  args: string[] = [],
  mode: '--persistent' | '--on-demand' = '--persistent',
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<TestDaemon> {
  const dir = tempDir();
  const env = { ...isolatedEnv(dir), ...extraEnv };
  const socket = env.HOLDFAST_SOCKET!;
  const ready = await startDaemon({ socket, daemonScript: DAEMON_SCRIPT, env, args: [mode, ...args] });
  if (!('pid' in ready)) throw new Error('daemon did not start');
  const clients: HoldfastClient[] = [];
  const daemon: TestDaemon = {
    dir,
    socket,
    env,
    pid: ready.pid,
    async connect(name = 'test') {
      const client = await HoldfastClient.connect({ socket, client: name, version: 'test' });
      clients.push(client);
      return client;
    },
    async stop() {
      for (const c of clients) c.close();
      try {
        process.kill(ready.pid, 'SIGTERM');
        await waitFor(() => !isAlive(ready.pid), 10_000, 'daemon to exit');
      } catch (error) {
        // Gone already: it handed its sessions over and retired, or the test stopped it.
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
      // A daemon that handed its sessions over (a handoff, or a crash) left a successor on this socket.
      const successors = successorsOn(socket);
      for (const pid of successors) process.kill(pid, 'SIGTERM');
      await waitFor(() => !successors.some(isAlive), 10_000, 'successor daemons to exit');
    },
  };
  return daemon;
}

/** Successor daemons serving `socket`: started from a daemon's own command line, plus --successor. */
function successorsOn(socket: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const at = argv.indexOf('--socket');
      if (argv.includes('--successor') && at >= 0 && argv[at + 1] === socket && isAlive(Number(entry)))
        pids.push(Number(entry));
    } catch {
      // The process ended while read: not one of them.
    }
  }
  return pids;
}

/** Starts a persistent daemon on `env`'s socket and returns its pid; throws unless it started (not adopted). */
export async function startPersistentDaemon(env: NodeJS.ProcessEnv): Promise<number> {
  const ready = await startDaemon({
    socket: env.HOLDFAST_SOCKET!,
    daemonScript: DAEMON_SCRIPT,
    env,
    args: ['--persistent'],
  });
  if (!('ready' in ready)) throw new Error(`daemon did not start: ${JSON.stringify(ready)}`);
  return ready.pid;
}

/** SIGTERMs the daemon `pid` (unless it is gone already) and waits until it has exited. */
export async function stopDaemonPid(pid: number): Promise<void> {
  if (!isAlive(pid)) return;
  process.kill(pid, 'SIGTERM');
  await waitFor(() => !isAlive(pid), 10_000, 'the daemon to stop');
}

/** The daemon's `wait` for `pattern` on the session's screen (its result: `met` is false on a timeout). */
export function waitForText(
  client: HoldfastClient,
  session: string,
  pattern: string,
  timeoutMs?: number,
): Promise<{ met: boolean; session: SessionInfo }> {
  return client.request('wait', { session, condition: { kind: 'text', pattern }, timeoutMs });
}

export function isAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
