// CodeServer: the VS Code server (workbench + extension host), started on a loopback port with a
// fresh user-data dir and extensions dir, and stopped as a real editor quit would be.
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  ARTIFACTS_DIR,
  BASE_SETTINGS,
  BUILTIN_EXTENSIONS_DIR,
  CODE_SERVER_ENTRY,
  CODE_SERVER_NODE,
  E2E_BUILTIN_EXTENSIONS,
  REPO_ROOT,
} from './environment';
import { allProcs, isAlive, kill, type ProcInfo, processTree } from './processes';
import { freePort, makeTempDir, safeName, sleep, waitFor } from './utilities';

/** What an installed extension holds as copies, not links (see installExtension). */
const COPIED_ENTRIES = new Set(['package.json', 'dist']);

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
  /**
   * 'all': every built-in extension of VS Code, as a user has them (HOLDFAST_E2E_BUILTINS=all: in every file).
   * Default: only E2E_BUILTIN_EXTENSIONS.
   */
  builtinExtensions?: 'all';
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
  /** The built-in extensions dir code-server is given (a subset of VS Code's), or undefined for all of them. */
  private readonly builtinDir: string | undefined;
  /** Workspace trust on (Restricted Mode for a folder not trusted yet): set by the settings. */
  private readonly workspaceTrust: boolean;

  constructor(opts: CodeServerOptions = {}) {
    if (!fs.existsSync(CODE_SERVER_NODE) || !fs.existsSync(CODE_SERVER_ENTRY)) {
      throw new Error(`code-server is not installed (${CODE_SERVER_ENTRY}); run: bash scripts/setup-e2e.sh`);
    }
    this.dir = makeTempDir(safeName(opts.name ?? 'code-server'));
    this.userDataDir = path.join(this.dir, 'user-data');
    this.extensionsDir = path.join(this.dir, 'extensions');
    this.browserProfileDir = path.join(this.dir, 'browser-profile');
    this.logFile = path.join(this.dir, 'code-server.log');
    fs.mkdirSync(path.join(this.userDataDir, 'User'), { recursive: true });
    fs.mkdirSync(this.extensionsDir, { recursive: true });
    const settings = { ...BASE_SETTINGS, ...(opts.settings ?? {}) };
    this.writeSettings(settings);
    this.workspaceTrust = settings['security.workspace.trust.enabled'] === true;
    this.env = opts.env ?? {};
    this.extraArgs = opts.args ?? [];
    const ext = opts.extensionPath === undefined ? REPO_ROOT : opts.extensionPath;
    if (ext) this.installExtension(ext);
    if (opts.builtinExtensions !== 'all' && process.env.HOLDFAST_E2E_BUILTINS !== 'all') {
      this.builtinDir = path.join(this.dir, 'builtin-extensions');
      fs.mkdirSync(this.builtinDir);
      for (const name of E2E_BUILTIN_EXTENSIONS) {
        fs.symlinkSync(path.join(BUILTIN_EXTENSIONS_DIR, name), path.join(this.builtinDir, name));
      }
    }
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

  /**
   * The user's settings. code-server runs the extension host on its server, as a remote does: there a
   * machine-scoped setting is read from the Machine settings, not the User ones, so both get them.
   */
  writeSettings(settings: Record<string, unknown>): void {
    for (const scope of ['User', 'Machine']) {
      fs.mkdirSync(path.join(this.userDataDir, scope), { recursive: true });
      fs.writeFileSync(path.join(this.userDataDir, scope, 'settings.json'), JSON.stringify(settings, null, 2));
    }
  }

  /**
   * Installs an extension folder as `publisher.name-version` (taken from its package.json unless `version`
   * is given) in the extensions dir: links to the folder's entries, but copies of package.json (VS Code
   * 1.96 writes what it learns of an extension, `__metadata`, into it) and dist/ (the extension host tells
   * which extension calls its API by the path of the calling code, which must lie inside the extension).
   * The folder is made beside the extensions dir and renamed into it whole: a running VS Code scans a new
   * folder there as soon as it appears, and one without its package.json yet is never scanned again.
   * Returns the installed folder's path.
   */
  installExtension(folder: string, opts: { version?: string } = {}): string {
    const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8')) as {
      publisher: string;
      name: string;
      version: string;
    };
    const id = `${manifest.publisher}.${manifest.name}-${opts.version ?? manifest.version}`.toLowerCase();
    const installed = path.join(this.extensionsDir, id);
    const staging = fs.mkdtempSync(path.join(this.dir, `install-${id}-`));
    for (const entry of fs.readdirSync(folder)) {
      const from = path.resolve(folder, entry);
      if (COPIED_ENTRIES.has(entry)) fs.cpSync(from, path.join(staging, entry), { recursive: true });
      else fs.symlinkSync(from, path.join(staging, entry));
    }
    fs.rmSync(installed, { recursive: true, force: true });
    fs.renameSync(staging, installed);
    return installed;
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
      ...(this.workspaceTrust ? [] : ['--disable-workspace-trust']),
      '--disable-getting-started-override',
      ...(this.builtinDir ? ['--builtin-extensions-dir', this.builtinDir] : []),
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
    env.PATH = `${path.dirname(CODE_SERVER_NODE)}:${env.PATH ?? '/usr/bin:/bin'}`;
    env.SHELL = env.SHELL || '/bin/bash';
    for (const [key, value] of Object.entries(this.env)) {
      if (value === undefined) delete env[key];
      else env[key] = value;
    }
    const log = fs.openSync(this.logFile, 'a');
    fs.writeSync(log, `\n==== start ${new Date().toISOString()} port ${this.port}\n`);
    const child = spawn(CODE_SERVER_NODE, args, { env, cwd: this.dir, stdio: ['ignore', log, log], detached: true });
    fs.closeSync(log);
    this.child = child;
    // Never leave an editor behind, even when a test process ends without its after() hooks.
    const killOnExit = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the process is already gone: nothing left to signal
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
        `code-server exited (${child.exitCode ?? child.signalCode}) before answering\n` +
          `--- ${this.logFile} (tail) ---\n${this.logTail()}`,
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
      // the process is already gone: nothing left to signal
    }
    const grace = opts.graceMs ?? 5_000;
    const done = await Promise.race([this.exited.then(() => true), sleep(grace).then(() => false)]);
    if (!done) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // the process is already gone: nothing left to signal
      }
    }
    for (const pid of toReap) if (isAlive(pid)) kill(pid, 'SIGKILL');
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // the group is empty already: nothing left to kill
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
      // the logs are a failure's aid: copying them must not fail the test
    }
    return dest;
  }

  /** Stops the server and removes its temp dir (unless keepDir). */
  async dispose(opts: { keepDir?: boolean } = {}): Promise<void> {
    await this.stop();
    if (!opts.keepDir) fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
