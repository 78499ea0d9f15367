// Isolation: a private runtime dir (socket), state dir (checkpoints, logs) and the CLI, so the daemon
// a test's VS Code starts is that test's own; the daemon and session checks the tests make through it.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CODE_SERVER_NODE, REPO_ROOT } from './environment';
import { DaemonProbe, ProbeError } from './daemonProbe';
import { countCall } from './pollCount';
import { allProcs, kill, readEnviron } from './processes';
import { makeTempDir, safeName, waitFor } from './utilities';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The `holdfast` CLI built at dist/cli.js. */
export const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
/**
 * The Node the tests' CLI calls run on: code-server's, the one the daemon under test runs on, with Node's compile
 * cache: compiling the bundle was most of a call, 0.19 CPU-s on the system's Node 20, 0.10 so (docs/testing.md).
 * The waits ask through the probe instead (daemonProbe.ts); the CLI on the system's Node is the unit tests' part.
 */
const CLI_NODE = CODE_SERVER_NODE;

/**
 * One per test file: a temp XDG_RUNTIME_DIR / XDG_STATE_HOME / XDG_CONFIG_HOME and HOLDFAST_SOCKET, so
 * the daemon the extension starts is this test's own (and its config.json never the user's); with
 * `home`, a temp HOME too, for what the daemon and the extension read from the user's home (agents'
 * transcripts). `dispose()` stops that daemon.
 */
export class Isolation {
  readonly dir: string;
  readonly runtimeDir: string;
  readonly stateHome: string;
  readonly configHome: string;
  readonly socket: string;
  readonly workspace: string;
  /** The temp HOME (its real path), when asked for. */
  readonly home: string | undefined;
  /** The daemon as the waits ask it (list, show, read), over one connection kept open. */
  private readonly probe: DaemonProbe;

  constructor(
    readonly name: string,
    opts: { home?: boolean } = {},
  ) {
    this.dir = makeTempDir(safeName(name));
    this.runtimeDir = path.join(this.dir, 'run');
    this.stateHome = path.join(this.dir, 'state');
    this.configHome = path.join(this.dir, 'config');
    for (const dir of [this.runtimeDir, this.stateHome, this.configHome]) fs.mkdirSync(dir, { mode: 0o700 });
    if (opts.home) {
      this.home = path.join(fs.realpathSync(this.dir), 'home');
      fs.mkdirSync(this.home, { mode: 0o700 });
    }
    this.socket = path.join(this.runtimeDir, 'holdfast', 'holdfast.sock');
    this.probe = new DaemonProbe(this.socket);
    this.workspace = path.join(this.dir, 'workspace');
    fs.mkdirSync(this.workspace);
  }

  /** Environment additions for code-server (and so the extension host and the daemon). */
  get env(): Record<string, string> {
    const env = {
      XDG_RUNTIME_DIR: this.runtimeDir,
      XDG_STATE_HOME: this.stateHome,
      XDG_CONFIG_HOME: this.configHome,
      HOLDFAST_SOCKET: this.socket,
    };
    return this.home ? { ...env, HOME: this.home } : env;
  }

  /** Runs `node dist/cli.js ARGS --socket S`. Never throws for a non-zero exit. */
  cli(args: string[], opts: { timeout?: number; env?: Record<string, string> } = {}): CliResult {
    countCall(`cli ${args[0]}`);
    try {
      const stdout = execFileSync(CLI_NODE, [CLI, ...args, '--socket', this.socket], {
        encoding: 'utf8',
        timeout: opts.timeout ?? 15_000,
        env: { ...process.env, NODE_COMPILE_CACHE: path.join(this.dir, 'compile-cache'), ...this.env, ...opts.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      return { code: 0, stdout, stderr: '' };
    } catch (err) {
      const e = err as { status?: number | null; stdout?: string; stderr?: string; message: string };
      return { code: e.status ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? e.message };
    }
  }

  /** Runs the CLI with --json and parses stdout; throws with its stderr on failure. */
  cliJson<T = unknown>(args: string[]): T {
    const r = this.cli([...args, '--json']);
    if (r.code !== 0)
      throw new Error(`holdfast ${args.join(' ')} exited ${r.code}: ${r.stderr.trim() || r.stdout.trim()}`);
    return JSON.parse(r.stdout) as T;
  }

  /** A session made by `holdfast new` at 100x30, running `sh -c script`; throws with its stderr on failure. */
  newShellSession(name: string, script: string): SessionView {
    const args = ['new', '--name', name, '--cols', '100', '--rows', '30', '--json', '--', '/bin/sh', '-c', script];
    const made = this.cli(args);
    if (made.code !== 0) throw new Error(`holdfast new exited ${made.code}: ${made.stderr.trim()}`);
    const created = JSON.parse(made.stdout) as { session?: SessionView } & SessionView;
    return created.session ?? created;
  }

  /** All sessions (as `holdfast list --json` prints them); [] when no daemon listens. */
  sessions(): SessionView[] {
    try {
      return this.probe.ask<{ sessions: SessionView[] }>('list', {}).sessions;
    } catch (err) {
      if (err instanceof ProbeError && err.noDaemon) return [];
      throw new Error(`holdfast list: ${(err as Error).message}`, { cause: err });
    }
  }

  /** One session (as `holdfast show ID --json` prints it). */
  session(id: string): SessionView {
    return this.ask<{ session: SessionView }>('show', id).session;
  }

  /** The session's screen as text lines (as `holdfast read ID --json` prints them). */
  screen(id: string): string[] {
    return this.ask<{ lines: string[] }>('read', id).lines;
  }

  /** `method` about one session through the probe; throws as the CLI's call would, with the daemon's words. */
  private ask<T>(method: 'show' | 'read', id: string): T {
    try {
      return this.probe.ask<T>(method, { session: id });
    } catch (err) {
      throw new Error(`holdfast ${method} ${id}: ${(err as Error).message}`, { cause: err });
    }
  }

  /** Polls the session's screen until it matches. */
  async waitForScreen(id: string, pattern: RegExp | string, timeout = 20_000): Promise<string> {
    let last: string[] = [];
    try {
      return await waitFor(
        () => {
          const text = (last = this.screen(id)).join('\n');
          return (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text)) ? text : undefined;
        },
        { timeout, message: `session ${id} to show ${String(pattern)}` },
      );
    } catch (err) {
      // What the screen showed instead, and who was attached: a failure's first questions.
      const rows = JSON.stringify(last.filter((row) => row.trim()).slice(-6));
      let clients: string;
      try {
        clients = JSON.stringify(this.session(id).clients);
      } catch (shown) {
        clients = (shown as Error).message;
      }
      throw new Error(`${(err as Error).message}; its last rows: ${rows}; clients: ${clients}`, { cause: err });
    }
  }

  /** Stops this test's daemon (if any), then kills anything still carrying this isolation's env. */
  async dispose(opts: { keepDir?: boolean } = {}): Promise<void> {
    this.probe.dispose();
    if (fs.existsSync(CLI)) this.cli(['stop'], { timeout: 10_000 });
    const marker = `HOLDFAST_SOCKET=${this.socket}`;
    const runtime = `XDG_RUNTIME_DIR=${this.runtimeDir}`;
    const leftovers = () =>
      allProcs().filter(
        (p) =>
          p.pid !== process.pid && p.state !== 'Z' && readEnviron(p.pid).some((e) => e === marker || e === runtime),
      );
    try {
      await waitFor(() => leftovers().length === 0, { timeout: 4_000, message: 'the daemon to stop' });
    } catch {
      for (const p of leftovers()) kill(p.pid, 'SIGKILL');
    }
    if (!opts.keepDir) fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The parts of a session the tests look at (the CLI's JSON, see src/protocol/messages.ts). */
export interface SessionView {
  id: string;
  name: string;
  pid: number;
  state: string;
  cwd?: string;
  cols: number;
  rows: number;
  clients?: { owners: number; watchers: number };
  metadata?: Record<string, unknown>;
  [key: string]: unknown;
}

/** Processes whose command line mentions the daemon script and this socket. */
export function daemonPids(iso: Isolation): number[] {
  return allProcs()
    .filter((p) => p.state !== 'Z' && p.cmdline.some((a) => a.endsWith('daemon.js')) && p.cmdline.includes(iso.socket))
    .map((p) => p.pid);
}
