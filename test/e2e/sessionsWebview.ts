// Holdfast's sessions webview (the sidebar and the wall of screens), read and clicked as a user does.
import type { Frame } from 'playwright-core';
import { trace, waitFor } from './utilities';
import type { Workbench } from './workbench';

/** Shows Holdfast's Sessions view (its activity-bar icon), as a user does. */
export async function openSidebar(wb: Workbench): Promise<void> {
  const page = wb.page;
  const icon = page.locator('.part.activitybar .action-item a.action-label[aria-label^="Holdfast"]').first();
  await icon.click({ timeout: 15_000 });
  // Off the icon at once: its tooltip, shown later, would lie over the cards (see clickAction).
  await page.mouse.move(1, 1);
  await page.waitForSelector(
    [
      '.part.sidebar .pane-header[aria-label^="Sessions"]',
      '.part.sidebar .title-label h2[title^="Holdfast"]',
      '.part.sidebar .composite.title',
    ].join(', '),
    { timeout: 15_000 },
  );
  trace('sidebar open');
}

/** Longer than the workbench's hover delay: a tooltip on its way has shown by then. */
const TOOLTIP_DELAY_MS = 1_000;

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
    return frame.evaluate<T | undefined>(
      `(() => { const card = document.querySelector(${selector}); ` +
        `return card ? (${fn.toString()})(card) : undefined; })()`,
    );
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

  /** The card's branch line (a session in a git worktree), if it shows one. */
  async branch(id: string): Promise<string | undefined> {
    return this.card(id, (card) => {
      const line = card.querySelector<HTMLElement>('.branch');
      return line && !line.hidden ? (line.textContent ?? undefined) : undefined;
    });
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
    const page = this.wb.page;
    const tooltip = page.locator('.context-view .hover-contents');
    const head = frame.locator(`.card[data-session-id="${id}"] .card-head`);
    const button = frame.locator(`.card[data-session-id="${id}"] .actions button.action-${action}`);
    // A workbench tooltip (the activity bar's badge, the status bar's count) can lie over the card, and
    // stays while the pointer is on it: once it stayed 30 s, the pointer moved onto it to reach the card.
    // The pointer rests off everything past a hover's delay first, and the whole move is tried again.
    for (let attempt = 1; ; attempt++) {
      await page.mouse.move(1, 1);
      await page.waitForTimeout(TOOLTIP_DELAY_MS);
      try {
        await tooltip.waitFor({ state: 'hidden', timeout: 5_000 });
        // The buttons show on hover or focus, as in VS Code's own lists.
        await head.hover({ timeout: 5_000 });
        await button.click({ timeout: 5_000 });
        return;
      } catch (err) {
        if (attempt === 3) throw err;
        trace(`clicking ${action} on ${id}: ${(err as Error).message.split('\n')[0]}; again`);
      }
    }
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
