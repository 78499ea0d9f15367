// The quick input of a VS Code window: the command palette, quick picks and input boxes.
import type { Page } from 'playwright-core';
import { trace, waitFor } from './utilities';

const QUICK_INPUT = '.quick-input-widget';
const QUICK_INPUT_BOX = '.quick-input-widget .quick-input-box input';

/** Opens the command palette (F1), types `title`, picks the entry whose label is exactly `title`. */
export async function runCommand(page: Page, title: string, opts: { timeout?: number } = {}): Promise<void> {
  const timeout = opts.timeout ?? 60_000;
  trace(`runCommand ${title}`);
  let attempt = 0;
  await waitFor(
    async () => {
      attempt++;
      try {
        await closeQuickInput(page);
        await page.keyboard.press('F1');
        await page.waitForSelector(QUICK_INPUT_BOX, { state: 'visible', timeout: 10_000 });
        await page.fill(QUICK_INPUT_BOX, `>${title}`);
        // The list filters as typed; a contributed command may appear only once registered.
        return await waitFor(() => clickQuickPickRow(page, title), {
          timeout: 10_000,
          message: `"${title}" in the command palette`,
        });
      } catch (err) {
        const rows = await page
          .$$eval(`${QUICK_INPUT} .quick-input-list .monaco-list-row .label-name`, (els) =>
            els.map((e) => (e.textContent ?? '').trim()),
          )
          .catch(() => []);
        trace(
          `runCommand ${title}: attempt ${attempt} failed: ${(err as Error).message.split('\n')[0]}; ` +
            `rows: ${JSON.stringify(rows.slice(0, 5))}`,
        );
        throw err;
      }
    },
    { timeout, interval: 500, message: `the command "${title}"` },
  );
  trace(`ran ${title}`);
}

/** Clicks the quick pick row whose label is `label` (exactly, or matching a RegExp). */
async function clickQuickPickRow(page: Page, label: string | RegExp): Promise<boolean> {
  const rows = page.locator(`${QUICK_INPUT} .quick-input-list .monaco-list-row`);
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
      // The pointer resting on another row shows that row's hover (its detail), which can cover this one on a slow
      // machine: move it off the list first; a click still covered fails fast and the caller's poll tries again.
      await page.mouse.move(0, 0);
      await row.click({ timeout: 5_000 });
      return true;
    }
  }
  return false;
}

/** The labels of the rows in the open quick pick. */
export async function quickPickItems(page: Page): Promise<string[]> {
  await page.waitForSelector(`${QUICK_INPUT} .quick-input-list`, { state: 'visible', timeout: 15_000 });
  return page.$$eval(`${QUICK_INPUT} .quick-input-list .monaco-list-row .label-name`, (els) =>
    els.map((e) => (e.textContent ?? '').trim()),
  );
}

/** The rows of the open quick pick: each one's label and description (the grey text beside it). */
export async function quickPickRows(page: Page): Promise<{ label: string; description: string }[]> {
  await page.waitForSelector(`${QUICK_INPUT} .quick-input-list`, { state: 'visible', timeout: 15_000 });
  return page.$$eval(`${QUICK_INPUT} .quick-input-list .monaco-list-row`, (rows) =>
    rows.map((row) => ({
      label: (row.querySelector('.label-name')?.textContent ?? '').trim(),
      description: (row.querySelector('.label-description')?.textContent ?? '').trim(),
    })),
  );
}

/** In an open quick pick (e.g. "Attach to Session…"), picks the item with this label. */
export async function pickQuickItem(page: Page, label: string | RegExp, timeout = 15_000): Promise<void> {
  await waitFor(() => clickQuickPickRow(page, label), { timeout, message: `quick pick item ${String(label)}` });
}

/** Types into an open input box (e.g. "Rename Session") and presses Enter. */
export async function answerInputBox(page: Page, text: string, timeout = 15_000): Promise<void> {
  await page.waitForSelector(QUICK_INPUT_BOX, { state: 'visible', timeout });
  await page.fill(QUICK_INPUT_BOX, text);
  await page.keyboard.press('Enter');
  await page.waitForSelector(QUICK_INPUT, { state: 'hidden', timeout }).catch(() => undefined);
}

export async function closeQuickInput(page: Page): Promise<void> {
  if (!(await page.isVisible(QUICK_INPUT))) return;
  // Escape goes where the focus is: while a picked quick input closes, focus is back in the terminal, whose
  // program then reads an ESC (bash took the next key typed there, hosts.test.ts's "e" of "echo", as Meta-e).
  const focused = await page.evaluate((sel) => !!document.activeElement?.closest(sel), QUICK_INPUT);
  if (focused) await page.keyboard.press('Escape');
  else trace('closeQuickInput: the quick input is visible and the focus elsewhere: no Escape');
  await page.waitForSelector(QUICK_INPUT, { state: 'hidden', timeout: 5_000 }).catch(() => undefined);
}
