// End-to-end harness: a real VS Code (code-server 4.139.1 = VS Code 1.139.1) driven
// through headless Debian Chromium with playwright-core, like a user would.
// Why this setup (no VS Code download is possible here; code-server is the same workbench and
// extension host): see the README. scripts/setup-e2e.sh installs it into .vscode-test/.
//
//   const iso = new Isolation('reload');            // private XDG_RUNTIME_DIR, socket, state
//   const server = new CodeServer({ env: iso.env }); // fresh user-data-dir + extensions-dir
//   await server.start();
//   const wb = await Workbench.launch(server);       // persistent browser profile
//   await wb.open(workspace);
//   await wb.runCommand('Holdfast: New Terminal');
//   ...
//   await wb.close(); await server.dispose(); await iso.dispose();

import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, BrowserContext, Frame, Page } from 'playwright-core';

// ---------------------------------------------------------------------------
// Locations

/** The repository (this file compiles to out/test/e2e/harness.js). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const ARTIFACTS_DIR = path.join(REPO_ROOT, 'test-artifacts');
const CACHE = path.join(REPO_ROOT, '.vscode-test');

/** Node 24 for code-server (it refuses other majors). */
export const NODE24 = process.env.HOLDFAST_E2E_NODE || path.join(CACHE, 'node24', 'package', 'bin', 'node');
/** code-server's entry script, run with NODE24. */
export const CODE_SERVER_ENTRY =
  process.env.HOLDFAST_E2E_CODE_SERVER_ENTRY ||
  path.join(CACHE, 'code-server', 'node_modules', 'code-server', 'out', 'node', 'entry.js');
export const CHROMIUM = process.env.HOLDFAST_E2E_CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The settings every test VS Code starts with (E2E.md), plus what makes the UI inspectable. */
export const BASE_SETTINGS: Record<string, unknown> = {
  'workbench.startupEditor': 'none',
  'security.workspace.trust.enabled': false,
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'update.mode': 'none',
  'telemetry.telemetryLevel': 'off',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'chat.disableAIFeatures': true,
  'chat.commandCenter.enabled': false,
  // Terminal tabs always listed, even for one terminal, so tests can read names and order.
  'terminal.integrated.tabs.enabled': true,
  'terminal.integrated.tabs.hideCondition': 'never',
  // DOM renderer: the terminal's text is in the page, readable by tests.
  'terminal.integrated.gpuAcceleration': 'off',
  'window.confirmBeforeClose': 'never',
  'window.restoreWindows': 'none',
};

// ---------------------------------------------------------------------------
// Small utilities

const TRACE = !!process.env.HOLDFAST_E2E_TRACE;
const traceStart = Date.now();
/** With HOLDFAST_E2E_TRACE=1, prints what the harness does, with seconds since it started. */
export function trace(message: string): void {
  if (TRACE) process.stderr.write(`[e2e ${((Date.now() - traceStart) / 1000).toFixed(1)}s] ${message}\n`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface WaitOptions {
  timeout?: number;
  interval?: number;
  /** Said in the error when the condition is not met in time. */
  message?: string;
}

/**
 * Polls `condition` until it returns something other than undefined/null/false, and returns
 * that. Exceptions thrown by the condition count as "not yet" (the last one is reported).
 */
export async function waitFor<T>(
  condition: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  opts: WaitOptions = {},
): Promise<T> {
  const timeout = opts.timeout ?? 30_000;
  const interval = opts.interval ?? 200;
  const deadline = Date.now() + timeout;
  let lastError: unknown;
  let lastValue: unknown;
  for (;;) {
    try {
      const value = await condition();
      lastValue = value;
      if (value !== undefined && value !== null && value !== false) return value as T;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const why =
        lastError instanceof Error
          ? `; last error: ${lastError.message}`
          : lastValue !== undefined
            ? `; last value: ${JSON.stringify(lastValue)}`
            : '';
      throw new Error(`timed out after ${timeout} ms waiting for ${opts.message ?? 'a condition'}${why}`);
    }
    await sleep(interval);
  }
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export function makeTempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `holdfast-e2e-${prefix}-`));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function safeName(name: string): string {
  return (
    name
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 120) || 'unnamed'
  );
}

// ---------------------------------------------------------------------------
// Processes (Linux /proc)

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  state: string;
  cmdline: string[];
}

export function readProc(pid: number): ProcInfo | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid pgrp session ..."; comm may hold spaces and parentheses.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    let cmdline: string[] = [];
    try {
      cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    } catch {
      /* gone */
    }
    return { pid, state: rest[0], ppid: Number(rest[1]), pgid: Number(rest[2]), sid: Number(rest[3]), cmdline };
  } catch {
    return undefined;
  }
}

export function allProcs(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const info = readProc(Number(entry));
    if (info) out.push(info);
  }
  return out;
}

/** True while `pid` exists and is not a zombie (PID 1 here may leave zombies around). */
export function isAlive(pid: number): boolean {
  const info = readProc(pid);
  return !!info && info.state !== 'Z' && info.state !== 'X';
}

/** `root` and all its descendants, parents before children. */
export function processTree(root: number, procs: ProcInfo[] = allProcs()): ProcInfo[] {
  const children = new Map<number, ProcInfo[]>();
  for (const p of procs) {
    const list = children.get(p.ppid) ?? [];
    list.push(p);
    children.set(p.ppid, list);
  }
  const out: ProcInfo[] = [];
  const self = procs.find((p) => p.pid === root);
  const queue: ProcInfo[] = self ? [self] : [];
  while (queue.length) {
    const p = queue.shift()!;
    out.push(p);
    queue.push(...(children.get(p.pid) ?? []));
  }
  return out;
}

/** A process's environment as NAME=VALUE lines ([] when it is gone). */
export function readEnviron(pid: number): string[] {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    /* already gone */
  }
}

// ---------------------------------------------------------------------------
// Isolation: a private runtime dir (socket), state dir (checkpoints, logs) and the CLI

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The `holdfast` CLI built at dist/cli.js. */
export const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');

/**
 * One per test file: a temp XDG_RUNTIME_DIR / XDG_STATE_HOME and HOLDFAST_SOCKET, so the
 * daemon the extension starts is this test's own. `dispose()` stops that daemon.
 */
export class Isolation {
  readonly dir: string;
  readonly runtimeDir: string;
  readonly stateHome: string;
  readonly socket: string;
  readonly workspace: string;

  constructor(readonly name: string) {
    this.dir = makeTempDir(safeName(name));
    this.runtimeDir = path.join(this.dir, 'run');
    this.stateHome = path.join(this.dir, 'state');
    fs.mkdirSync(this.runtimeDir, { mode: 0o700 });
    fs.mkdirSync(this.stateHome, { mode: 0o700 });
    this.socket = path.join(this.runtimeDir, 'holdfast', 'holdfast.sock');
    this.workspace = path.join(this.dir, 'workspace');
    fs.mkdirSync(this.workspace);
  }

  /** Environment additions for code-server (and so the extension host and the daemon). */
  get env(): Record<string, string> {
    return { XDG_RUNTIME_DIR: this.runtimeDir, XDG_STATE_HOME: this.stateHome, HOLDFAST_SOCKET: this.socket };
  }

  /** Runs `node dist/cli.js ARGS --socket S`. Never throws for a non-zero exit. */
  cli(args: string[], opts: { timeout?: number } = {}): CliResult {
    try {
      const stdout = execFileSync(process.execPath, [CLI, ...args, '--socket', this.socket], {
        encoding: 'utf8',
        timeout: opts.timeout ?? 15_000,
        env: { ...process.env, ...this.env },
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

  /** All sessions (`holdfast list --json`); [] when no daemon listens. */
  sessions(): SessionView[] {
    const r = this.cli(['list', '--json']);
    if (r.code === 6) return [];
    if (r.code !== 0) throw new Error(`holdfast list exited ${r.code}: ${r.stderr.trim()}`);
    const parsed = JSON.parse(r.stdout) as { sessions?: SessionView[] } | SessionView[];
    return Array.isArray(parsed) ? parsed : (parsed.sessions ?? []);
  }

  session(id: string): SessionView {
    const parsed = this.cliJson<{ session?: SessionView } & SessionView>(['show', id]);
    return parsed.session ?? parsed;
  }

  /** The session's screen as text lines (`holdfast read ID --json`). */
  screen(id: string): string[] {
    const parsed = this.cliJson<{ lines?: string[] } | string[]>(['read', id]);
    return Array.isArray(parsed) ? parsed : (parsed.lines ?? []);
  }

  /** Polls the session's screen until it matches. */
  async waitForScreen(id: string, pattern: RegExp | string, timeout = 20_000): Promise<string> {
    return waitFor(
      () => {
        const text = this.screen(id).join('\n');
        return (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text)) ? text : undefined;
      },
      { timeout, message: `session ${id} to show ${String(pattern)}` },
    );
  }

  /** Stops this test's daemon (if any), then kills anything still carrying this isolation's env. */
  async dispose(opts: { keepDir?: boolean } = {}): Promise<void> {
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

// ---------------------------------------------------------------------------
// CodeServer: the VS Code server (workbench + extension host)

export interface CodeServerOptions {
  /** Extension folder to install (symlinked as publisher.name-version). Default: the repo. null: none. */
  extensionPath?: string | null;
  /** Extra environment (e.g. Isolation.env). The rest of process.env is passed through. */
  env?: Record<string, string | undefined>;
  /** Extra user settings, merged over BASE_SETTINGS. */
  settings?: Record<string, unknown>;
  /** Label for the temp dir and logs. */
  name?: string;
  /** Extra code-server arguments, e.g. ['--reconnection-grace-time', '5']. */
  args?: string[];
}

export class CodeServer {
  readonly dir: string;
  readonly userDataDir: string;
  readonly extensionsDir: string;
  readonly browserProfileDir: string;
  readonly logFile: string;
  port = 0;
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private readonly env: Record<string, string | undefined>;
  private readonly extraArgs: string[];

  constructor(opts: CodeServerOptions = {}) {
    if (!fs.existsSync(NODE24) || !fs.existsSync(CODE_SERVER_ENTRY)) {
      throw new Error(`code-server is not installed (${CODE_SERVER_ENTRY}); run: bash scripts/setup-e2e.sh`);
    }
    this.dir = makeTempDir(safeName(opts.name ?? 'code-server'));
    this.userDataDir = path.join(this.dir, 'user-data');
    this.extensionsDir = path.join(this.dir, 'extensions');
    this.browserProfileDir = path.join(this.dir, 'browser-profile');
    this.logFile = path.join(this.dir, 'code-server.log');
    fs.mkdirSync(path.join(this.userDataDir, 'User'), { recursive: true });
    fs.mkdirSync(this.extensionsDir, { recursive: true });
    this.writeSettings({ ...BASE_SETTINGS, ...(opts.settings ?? {}) });
    this.env = opts.env ?? {};
    this.extraArgs = opts.args ?? [];
    const ext = opts.extensionPath === undefined ? REPO_ROOT : opts.extensionPath;
    if (ext) this.installExtension(ext);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The URL that opens `folder` in a window. */
  folderUrl(folder: string): string {
    return `${this.url}/?folder=${encodeURIComponent(folder)}`;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  writeSettings(settings: Record<string, unknown>): void {
    fs.writeFileSync(path.join(this.userDataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  }

  /**
   * Installs an extension folder by symlinking it as `publisher.name-version` (taken from its
   * package.json unless `version` is given) into the extensions dir. Returns the link's path.
   */
  installExtension(folder: string, opts: { version?: string } = {}): string {
    const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8')) as {
      publisher: string;
      name: string;
      version: string;
    };
    const id = `${manifest.publisher}.${manifest.name}-${opts.version ?? manifest.version}`.toLowerCase();
    const link = path.join(this.extensionsDir, id);
    fs.rmSync(link, { recursive: true, force: true });
    fs.symlinkSync(path.resolve(folder), link, 'dir');
    return link;
  }

  /** Removes every installed copy of `publisher.name` (any version). */
  uninstallExtension(publisherDotName: string): void {
    for (const entry of fs.readdirSync(this.extensionsDir)) {
      if (entry.toLowerCase().startsWith(`${publisherDotName.toLowerCase()}-`)) {
        fs.rmSync(path.join(this.extensionsDir, entry), { recursive: true, force: true });
      }
    }
    // VS Code remembers removed extensions in extensions.json / .obsolete; start clean.
    fs.rmSync(path.join(this.extensionsDir, 'extensions.json'), { force: true });
    fs.rmSync(path.join(this.extensionsDir, '.obsolete'), { force: true });
  }

  /**
   * Starts code-server on a free loopback port (the same port again on a restart, so the
   * browser's per-origin storage, where VS Code web keeps workspace state, carries over).
   * Resolves when /healthz answers.
   */
  async start(): Promise<void> {
    if (this.running) throw new Error('code-server is already running');
    if (!this.port) this.port = await freePort();
    const configFile = path.join(this.dir, 'config.yaml');
    fs.writeFileSync(configFile, 'auth: none\ncert: false\n');
    const args = [
      CODE_SERVER_ENTRY,
      '--config',
      configFile,
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${this.port}`,
      '--user-data-dir',
      this.userDataDir,
      '--extensions-dir',
      this.extensionsDir,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      ...this.extraArgs,
    ];
    const env: NodeJS.ProcessEnv = { ...process.env };
    // Variables of an enclosing VS Code or of the test runner must not leak into this one.
    for (const key of Object.keys(env)) {
      if (
        key.startsWith('VSCODE_') ||
        key === 'ELECTRON_RUN_AS_NODE' ||
        key === 'NODE_OPTIONS' ||
        key.startsWith('NODE_TEST')
      )
        delete env[key];
    }
    env.PATH = `${path.dirname(NODE24)}:${env.PATH ?? '/usr/bin:/bin'}`;
    env.SHELL = env.SHELL || '/bin/bash';
    for (const [key, value] of Object.entries(this.env)) {
      if (value === undefined) delete env[key];
      else env[key] = value;
    }
    const log = fs.openSync(this.logFile, 'a');
    fs.writeSync(log, `\n==== start ${new Date().toISOString()} port ${this.port}\n`);
    const child = spawn(NODE24, args, { env, cwd: this.dir, stdio: ['ignore', log, log], detached: true });
    fs.closeSync(log);
    this.child = child;
    // Never leave an editor behind, even when a test process ends without its after() hooks.
    const killOnExit = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    };
    process.once('exit', killOnExit);
    this.exited = new Promise((resolve) =>
      child.once('exit', () => {
        process.removeListener('exit', killOnExit);
        resolve();
      }),
    );
    let outcome: 'up' | 'exited';
    try {
      outcome = await waitFor(
        async () => {
          if (!this.running) return 'exited' as const;
          const res = await fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(2_000) });
          return res.ok ? ('up' as const) : undefined;
        },
        { timeout: 60_000, interval: 250, message: `code-server on port ${this.port}` },
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- ${this.logFile} (tail) ---\n${this.logTail()}`, { cause: err });
    }
    if (outcome === 'exited') {
      throw new Error(
        `code-server exited (${child.exitCode ?? child.signalCode}) before answering\n--- ${this.logFile} (tail) ---\n${this.logTail()}`,
      );
    }
  }

  /**
   * A full editor quit: SIGTERM to code-server's process group, SIGKILL to whatever of it is
   * left after a grace period. Processes that made themselves a session of their own (the
   * Holdfast daemon, shells under a PTY) are left alone, as a real quit would.
   */
  async stop(opts: { graceMs?: number } = {}): Promise<void> {
    const child = this.child;
    if (!child?.pid) return;
    const pgid = child.pid;
    const sameSession = () => {
      const procs = allProcs();
      const root = procs.find((p) => p.pid === pgid);
      const sid = root?.sid ?? pgid;
      return procs.filter(
        (p) =>
          p.state !== 'Z' &&
          (p.pgid === pgid || (p.sid === sid && processTree(pgid, procs).some((q) => q.pid === p.pid))),
      );
    };
    const tree = processTree(pgid).filter((p) => p.state !== 'Z');
    const rootSid = tree[0]?.sid;
    // Descendants still in the editor's own session (not daemonized): those must go too.
    const toReap = tree.filter((p) => p.sid === rootSid).map((p) => p.pid);
    try {
      process.kill(-pgid, 'SIGTERM');
    } catch {
      /* gone */
    }
    const grace = opts.graceMs ?? 5_000;
    const done = await Promise.race([this.exited.then(() => true), sleep(grace).then(() => false)]);
    if (!done) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    for (const pid of toReap) if (isAlive(pid)) kill(pid, 'SIGKILL');
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      /* group empty */
    }
    await this.exited;
    await waitFor(() => toReap.every((pid) => !isAlive(pid)) && sameSession().length === 0, {
      timeout: 10_000,
      message: 'code-server processes to exit',
    });
    this.child = undefined;
  }

  /** code-server and every process under it, as seen now. */
  processes(): ProcInfo[] {
    return this.child?.pid ? processTree(this.child.pid).filter((p) => p.state !== 'Z') : [];
  }

  /** PIDs of the extension host processes (one per connected window). */
  extensionHostPids(): number[] {
    return this.processes()
      .filter((p) => p.cmdline.some((a) => a === '--type=extensionHost'))
      .map((p) => p.pid);
  }

  /** Waits for exactly-one-new extension host (not in `exclude`), returns its PID. */
  async waitForExtensionHost(exclude: number[] = [], timeout = 60_000): Promise<number> {
    return waitFor(() => this.extensionHostPids().find((pid) => !exclude.includes(pid)), {
      timeout,
      message: 'an extension host process',
    });
  }

  /** SIGKILLs the extension host(s) (an extension host crash). Returns the PIDs killed. */
  async killExtensionHost(pid?: number): Promise<number[]> {
    const pids = pid ? [pid] : this.extensionHostPids();
    if (!pids.length) throw new Error('no extension host process found');
    for (const p of pids) kill(p, 'SIGKILL');
    await waitFor(() => pids.every((p) => !isAlive(p)), { timeout: 10_000, message: 'the extension host to die' });
    return pids;
  }

  logTail(lines = 60): string {
    try {
      return fs.readFileSync(this.logFile, 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }

  /** Copies code-server's logs (and the VS Code server's logs dir) into test-artifacts/NAME/. */
  saveLogs(name: string): string {
    const dest = path.join(ARTIFACTS_DIR, safeName(name));
    fs.mkdirSync(dest, { recursive: true });
    try {
      fs.copyFileSync(this.logFile, path.join(dest, 'code-server.log'));
      const logs = path.join(this.userDataDir, 'logs');
      if (fs.existsSync(logs)) fs.cpSync(logs, path.join(dest, 'vscode-logs'), { recursive: true });
    } catch {
      /* best effort */
    }
    return dest;
  }

  /** Stops the server and removes its temp dir (unless keepDir). */
  async dispose(opts: { keepDir?: boolean } = {}): Promise<void> {
    await this.stop();
    if (!opts.keepDir) fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------
// Workbench: the VS Code window in Chromium

export interface TerminalTab {
  name: string;
  active: boolean;
  /** Shown with Holdfast's icon (codicon "pinned"); VS Code's own shells have another. Panel tabs only. */
  holdfast?: boolean;
}

const WORKBENCH = '.monaco-workbench';
const QUICK_INPUT = '.quick-input-widget';
const QUICK_INPUT_BOX = '.quick-input-widget .quick-input-box input';

/**
 * A VS Code window. `Workbench.launch()` starts Chromium with a persistent profile kept in
 * the CodeServer's dir (VS Code web keeps its state in the browser, as desktop keeps it on
 * disk); `newWindow()` opens a second window in the same browser.
 */
export class Workbench {
  folder: string | undefined;
  private browserConfigHome: string | undefined;

  private constructor(
    readonly server: CodeServer,
    readonly context: BrowserContext,
    readonly page: Page,
    private readonly ownsContext: boolean,
  ) {
    page.on('pageerror', (err) => this.consoleLines.push(`[pageerror] ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error') this.consoleLines.push(`[console.error] ${msg.text()}`);
    });
  }

  /** Console errors seen in this window (open-vsx.org lookups failing here is normal). */
  readonly consoleLines: string[] = [];

  static async launch(server: CodeServer, opts: { headless?: boolean } = {}): Promise<Workbench> {
    // Chromium's crash handler outlives the browser; with its config dir in ours it can be found and ended.
    const configHome = `${server.browserProfileDir}-config`;
    const context = await chromium.launchPersistentContext(server.browserProfileDir, {
      executablePath: CHROMIUM,
      headless: opts.headless ?? true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1400, height: 900 },
      env: { ...process.env, XDG_CONFIG_HOME: configHome },
    });
    const page = context.pages()[0] ?? (await context.newPage());
    const wb = new Workbench(server, context, page, true);
    wb.browserConfigHome = configHome;
    return wb;
  }

  /** A second window (page) in the same browser, on the same folder unless told otherwise. */
  async newWindow(
    folder = this.folder,
    opts: { viewport?: { width: number; height: number } } = {},
  ): Promise<Workbench> {
    const page = await this.context.newPage();
    if (opts.viewport) await page.setViewportSize(opts.viewport);
    const wb = new Workbench(this.server, this.context, page, false);
    if (folder) await wb.open(folder);
    return wb;
  }

  /** Opens `folder` in this window and waits for the workbench to be usable. */
  async open(folder: string): Promise<void> {
    this.folder = folder;
    trace(`open ${folder}`);
    await this.page.goto(this.server.folderUrl(folder), { waitUntil: 'domcontentloaded', timeout: 60_000 });
    await this.waitReady();
  }

  /** After a (re)load: the workbench is rendered and its status bar is up. */
  async waitReady(timeout = 60_000): Promise<void> {
    await this.page.waitForSelector(`${WORKBENCH} .part.statusbar`, { timeout });
    await this.page.waitForSelector(`${WORKBENCH} .part.editor`, { timeout });
    // The remote connection: while it is being made, the status bar shows "Opening Remote...".
    await waitFor(
      () =>
        this.page.evaluate(() => {
          const text = document.querySelector('.statusbar-item.remote-kind')?.textContent ?? '';
          return !/opening remote|reconnecting|disconnected/i.test(text);
        }),
      { timeout, message: 'the remote connection' },
    );
    trace('workbench ready');
  }

  /** The next reload happens in this window; page.reload() for a plain browser reload. */
  private async markPage(): Promise<string> {
    const mark = `m${Date.now()}${Math.random()}`;
    await this.page.evaluate((m) => ((window as unknown as Record<string, string>).__holdfastE2E = m), mark);
    return mark;
  }

  private async waitReloaded(mark: string, timeout = 60_000): Promise<void> {
    await waitFor(
      async () => {
        const seen = await this.page.evaluate(
          () => (window as unknown as Record<string, string | undefined>).__holdfastE2E,
        );
        return seen !== mark;
      },
      { timeout, message: 'the window to reload' },
    );
    await this.page.waitForLoadState('domcontentloaded');
    await this.waitReady(timeout);
  }

  /** Opens the command palette (F1), types `title`, picks the entry whose label is exactly `title`. */
  async runCommand(title: string, opts: { timeout?: number } = {}): Promise<void> {
    const timeout = opts.timeout ?? 60_000;
    trace(`runCommand ${title}`);
    let attempt = 0;
    await waitFor(
      async () => {
        attempt++;
        try {
          await this.closeQuickInput();
          await this.page.keyboard.press('F1');
          await this.page.waitForSelector(QUICK_INPUT_BOX, { state: 'visible', timeout: 10_000 });
          await this.page.fill(QUICK_INPUT_BOX, `>${title}`);
          // The list filters as typed; a contributed command may appear only once registered.
          return await waitFor(() => this.clickQuickPickRow(title), {
            timeout: 10_000,
            message: `"${title}" in the command palette`,
          });
        } catch (err) {
          const rows = await this.page
            .$$eval(`${QUICK_INPUT} .quick-input-list .monaco-list-row .label-name`, (els) =>
              els.map((e) => (e.textContent ?? '').trim()),
            )
            .catch(() => []);
          trace(
            `runCommand ${title}: attempt ${attempt} failed: ${(err as Error).message.split('\n')[0]}; rows: ${JSON.stringify(rows.slice(0, 5))}`,
          );
          throw err;
        }
      },
      { timeout, interval: 500, message: `the command "${title}"` },
    );
    trace(`ran ${title}`);
  }

  /** Clicks the quick pick row whose label is `label` (exactly, or matching a RegExp). */
  private async clickQuickPickRow(label: string | RegExp): Promise<boolean> {
    const rows = this.page.locator(`${QUICK_INPUT} .quick-input-list .monaco-list-row`);
    const count = await rows.count();
    for (let i = 0; i < count; i++) {
      const row = rows.nth(i);
      const text = (
        (await row
          .locator('.label-name')
          .first()
          .textContent({ timeout: 1_000 })
          .catch(() => null)) ?? ''
      ).trim();
      if (typeof label === 'string' ? text === label : label.test(text)) {
        await row.click();
        return true;
      }
    }
    return false;
  }

  /** The labels of the rows in the open quick pick. */
  async quickPickItems(): Promise<string[]> {
    await this.page.waitForSelector(`${QUICK_INPUT} .quick-input-list`, { state: 'visible', timeout: 15_000 });
    return this.page.$$eval(`${QUICK_INPUT} .quick-input-list .monaco-list-row .label-name`, (els) =>
      els.map((e) => (e.textContent ?? '').trim()),
    );
  }

  /** In an open quick pick (e.g. "Attach to Session…"), picks the item with this label. */
  async pickQuickItem(label: string | RegExp, timeout = 15_000): Promise<void> {
    await waitFor(() => this.clickQuickPickRow(label), { timeout, message: `quick pick item ${String(label)}` });
  }

  /** Types into an open input box (e.g. "Rename Session") and presses Enter. */
  async answerInputBox(text: string, timeout = 15_000): Promise<void> {
    await this.page.waitForSelector(QUICK_INPUT_BOX, { state: 'visible', timeout });
    await this.page.fill(QUICK_INPUT_BOX, text);
    await this.page.keyboard.press('Enter');
    await this.page.waitForSelector(QUICK_INPUT, { state: 'hidden', timeout }).catch(() => undefined);
  }

  async closeQuickInput(): Promise<void> {
    if (await this.page.isVisible(QUICK_INPUT)) {
      await this.page.keyboard.press('Escape');
      await this.page.waitForSelector(QUICK_INPUT, { state: 'hidden', timeout: 5_000 }).catch(() => undefined);
    }
  }

  /** "Developer: Reload Window" (restarts the extension host) and waits for the new page. */
  async reloadWindow(): Promise<void> {
    const mark = await this.markPage();
    await this.runCommand('Developer: Reload Window');
    await this.waitReloaded(mark);
  }

  /** A plain browser reload (F5); the window reconnects. */
  async reloadPage(): Promise<void> {
    await this.page.reload({ waitUntil: 'domcontentloaded' });
    await this.waitReady();
  }

  /** A notification's button, e.g. "Restart Extension Host" or a modal dialog's "Yes". */
  async clickButton(label: string | RegExp, timeout = 15_000): Promise<void> {
    const button = this.page
      .locator('.monaco-workbench .monaco-button, .monaco-dialog-box .monaco-button')
      .filter({ hasText: label });
    await button.first().click({ timeout });
  }

  /** The text of visible notifications and dialogs (toasts, modal dialogs). */
  async notifications(): Promise<string[]> {
    return this.page.$$eval(
      '.notification-toast .notification-list-item-message, .monaco-dialog-box .dialog-message-text, .monaco-dialog-box .dialog-message-detail',
      (els) => els.map((e) => (e.textContent ?? '').trim()).filter(Boolean),
    );
  }

  /** The visible modal dialog's message + detail, or undefined. */
  async dialogText(): Promise<string | undefined> {
    const box = this.page.locator('.monaco-dialog-box');
    if (!(await box.isVisible())) return undefined;
    return ((await box.textContent()) ?? '').trim();
  }

  // ---- terminals

  /** The terminal panel's tabs, in order, with which is active. */
  async terminalTabs(): Promise<TerminalTab[]> {
    // Each tab is a `.terminal-tabs-entry` (the active one has `is-active`); the list also holds
    // an entry for hidden chat terminals, which has no icon label.
    return this.page.$$eval('.part.panel .terminal-tabs-entry', (entries) =>
      entries
        .filter((entry) => entry.querySelector('.monaco-icon-label .label-name'))
        .map((entry) => ({
          name: (entry.querySelector('.monaco-icon-label .label-name')?.textContent ?? '').trim(),
          active: entry.classList.contains('is-active'),
          holdfast: !!entry.querySelector('.codicon-pinned'),
        })),
    );
  }

  private tabEntry(name: string) {
    return this.page
      .locator('.part.panel .terminal-tabs-entry')
      .filter({
        has: this.page.locator('.monaco-icon-label .label-name', {
          hasText: new RegExp(`^\\s*${escapeRegExp(name)}\\s*$`),
        }),
      })
      .first();
  }

  /** Clicks a terminal tab in the panel's tab list, making it the active terminal. */
  async clickTerminalTab(name: string): Promise<void> {
    await this.tabEntry(name).click();
    await waitFor(async () => (await this.terminalTabs()).find((t) => t.name === name)?.active, {
      timeout: 10_000,
      message: `tab "${name}" to be active`,
    });
  }

  /** Closes a terminal tab with its trash icon ("Kill Terminal"), as a user does. */
  async trashTerminalTab(name: string): Promise<void> {
    const entry = this.tabEntry(name);
    await entry.hover();
    await entry.locator('.action-label.codicon-trashcan, .action-label.codicon-trash').first().click();
  }

  /**
   * Waits until the panel's Holdfast tabs are exactly `expected` (names in order; `active` checked
   * when given), and still are after `settleMs` (a late duplicate would show up by then).
   * Returns every panel tab, Holdfast's and others.
   */
  async waitForHoldfastTabs(
    expected: { name: string; active?: boolean }[],
    opts: { timeout?: number; settleMs?: number } = {},
  ): Promise<TerminalTab[]> {
    const matches = (tabs: TerminalTab[]) => {
      const mine = tabs.filter((t) => t.holdfast);
      return (
        mine.length === expected.length &&
        expected.every((e, i) => mine[i].name === e.name && (e.active === undefined || mine[i].active === e.active))
      );
    };
    let last: TerminalTab[] = [];
    const check = async () => matches((last = await this.terminalTabs()));
    try {
      await waitFor(check, { timeout: opts.timeout ?? 30_000, message: 'the tabs' });
      await sleep(opts.settleMs ?? 2_000);
      if (!(await check())) throw new Error('changed again');
    } catch {
      throw new Error(`expected Holdfast tabs ${JSON.stringify(expected)}, saw ${JSON.stringify(last)}`);
    }
    return last;
  }

  /** Editor tabs' labels (files and editor-area terminals), in order, and which is active. */
  async editorTabs(): Promise<TerminalTab[]> {
    return this.page.$$eval('.part.editor .editor-group-container .tab', (tabs) =>
      tabs.map((tab) => ({
        name: (tab.getAttribute('aria-label') || tab.querySelector('.label-name')?.textContent || '').trim(),
        active: tab.classList.contains('active'),
      })),
    );
  }

  /** Shows the terminal panel (without creating a terminal). */
  async showTerminalPanel(): Promise<void> {
    if (!(await this.page.isVisible('.part.panel .integrated-terminal')))
      await this.runCommand('View: Toggle Terminal');
    await this.page.waitForSelector('.part.panel .integrated-terminal', { state: 'visible', timeout: 15_000 });
  }

  /** The xterm of the terminal the user sees (editor area first if a terminal editor is active). */
  private activeXterm() {
    return this.page
      .locator(
        [
          '.editor-group-container.active .editor-instance .terminal-wrapper.active .xterm',
          '.part.panel .terminal-groups-container .terminal-group:not([style*="display: none"]) .terminal-wrapper.active .xterm',
          '.part.panel .terminal-wrapper.active .xterm',
        ].join(', '),
      )
      .filter({ visible: true })
      .first();
  }

  /** Focuses the visible terminal (a click in it, as a user would). */
  async focusTerminal(): Promise<void> {
    const xterm = this.activeXterm();
    await xterm.waitFor({ state: 'visible', timeout: 15_000 });
    await xterm.click({ position: { x: 40, y: 10 } });
    await waitFor(
      () => this.page.evaluate(() => !!document.activeElement?.classList.contains('xterm-helper-textarea')),
      {
        timeout: 5_000,
        message: 'the terminal to take focus',
      },
    );
  }

  /** Types into the visible terminal; "\n" presses Enter. */
  async typeInTerminal(text: string): Promise<void> {
    await this.focusTerminal();
    const parts = text.split('\n');
    for (let i = 0; i < parts.length; i++) {
      if (parts[i]) await this.page.keyboard.type(parts[i]);
      if (i < parts.length - 1) await this.page.keyboard.press('Enter');
    }
  }

  /** Presses a key (Playwright name, e.g. "Control+C") in the visible terminal. */
  async pressInTerminal(key: string): Promise<void> {
    await this.focusTerminal();
    await this.page.keyboard.press(key);
  }

  /** The visible terminal's rows as rendered (DOM renderer). */
  async terminalText(): Promise<string> {
    const xterm = this.activeXterm();
    if (!(await xterm.count())) return '';
    return xterm.evaluate((el) =>
      Array.from(el.querySelectorAll('.xterm-rows > div'))
        .map((row) => (row.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd())
        .join('\n'),
    );
  }

  /** The CSS classes of the rendered text run holding `text` in the visible terminal (e.g. "xterm-fg-1" for red). */
  async terminalTextClasses(text: string): Promise<string | undefined> {
    const xterm = this.activeXterm();
    if (!(await xterm.count())) return undefined;
    return xterm.evaluate((el, wanted) => {
      const spans = Array.from(el.querySelectorAll('.xterm-rows span'));
      const hit = spans.find((s) => (s.textContent ?? '').replace(/\u00a0/g, ' ').includes(wanted));
      return hit ? hit.className : undefined;
    }, text);
  }

  async waitForTerminalText(pattern: RegExp | string, timeout = 20_000): Promise<string> {
    return waitFor(
      async () => {
        const text = await this.terminalText();
        return (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text)) ? text : undefined;
      },
      { timeout, message: `the terminal to show ${String(pattern)}` },
    );
  }

  /** The text the panel's Output view shows now (its visible lines). */
  async outputText(): Promise<string> {
    return this.page
      .$$eval(
        '.part.panel .output-view .view-lines .view-line, .part.panel .monaco-editor .view-lines .view-line',
        (lines) =>
          lines
            .map((line) => ({
              top: parseFloat((line as HTMLElement).style.top || '0'),
              text: (line.textContent ?? '').replace(/\u00a0/g, ' '),
            }))
            .sort((a, b) => a.top - b.top)
            .map((l) => l.text)
            .join('\n'),
      )
      .catch(() => '');
  }

  // ---- artifacts and lifetime

  /** Saves a screenshot as test-artifacts/NAME.png and returns its path. */
  async screenshot(name: string): Promise<string> {
    fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
    const file = path.join(ARTIFACTS_DIR, `${safeName(name)}.png`);
    await this.page.screenshot({ path: file, timeout: 15_000 });
    return file;
  }

  /** Closes this window's page (the browser tab), as a user closing it. */
  async closeWindow(): Promise<void> {
    if (!this.page.isClosed()) await this.page.close({ runBeforeUnload: false });
  }

  /** Closes the window; the first window also closes the browser. */
  async close(): Promise<void> {
    if (this.ownsContext) {
      await this.context.close().catch(() => undefined);
      const marker = this.browserConfigHome;
      if (marker) for (const p of allProcs()) if (p.cmdline.some((a) => a.includes(marker))) kill(p.pid, 'SIGKILL');
    } else {
      await this.closeWindow().catch(() => undefined);
    }
  }
}

// ---------------------------------------------------------------------------
// Failure artifacts

/**
 * Runs `body`; when it throws, saves a screenshot of every open window and the server's logs
 * under test-artifacts/ (named after `name`) and rethrows.
 */
export async function withArtifacts<T>(
  name: string,
  parts: { windows: () => Workbench[]; server?: () => CodeServer | undefined; isolation?: Isolation },
  body: () => Promise<T>,
): Promise<T> {
  try {
    return await body();
  } catch (err) {
    const saved: string[] = [];
    const base = safeName(name).slice(0, 100);
    let i = 0;
    for (const wb of parts.windows()) {
      i++;
      try {
        if (!wb.page.isClosed()) saved.push(await wb.screenshot(`${base}-window${i}`));
        if (wb.consoleLines.length) {
          fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
          fs.writeFileSync(path.join(ARTIFACTS_DIR, `${base}-window${i}-console.txt`), wb.consoleLines.join('\n'));
        }
      } catch {
        /* best effort */
      }
    }
    const server = parts.server?.();
    if (server) saved.push(server.saveLogs(name));
    const iso = parts.isolation;
    if (iso) {
      const daemonLog = path.join(iso.stateHome, 'holdfast', 'daemon.log');
      if (fs.existsSync(daemonLog)) {
        const dest = path.join(ARTIFACTS_DIR, safeName(name));
        fs.mkdirSync(dest, { recursive: true });
        fs.copyFileSync(daemonLog, path.join(dest, 'daemon.log'));
      }
    }
    if (err instanceof Error) err.message += `\n(artifacts: ${saved.join(', ')})`;
    throw err;
  }
}

// ---------------------------------------------------------------------------
// HoldfastE2E: what every scenario file sets up (one isolation, one code-server, one browser)

/**
 * The shell Holdfast terminals run in the e2e: bash without rc files and without a history file.
 * Its prompt ends in "# " or "$ " (VS Code's server resolves the login shell's environment, so
 * a PS1 set here would be replaced).
 */
export const PROMPT_RE = /[#$] ?$/m;
export const E2E_SETTINGS: Record<string, unknown> = {
  'holdfast.shell.path': '/bin/bash',
  'holdfast.shell.args': ['--norc', '--noprofile'],
};

/** Panel tabs that are not Holdfast's (e.g. a default shell VS Code opened by itself at startup). */
export function otherTabs(tabs: TerminalTab[]): TerminalTab[] {
  return tabs.filter((tab) => !tab.holdfast);
}

export const NO_OTHER_TABS =
  'no terminal tab besides the restored Holdfast ones (VS Code opens its default shell when it finds no terminal at startup, before Holdfast restores its tabs)';

export interface HoldfastE2EOptions {
  name: string;
  settings?: Record<string, unknown>;
  extensionPath?: string | null;
  serverArgs?: string[];
}

/**
 * One scenario file's world: a private daemon socket and state dir, a code-server with the
 * extension under test, and a browser window. Tests use a workspace folder each
 * (`workspace(name)`), so that their Holdfast tabs never meet.
 */
export class HoldfastE2E {
  readonly iso: Isolation;
  readonly server: CodeServer;
  /** Every window opened so far (screenshots on failure). */
  readonly windows: Workbench[] = [];
  private main: Workbench | undefined;

  private constructor(readonly opts: HoldfastE2EOptions) {
    this.iso = new Isolation(opts.name);
    this.server = new CodeServer({
      name: opts.name,
      env: { ...this.iso.env, HISTFILE: '/dev/null' },
      settings: { ...E2E_SETTINGS, ...(opts.settings ?? {}) },
      extensionPath: opts.extensionPath,
      args: opts.serverArgs,
    });
  }

  static async start(opts: HoldfastE2EOptions): Promise<HoldfastE2E> {
    const e2e = new HoldfastE2E(opts);
    await e2e.server.start();
    await e2e.launchBrowser();
    return e2e;
  }

  /** The first window of the current browser. */
  get wb(): Workbench {
    if (!this.main) throw new Error('no browser running');
    return this.main;
  }

  async launchBrowser(): Promise<Workbench> {
    this.main = await Workbench.launch(this.server);
    this.windows.push(this.main);
    return this.main;
  }

  /** Closes the browser (all its windows). */
  async closeBrowser(): Promise<void> {
    await this.main?.close();
    this.main = undefined;
  }

  /** A second (third, ...) window in the same browser, on `folder` (default: the first window's). */
  async newWindow(folder?: string, viewport?: { width: number; height: number }): Promise<Workbench> {
    const wb = await this.wb.newWindow(folder ?? this.wb.folder, { viewport });
    this.windows.push(wb);
    return wb;
  }

  /**
   * Opens `folder` in `wb` and waits until Holdfast is active and connected to its daemon (its
   * status bar item shows the pinned icon and the session count).
   */
  async open(folder: string, wb: Workbench = this.wb): Promise<void> {
    await wb.open(folder);
    await this.waitForHoldfast(wb);
  }

  async waitForHoldfast(wb: Workbench = this.wb, timeout = 60_000): Promise<void> {
    await wb.page.waitForSelector('.part.statusbar .statusbar-item .codicon-pinned', { state: 'visible', timeout });
    trace('Holdfast is connected (status bar)');
  }

  /** A fresh workspace folder for one test. */
  workspace(name: string): string {
    const dir = path.join(this.iso.dir, 'workspaces', safeName(name));
    fs.mkdirSync(dir, { recursive: true });
    return dir;
  }

  /** A scratch file path for this run (pid files and the like). */
  file(name: string): string {
    return path.join(this.iso.dir, safeName(name));
  }

  /**
   * Runs a "Holdfast: New Terminal…" command in `wb` and returns the session it created, once
   * its shell shows the prompt (in the daemon's screen and in the window).
   */
  async newTerminal(wb: Workbench = this.wb, command = 'Holdfast: New Terminal'): Promise<SessionView> {
    const before = new Set(this.iso.sessions().map((s) => s.id));
    await wb.runCommand(command);
    const session = await waitFor(() => this.iso.sessions().find((s) => !before.has(s.id)), {
      timeout: 30_000,
      message: `a new session after "${command}"`,
    });
    trace(`new session ${session.id} pid ${session.pid}`);
    await this.iso.waitForScreen(session.id, PROMPT_RE);
    await wb.waitForTerminalText(PROMPT_RE);
    trace(`session ${session.id} shows its prompt`);
    return this.iso.session(session.id);
  }

  /** Types `echo $$ > FILE` into the window's visible terminal and returns the PID written. */
  async shellPid(wb: Workbench, label: string): Promise<number> {
    const file = this.file(`pid-${label}-${Date.now()}`);
    await wb.typeInTerminal(`echo $$ > ${file}\n`);
    const text = await waitFor(
      () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() || undefined : undefined),
      {
        timeout: 15_000,
        message: `the shell to write its PID to ${file}`,
      },
    );
    return Number(text);
  }

  /** Runs `body`, saving screenshots and logs under test-artifacts/NAME when it fails. */
  run<T>(name: string, body: () => Promise<T>): Promise<T> {
    return withArtifacts(name, { windows: () => this.windows, server: () => this.server, isolation: this.iso }, body);
  }

  /** Closes the browser, stops code-server and the daemon, removes the temp dirs. */
  async dispose(): Promise<void> {
    await this.closeBrowser().catch(() => undefined);
    await this.server.dispose().catch(() => undefined);
    await this.iso.dispose();
  }
}

/** Processes whose command line mentions the daemon script and this socket. */
export function daemonPids(iso: Isolation): number[] {
  return allProcs()
    .filter((p) => p.state !== 'Z' && p.cmdline.some((a) => a.endsWith('daemon.js')) && p.cmdline.includes(iso.socket))
    .map((p) => p.pid);
}

// ---------------------------------------------------------------------------
// Holdfast's sessions webview (the sidebar and the wall of screens)

/** Shows Holdfast's Sessions view (its activity-bar icon), as a user does. */
export async function openSidebar(wb: Workbench): Promise<void> {
  const page = wb.page;
  const icon = page.locator('.part.activitybar .action-item a.action-label[aria-label^="Holdfast"]').first();
  await icon.click({ timeout: 15_000 });
  await page.waitForSelector(
    '.part.sidebar .pane-header[aria-label^="Sessions"], .part.sidebar .title-label h2[title^="Holdfast"], .part.sidebar .composite.title',
    { timeout: 15_000 },
  );
  trace('sidebar open');
}

/** The sessions webview's page (inside VS Code's nested webview iframes), found by its mode. */
export class SessionsWebview {
  constructor(
    private readonly wb: Workbench,
    readonly mode: 'sidebar' | 'wall',
  ) {}

  async frame(): Promise<Frame> {
    return waitFor(
      async () => {
        for (const frame of this.wb.page.frames()) {
          const mode = await frame.evaluate(() => document.body?.dataset.mode).catch(() => undefined);
          if (mode === this.mode && !frame.isDetached()) return frame;
        }
        return undefined;
      },
      { timeout: 20_000, message: `the ${this.mode} webview` },
    );
  }

  /** Runs `fn` on the session's card in the webview (undefined when there is none). */
  private async card<T>(id: string, fn: (card: HTMLElement) => T): Promise<T | undefined> {
    const frame = await this.frame();
    // An expression, not a function built in the page: the webview's CSP forbids eval there.
    const selector = JSON.stringify(`.card[data-session-id="${id}"]`);
    return frame.evaluate(
      `(() => { const card = document.querySelector(${selector}); return card ? (${fn.toString()})(card) : undefined; })()`,
    ) as Promise<T | undefined>;
  }

  /** The preview's rows as rendered by xterm.js's DOM renderer. */
  async previewText(id: string): Promise<string> {
    return (
      (await this.card(id, (card) =>
        Array.from(card.querySelectorAll('.preview .xterm-rows > div'))
          .map((row) => (row.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd())
          .join('\n'),
      )) ?? ''
    );
  }

  async waitForText(id: string, text: string, timeout = 20_000): Promise<string> {
    return waitFor(
      async () => {
        const shown = await this.previewText(id);
        return shown.includes(text) ? shown : undefined;
      },
      { timeout, message: `the ${this.mode} preview of ${id} to show "${text}"` },
    );
  }

  async phase(id: string): Promise<string | undefined> {
    return this.card(id, (card) => card.dataset.phase);
  }

  async waitForPhase(id: string, phase: string, timeout = 20_000): Promise<void> {
    await waitFor(async () => (await this.phase(id)) === phase, {
      timeout,
      message: `the ${this.mode} card of ${id} to say ${phase}`,
    });
    trace(`${id} is ${phase}`);
  }

  async stateText(id: string): Promise<string | undefined> {
    return this.card(id, (card) => card.querySelector('.state-label')?.textContent ?? undefined);
  }

  async elapsed(id: string): Promise<string | undefined> {
    return this.card(id, (card) => card.querySelector('.elapsed')?.textContent ?? undefined);
  }

  async actions(id: string): Promise<string[] | undefined> {
    return this.card(id, (card) =>
      Array.from(card.querySelectorAll('.actions button')).map((b) => (b.className.match(/action-(\w+)/) ?? [])[1]),
    );
  }

  /** The preview terminal's size (its xterm's cols x rows). */
  async previewSize(id: string): Promise<string | undefined> {
    return this.card(id, (card) => {
      const preview = card.querySelector<HTMLElement>('.preview');
      return preview?.dataset.cols ? `${preview.dataset.cols}x${preview.dataset.rows}` : undefined;
    });
  }

  async cardOrder(): Promise<string[]> {
    const frame = await this.frame();
    return frame.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLElement>('.card')).map((c) => c.dataset.sessionId ?? ''),
    );
  }

  async click(id: string): Promise<void> {
    const frame = await this.frame();
    await frame.locator(`.card[data-session-id="${id}"] .card-head .name`).click();
  }

  /** Clicks one of the card's action buttons, e.g. "relaunchSession". */
  async clickAction(id: string, action: string): Promise<void> {
    const frame = await this.frame();
    // The buttons show on hover or focus, as in VS Code's own lists.
    await frame.locator(`.card[data-session-id="${id}"] .card-head`).hover();
    await frame.locator(`.card[data-session-id="${id}"] .actions button.action-${action}`).click();
  }

  /** Focuses the session's card (its tab stop) and presses `key` (Playwright name). */
  async pressOnCard(id: string, key: string): Promise<void> {
    const frame = await this.frame();
    const card = frame.locator(`.card[data-session-id="${id}"]`);
    await card.focus();
    await card.press(key);
  }

  /** Collapses or expands the "Other Workspaces" section. */
  async toggleOthers(): Promise<void> {
    const frame = await this.frame();
    await frame.locator('.section-heading.collapsible').click();
  }
}
