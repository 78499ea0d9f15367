// Workbench: a VS Code window in Chromium (playwright-core), its lifetime and reloads, notifications
// and dialogs. The command palette and the terminals are driven by quickInput.ts and terminals.ts;
// the methods here are the tests' one-line way to them.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import type { CodeServer } from './codeServer';
import { ARTIFACTS_DIR, CHROMIUM, CHROMIUM_ARGS, CHROMIUM_DISABLED_FEATURES } from './environment';
import { allProcs, kill } from './processes';
import * as quickInput from './quickInput';
import * as terminals from './terminals';
import type { TerminalTab } from './terminals';
import { safeName, trace, waitFor, writeExecutable } from './utilities';

const WORKBENCH = '.monaco-workbench';

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
      executablePath: chromiumWithFeatures(server.dir),
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

  // ---- the command palette, quick picks and input boxes (quickInput.ts)

  /** Opens the command palette (F1), types `title`, picks the entry whose label is exactly `title`. */
  runCommand(title: string, opts: { timeout?: number } = {}): Promise<void> {
    return quickInput.runCommand(this.page, title, opts);
  }

  /** The labels of the rows in the open quick pick. */
  quickPickItems(): Promise<string[]> {
    return quickInput.quickPickItems(this.page);
  }

  /** The rows of the open quick pick, with their descriptions. */
  quickPickRows(): Promise<{ label: string; description: string }[]> {
    return quickInput.quickPickRows(this.page);
  }

  /** In an open quick pick (e.g. "Attach to Session…"), picks the item with this label. */
  pickQuickItem(label: string | RegExp, timeout = 15_000): Promise<void> {
    return quickInput.pickQuickItem(this.page, label, timeout);
  }

  /** Types into an open input box (e.g. "Rename Session") and presses Enter. */
  answerInputBox(text: string, timeout = 15_000): Promise<void> {
    return quickInput.answerInputBox(this.page, text, timeout);
  }

  closeQuickInput(): Promise<void> {
    return quickInput.closeQuickInput(this.page);
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

  /**
   * Waits for the notification toast that contains `text` and keeps the mouse over it, as a user reading it
   * does: VS Code hides a toast with no mouse over it 15 s after it shows, and on a loaded machine a test's
   * checks between the toast and the click on its button can take longer than that.
   */
  async toast(text: string, timeout = 15_000): Promise<Locator> {
    const toast = this.page.locator('.notification-toast', { hasText: text });
    await toast.waitFor({ state: 'visible', timeout });
    await toast.hover();
    return toast;
  }

  /** The text of visible notifications and dialogs (toasts, modal dialogs). */
  async notifications(): Promise<string[]> {
    return this.page.$$eval(
      [
        '.notification-toast .notification-list-item-message',
        '.monaco-dialog-box .dialog-message-text',
        '.monaco-dialog-box .dialog-message-detail',
      ].join(', '),
      (els) => els.map((e) => (e.textContent ?? '').trim()).filter(Boolean),
    );
  }

  /** The visible modal dialog's message + detail, or undefined. */
  async dialogText(): Promise<string | undefined> {
    const box = this.page.locator('.monaco-dialog-box');
    if (!(await box.isVisible())) return undefined;
    return ((await box.textContent()) ?? '').trim();
  }

  // ---- terminals (terminals.ts)

  /** The terminal panel's tabs, in order, with which is active. */
  terminalTabs(): Promise<TerminalTab[]> {
    return terminals.terminalTabs(this.page);
  }

  /** Clicks a terminal tab in the panel's tab list, making it the active terminal. */
  clickTerminalTab(name: string): Promise<void> {
    return terminals.clickTerminalTab(this.page, name);
  }

  /** Closes a terminal tab with its trash icon ("Kill Terminal"), as a user does. */
  trashTerminalTab(name: string): Promise<void> {
    return terminals.trashTerminalTab(this.page, name);
  }

  /** The panel's Holdfast tabs, once they are exactly `expected` and stay so (see terminals.ts). */
  waitForHoldfastTabs(
    expected: { name: string; active?: boolean }[],
    opts: { timeout?: number; settleMs?: number } = {},
  ): Promise<TerminalTab[]> {
    return terminals.waitForHoldfastTabs(this.page, expected, opts);
  }

  /** Editor tabs' labels (files and editor-area terminals), in order, and which is active. */
  editorTabs(): Promise<TerminalTab[]> {
    return terminals.editorTabs(this.page);
  }

  /** Shows the terminal panel (without creating a terminal). */
  showTerminalPanel(): Promise<void> {
    return terminals.showTerminalPanel(this.page);
  }

  /** Focuses the visible terminal (a click in it, as a user would). */
  focusTerminal(): Promise<void> {
    return terminals.focusTerminal(this.page);
  }

  /** Types into the visible terminal; "\n" presses Enter. */
  typeInTerminal(text: string): Promise<void> {
    return terminals.typeInTerminal(this.page, text);
  }

  /** Presses a key (Playwright name, e.g. "Control+C") in the visible terminal. */
  pressInTerminal(key: string): Promise<void> {
    return terminals.pressInTerminal(this.page, key);
  }

  /** The visible terminal's rows as rendered (DOM renderer). */
  terminalText(): Promise<string> {
    return terminals.terminalText(this.page);
  }

  /** The CSS classes of the rendered text run holding `text` in the visible terminal (e.g. "xterm-fg-1" for red). */
  terminalTextClasses(text: string): Promise<string | undefined> {
    return terminals.terminalTextClasses(this.page, text);
  }

  waitForTerminalText(pattern: RegExp | string, timeout = 20_000): Promise<string> {
    return terminals.waitForTerminalText(this.page, pattern, timeout);
  }

  /** The text the panel's Output view shows now (its visible lines). */
  outputText(): Promise<string> {
    return terminals.outputText(this.page);
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

/**
 * Chromium started through a script that joins every --disable-features it is given (playwright's) and
 * CHROMIUM_DISABLED_FEATURES into one: Chromium would read only the last. exec: the browser keeps the script's pid.
 */
function chromiumWithFeatures(dir: string): string {
  const script = [
    '#!/bin/bash',
    `features=${CHROMIUM_DISABLED_FEATURES.join(',')}`,
    'args=()',
    'for arg in "$@"; do',
    '  case $arg in',
    '    --disable-features=*) features+=",${arg#--disable-features=}" ;;',
    '    *) args+=("$arg") ;;',
    '  esac',
    'done',
    `exec '${CHROMIUM.replace(/'/g, `'\\''`)}' "\${args[@]}" "--disable-features=$features"`,
  ];
  return writeExecutable(dir, 'chromium', `${script.join('\n')}\n`);
}
