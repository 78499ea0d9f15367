// Terminals in a VS Code window, as a user sees them: the panel's tabs, editor tabs (terminal editors),
// the visible terminal's rendered text and keyboard; and the text of the panel's Output view.
import type { Page } from 'playwright-core';
import { runCommand } from './quickInput';
import { escapeRegExp, sleep, waitFor } from './utilities';

export interface TerminalTab {
  name: string;
  active: boolean;
  /** Shown with Holdfast's icon (codicon "pinned"); VS Code's own shells have another. Panel tabs only. */
  holdfast?: boolean;
}

/** The terminal panel's tabs, in order, with which is active. */
export async function terminalTabs(page: Page): Promise<TerminalTab[]> {
  // Each tab is a `.terminal-tabs-entry` (the active one has `is-active`); the list also holds
  // an entry for hidden chat terminals, which has no icon label.
  return page.$$eval('.part.panel .terminal-tabs-entry', (entries) =>
    entries
      .filter((entry) => entry.querySelector('.monaco-icon-label .label-name'))
      .map((entry) => ({
        name: (entry.querySelector('.monaco-icon-label .label-name')?.textContent ?? '').trim(),
        active: entry.classList.contains('is-active'),
        holdfast: !!entry.querySelector('.codicon-pinned'),
      })),
  );
}

function tabEntry(page: Page, name: string) {
  return page
    .locator('.part.panel .terminal-tabs-entry')
    .filter({
      has: page.locator('.monaco-icon-label .label-name', {
        hasText: new RegExp(`^\\s*${escapeRegExp(name)}\\s*$`),
      }),
    })
    .first();
}

/** Clicks a terminal tab in the panel's tab list, making it the active terminal. */
export async function clickTerminalTab(page: Page, name: string): Promise<void> {
  await tabEntry(page, name).click();
  await waitFor(async () => (await terminalTabs(page)).find((t) => t.name === name)?.active, {
    timeout: 10_000,
    message: `tab "${name}" to be active`,
  });
}

/** Closes a terminal tab with its trash icon ("Kill Terminal"), as a user does. */
export async function trashTerminalTab(page: Page, name: string): Promise<void> {
  const entry = tabEntry(page, name);
  await entry.hover();
  await entry.locator('.action-label.codicon-trashcan, .action-label.codicon-trash').first().click();
}

/**
 * Waits until the panel's Holdfast tabs are exactly `expected` (names in order; `active` checked
 * when given), and still are after `settleMs` (a late duplicate would show up by then).
 * Returns every panel tab, Holdfast's and others.
 */
export async function waitForHoldfastTabs(
  page: Page,
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
  const check = async () => matches((last = await terminalTabs(page)));
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
export async function editorTabs(page: Page): Promise<TerminalTab[]> {
  return page.$$eval('.part.editor .editor-group-container .tab', (tabs) =>
    tabs.map((tab) => ({
      name: (tab.getAttribute('aria-label') || tab.querySelector('.label-name')?.textContent || '').trim(),
      active: tab.classList.contains('active'),
    })),
  );
}

/** Shows the terminal panel (without creating a terminal). */
export async function showTerminalPanel(page: Page): Promise<void> {
  if (!(await page.isVisible('.part.panel .integrated-terminal'))) await runCommand(page, 'View: Toggle Terminal');
  await page.waitForSelector('.part.panel .integrated-terminal', { state: 'visible', timeout: 15_000 });
}

/** The xterm of the terminal the user sees (editor area first if a terminal editor is active). */
function activeXterm(page: Page) {
  return page
    .locator(
      [
        '.editor-group-container.active .editor-instance .terminal-wrapper.active .xterm',
        '.part.panel .terminal-groups-container .terminal-group:not([style*="display: none"])' +
          ' .terminal-wrapper.active .xterm',
        '.part.panel .terminal-wrapper.active .xterm',
      ].join(', '),
    )
    .filter({ visible: true })
    .first();
}

/** Focuses the visible terminal (a click in it, as a user would). */
export async function focusTerminal(page: Page): Promise<void> {
  const xterm = activeXterm(page);
  await xterm.waitFor({ state: 'visible', timeout: 15_000 });
  await xterm.click({ position: { x: 40, y: 10 } });
  await waitFor(() => page.evaluate(() => !!document.activeElement?.classList.contains('xterm-helper-textarea')), {
    timeout: 5_000,
    message: 'the terminal to take focus',
  });
}

/** Types into the visible terminal; "\n" presses Enter. */
export async function typeInTerminal(page: Page, text: string): Promise<void> {
  await focusTerminal(page);
  const parts = text.split('\n');
  for (let i = 0; i < parts.length; i++) {
    if (parts[i]) await page.keyboard.type(parts[i]);
    if (i < parts.length - 1) await page.keyboard.press('Enter');
  }
}

/** Presses a key (Playwright name, e.g. "Control+C") in the visible terminal. */
export async function pressInTerminal(page: Page, key: string): Promise<void> {
  await focusTerminal(page);
  await page.keyboard.press(key);
}

/** The visible terminal's rows as rendered (DOM renderer). */
export async function terminalText(page: Page): Promise<string> {
  const xterm = activeXterm(page);
  if (!(await xterm.count())) return '';
  return xterm.evaluate((el) =>
    Array.from(el.querySelectorAll('.xterm-rows > div'))
      .map((row) => (row.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd())
      .join('\n'),
  );
}

/** The CSS classes of the rendered text run holding `text` in the visible terminal (e.g. "xterm-fg-1" for red). */
export async function terminalTextClasses(page: Page, text: string): Promise<string | undefined> {
  const xterm = activeXterm(page);
  if (!(await xterm.count())) return undefined;
  return xterm.evaluate((el, wanted) => {
    const spans = Array.from(el.querySelectorAll('.xterm-rows span'));
    const hit = spans.find((s) => (s.textContent ?? '').replace(/\u00a0/g, ' ').includes(wanted));
    return hit ? hit.className : undefined;
  }, text);
}

export async function waitForTerminalText(page: Page, pattern: RegExp | string, timeout = 20_000): Promise<string> {
  return waitFor(
    async () => {
      const text = await terminalText(page);
      return (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text)) ? text : undefined;
    },
    { timeout, message: `the terminal to show ${String(pattern)}` },
  );
}

/** The text the panel's Output view shows now (its visible lines). */
export async function outputText(page: Page): Promise<string> {
  return page
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
