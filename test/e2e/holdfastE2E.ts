// HoldfastE2E: what every scenario file sets up (one isolation, one code-server, one browser), and the
// shell and tab conventions the scenarios share.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before } from 'node:test';
import { withArtifacts } from './artifacts';
import { CodeServer } from './codeServer';
import { Isolation, type SessionView } from './isolation';
import type { TerminalTab } from './terminals';
import { safeName, trace, waitFor } from './utilities';
import { Workbench } from './workbench';

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
  'no terminal tab besides the restored Holdfast ones (VS Code opens its default shell when it finds no terminal ' +
  'at startup, before Holdfast restores its tabs)';

export interface HoldfastE2EOptions {
  name: string;
  settings?: Record<string, unknown>;
  extensionPath?: string | null;
  serverArgs?: string[];
  /** A temp HOME for code-server, the extension host, the daemon and the CLI (Isolation.home). */
  isolatedHome?: boolean;
  /** More environment for code-server, and so the extension host and the daemon it starts (test hooks). */
  env?: Record<string, string>;
  /** Other extension folders installed beside Holdfast (e.g. one that drives its terminals). */
  extraExtensions?: string[];
  /** 'all': every built-in extension of VS Code (git, emmet, ...), as a user has them; default: the themes only. */
  builtinExtensions?: 'all';
}

export interface ScenarioOptions extends HoldfastE2EOptions {
  /** Runs after the world is disposed (e.g. removes the file's stand-in binaries). */
  cleanup?(): void;
}

/**
 * A scenario file's (or describe block's) before and after: starts its HoldfastE2E, hands it to
 * `started` (which may set up more with it), and disposes it after the last test.
 */
export function scenarioHooks(opts: ScenarioOptions, started: (e2e: HoldfastE2E) => unknown): void {
  let e2e: HoldfastE2E | undefined;
  before(async () => {
    e2e = await HoldfastE2E.start(opts);
    await started(e2e);
  });
  after(async () => {
    await e2e?.dispose();
    opts.cleanup?.();
  });
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
    this.iso = new Isolation(opts.name, { home: opts.isolatedHome });
    this.server = new CodeServer({
      name: opts.name,
      env: { ...opts.env, ...this.iso.env, HISTFILE: '/dev/null' },
      settings: { ...E2E_SETTINGS, ...(opts.settings ?? {}) },
      extensionPath: opts.extensionPath,
      args: opts.serverArgs,
      builtinExtensions: opts.builtinExtensions,
    });
    for (const folder of opts.extraExtensions ?? []) this.server.installExtension(folder);
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

  /**
   * Opens the workspace `name` that several scenes of a file share, a page load less for each after the first: in
   * the window that has it open already, the sessions of the scene before are removed with their tabs, its
   * notifications cleared and the side bar shows the Explorer, so the next starts as in a fresh window (where a click
   * on Holdfast's icon opens its view, not closes it).
   */
  async openShared(name: string): Promise<void> {
    const folder = this.workspace(name);
    if (this.wb.folder !== folder) return this.open(folder);
    for (const session of this.iso.sessions()) {
      const removed = this.iso.cli(['kill', session.id, '--remove']);
      if (removed.code !== 0) throw new Error(`holdfast kill ${session.id} --remove: ${removed.stderr}`);
    }
    await this.wb.waitForHoldfastTabs([], { settleMs: 0 });
    await this.wb.runCommand('Notifications: Clear All Notifications');
    await this.wb.runCommand('View: Show Explorer');
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
