// The echo of a key in the focused terminal, timed where the person sees it: from the key's keydown in the page
// to the first animation frame whose rows show it. The e2e (flow.test.ts) and the bench (bench/vscodeEcho.ts).
import type { Page } from 'playwright-core';

/** The key typed: `seq` prints none, nor does a prompt here. */
export const ECHO_KEY = 'j';

/** How many ECHO_KEYs the focused terminal's rows show. */
export function keysShown(page: Page): Promise<number> {
  return page.evaluate((key) => {
    const xterm = document.activeElement?.closest('.xterm');
    return (xterm?.querySelector('.xterm-rows')?.textContent ?? '').split(key).length - 1;
  }, ECHO_KEY);
}

/**
 * Types ECHO_KEY into the focused terminal and resolves, in ms, how long after its keydown the rows first showed
 * `count` of them; undefined when they did not within `timeoutMs`.
 */
export async function echoOnce(page: Page, count: number, timeoutMs: number): Promise<number | undefined> {
  await noteKeydowns(page);
  await page.keyboard.press(ECHO_KEY);
  const seen = await page
    .waitForFunction(
      ([key, n]) => {
        const xterm = document.activeElement?.closest('.xterm');
        const text = xterm?.querySelector('.xterm-rows')?.textContent ?? '';
        return text.split(key as string).length - 1 >= (n as number) ? performance.now() : 0;
      },
      [ECHO_KEY, count],
      { polling: 'raf', timeout: timeoutMs },
    )
    .then((handle) => handle.jsonValue())
    .catch(() => undefined);
  return seen === undefined ? undefined : seen - (await lastKeydown(page));
}

/** From now on the page notes when each key goes down (lastKeydown). */
export async function noteKeydowns(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __echoDown?: number; __echoProbe?: boolean };
    if (w.__echoProbe) return;
    w.__echoProbe = true;
    document.addEventListener('keydown', () => (w.__echoDown = performance.now()), true);
  });
}

/** When the last key went down, on the page's clock (performance.now()). */
export function lastKeydown(page: Page): Promise<number> {
  return page.evaluate(() => (window as unknown as { __echoDown: number }).__echoDown);
}
