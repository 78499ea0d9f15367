// What VS Code draws from a shell's integration in the visible terminal: each command's decoration (a
// circle, success or error) and the row it is on, the highlight Go to Previous Command (ctrl+up) puts on
// a command, and sticky scroll's pinned command line.
import type { Page } from 'playwright-core';
import { waitFor } from './utilities';

export interface Decoration {
  kind: 'success' | 'error';
  /** The text of the row it is beside. */
  row: string;
}

/** The visible terminal's xterm element (the panel's active one, or a terminal editor's). */
const XTERM =
  '.editor-group-container.active .editor-instance .terminal-wrapper.active .xterm, ' +
  '.part.panel .terminal-wrapper.active .xterm';

/** The rows' text at the vertical middle of each element matching `selector` inside the visible terminal. */
function rowsAt(page: Page, selector: string): Promise<{ classes: string; row: string }[]> {
  return page.$$eval(
    XTERM,
    (xterms, sel) => {
      const xterm = xterms.find((el) => (el as HTMLElement).offsetParent !== null);
      if (!xterm) return [];
      const rows = Array.from(xterm.querySelectorAll('.xterm-rows > div')).map((row) => ({
        rect: row.getBoundingClientRect(),
        text: (row.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd(),
      }));
      return Array.from(xterm.querySelectorAll(sel))
        .filter((el) => (el as HTMLElement).offsetParent !== null && getComputedStyle(el).display !== 'none')
        .map((el) => {
          const rect = el.getBoundingClientRect();
          const middle = rect.top + rect.height / 2;
          const row = rows.find((r) => middle >= r.rect.top && middle < r.rect.bottom);
          return { classes: el.className, row: row?.text ?? '' };
        });
    },
    selector,
  );
}

/** The command decorations VS Code shows in the visible terminal, top to bottom, with their rows. */
export async function commandDecorations(page: Page): Promise<Decoration[]> {
  const found = await rowsAt(page, '.terminal-command-decoration');
  return found
    .map(({ classes, row }) => ({
      kind: /decoration-error/.test(classes)
        ? ('error' as const)
        : /decoration-success/.test(classes)
          ? ('success' as const)
          : undefined,
      row,
    }))
    .filter((d): d is Decoration => d.kind !== undefined);
}

/** Waits until the decorations include every one of `expected` (row patterns), in order. */
export async function waitForDecorations(
  page: Page,
  expected: { kind: Decoration['kind']; row: RegExp }[],
  timeout = 30_000,
): Promise<Decoration[]> {
  let last: Decoration[] = [];
  const holds = (decorations: Decoration[]) => {
    let at = 0;
    for (const d of decorations)
      if (at < expected.length && d.kind === expected[at].kind && expected[at].row.test(d.row)) at++;
    return at === expected.length;
  };
  try {
    return await waitFor(async () => (holds((last = await commandDecorations(page))) ? last : undefined), {
      timeout,
      message: 'the decorations',
    });
  } catch (err) {
    throw new Error(`${(err as Error).message}; shown: ${JSON.stringify(last)}`, { cause: err });
  }
}

/** The row Go to Previous / Next Command highlights, when it does. */
export async function highlightedRow(page: Page): Promise<string | undefined> {
  const found = await rowsAt(page, '.terminal-scroll-highlight');
  return found[0]?.row;
}

/** The command line sticky scroll pins at the top of the visible terminal, if it shows one. */
export async function stickyScrollText(page: Page): Promise<string | undefined> {
  return page.$$eval('.terminal-sticky-scroll', (els) => {
    const shown = els.find((el) => (el as HTMLElement).offsetParent !== null);
    const rows = shown ? Array.from(shown.querySelectorAll('.xterm-rows > div')) : [];
    const text = rows.map((row) => (row.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd()).join('\n');
    return text || undefined;
  });
}

/** Focuses the visible terminal by a click near its bottom (sticky scroll covers its top row). */
export async function focusTerminalBottom(page: Page): Promise<void> {
  const xterm = page.locator(XTERM).filter({ visible: true }).first();
  await xterm.waitFor({ state: 'visible', timeout: 15_000 });
  const box = (await xterm.boundingBox())!;
  await xterm.click({ position: { x: 40, y: box.height - 8 } });
  await waitFor(() => page.evaluate(() => !!document.activeElement?.classList.contains('xterm-helper-textarea')), {
    timeout: 5_000,
    message: 'the terminal to take focus',
  });
}
