// `npm run bench:window`: a window load that restores 10 terminals of 10,000 coloured lines each,
// Holdfast's and VS Code's own persistent terminals side by side, in code-server through the e2e
// harness. Not a test: it prints a table row, as `npm run bench` does.
//   HOLDFAST_BENCH_TERMINALS=N   terminals per window (10)
//   HOLDFAST_BENCH_LOADS=N       window reloads measured per product (3)
//   HOLDFAST_BENCH_ONLY=holdfast  Holdfast's loads only (no VS Code column)
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HoldfastE2E, type Workbench, waitFor } from '../test/e2e/harness';
import { lastScrollLine, makeFiles } from './rows';
import { median } from './util';

const TERMINALS = Number(process.env.HOLDFAST_BENCH_TERMINALS ?? 10);
const LOADS = Number(process.env.HOLDFAST_BENCH_LOADS ?? 3);

/** Both products keep (and VS Code restores) the whole 10,000 lines. */
const SETTINGS = {
  'terminal.integrated.scrollback': 10_000,
  'terminal.integrated.enablePersistentSessions': true,
  'terminal.integrated.persistentSessionScrollback': 10_000,
};

interface Load {
  /** Workbench ready (status bar and editor part rendered) → the active terminal shows its last line. */
  firstScreenMs: number;
  /** Workbench ready → every tab, clicked through in order, has shown its last line. */
  allTabsMs: number;
}

/**
 * Runs in the page from its first script on: each animation frame it notes when the workbench is
 * ready and when the visible terminal first shows `marker` (performance.now(), the page's clock).
 */
function installProbe(marker: string): void {
  const probe = { ready: 0, firstTab: 0, firstXterm: 0, firstScreen: 0 };
  (window as unknown as { __holdfastLoad: typeof probe }).__holdfastLoad = probe;
  const tick = () => {
    if (
      !probe.ready &&
      document.querySelector('.monaco-workbench .part.statusbar') &&
      document.querySelector('.monaco-workbench .part.editor')
    )
      probe.ready = performance.now();
    if (probe.ready && !probe.firstTab && document.querySelector('.part.panel .terminal-tabs-entry .label-name'))
      probe.firstTab = performance.now();
    if (probe.ready && !probe.firstXterm && document.querySelector('.part.panel .terminal-wrapper.active .xterm-rows'))
      probe.firstXterm = performance.now();
    if (probe.ready && !probe.firstScreen) {
      for (const rows of Array.from(document.querySelectorAll('.part.panel .terminal-wrapper.active .xterm-rows'))) {
        if ((rows.textContent ?? '').includes(marker)) probe.firstScreen = performance.now();
      }
    }
    if (!probe.firstScreen) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}

async function pageNow(wb: Workbench): Promise<number> {
  return wb.page.evaluate(() => performance.now());
}

/**
 * Clicks the `index`th terminal tab (VS Code's own terminals all have the same name) and waits,
 * checking every animation frame in the page, until the visible terminal shows `marker`.
 */
async function showTab(wb: Workbench, index: number, marker: string): Promise<void> {
  const entries = wb.page
    .locator('.part.panel .terminal-tabs-entry')
    .filter({ has: wb.page.locator('.monaco-icon-label .label-name') });
  await entries.nth(index).click();
  await wb.page.waitForFunction(
    ([i, m]) => {
      const tabs = Array.from(document.querySelectorAll('.part.panel .terminal-tabs-entry')).filter((e) =>
        e.querySelector('.monaco-icon-label .label-name'),
      );
      if (!tabs[i as number]?.classList.contains('is-active')) return false;
      return Array.from(document.querySelectorAll('.part.panel .terminal-wrapper.active .xterm-rows')).some((rows) =>
        (rows.textContent ?? '').includes(m as string),
      );
    },
    [index, marker],
    { polling: 'raf', timeout: 60_000 },
  );
}

async function measureLoad(e2e: HoldfastE2E, tabs: number, marker: string): Promise<Load> {
  const wb = e2e.wb;
  await wb.reloadWindow();
  const probe = await waitFor(
    async () => {
      const p = await wb.page.evaluate(
        () =>
          (
            window as unknown as {
              __holdfastLoad?: { ready: number; firstTab: number; firstXterm: number; firstScreen: number };
            }
          ).__holdfastLoad,
      );
      return p && p.firstScreen ? p : undefined;
    },
    { timeout: 120_000, message: 'the first terminal to show its last line', interval: 20 },
  );
  await waitFor(async () => (await wb.terminalTabs()).length >= tabs, {
    timeout: 60_000,
    message: `${tabs} terminal tabs`,
  });
  const active = (await wb.terminalTabs()).findIndex((tab) => tab.active);
  const perTab: number[] = [];
  for (let i = 0; i < tabs; i++) {
    if (i === active) continue;
    const clicked = await pageNow(wb);
    await showTab(wb, i, marker);
    perTab.push((await pageNow(wb)) - clicked);
  }
  process.stderr.write(
    `[bench-window] each tab, click → its screen: ${perTab.map((ms) => ms.toFixed(0)).join(', ')} ms\n`,
  );
  const allShown = await pageNow(wb);
  const since = (t: number) => (t ? `${(t - probe.ready).toFixed(0)} ms` : '–');
  process.stderr.write(
    `[bench-window] after ready: first tab listed ${since(probe.firstTab)}, ` +
      `its xterm ${since(probe.firstXterm)}, its screen ${since(probe.firstScreen)}\n`,
  );
  return { firstScreenMs: probe.firstScreen - probe.ready, allTabsMs: allShown - probe.ready };
}

const failures = { holdfast: 0, vscode: 0 };

async function product(kind: 'holdfast' | 'vscode', scrollFile: string, marker: string): Promise<Load[]> {
  const e2e = await HoldfastE2E.start({ name: `bench-window-${kind}`, settings: SETTINGS });
  try {
    await e2e.wb.context.addInitScript(installProbe, marker);
    await e2e.open(e2e.workspace(kind));
    const wb = e2e.wb;
    for (let i = 0; i < TERMINALS; i++) {
      if (kind === 'holdfast') await e2e.newTerminal();
      else {
        const before = (await wb.terminalTabs()).length;
        await wb.runCommand('Terminal: Create New Terminal');
        await waitFor(async () => (await wb.terminalTabs()).length > before, {
          timeout: 30_000,
          message: 'a new VS Code terminal tab',
        });
      }
      await wb.typeInTerminal(`clear; cat ${scrollFile}\n`);
      await wb.waitForTerminalText(marker, 60_000);
      process.stderr.write(`[bench-window] ${kind}: terminal ${i + 1} of ${TERMINALS} filled\n`);
    }
    const tabs = (await wb.terminalTabs()).length;
    const loads: Load[] = [];
    for (let i = 0; i < LOADS; i++) {
      try {
        const load = await measureLoad(e2e, tabs, marker);
        process.stderr.write(
          `[bench-window] ${kind}: load ${i + 1}: ` +
            `first screen ${load.firstScreenMs.toFixed(0)} ms, every tab ${load.allTabsMs.toFixed(0)} ms\n`,
        );
        loads.push(load);
      } catch (err) {
        // VS Code's own revival once came back without a terminal's content: counted, not fatal.
        process.stderr.write(`[bench-window] ${kind}: load ${i + 1} failed: ${(err as Error).message}\n`);
        failures[kind]++;
      }
    }
    return loads;
  } finally {
    await e2e.dispose();
  }
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hf-bench-window-'));
  try {
    const files = makeFiles(dir, 1);
    const marker = lastScrollLine(files);
    const holdfast = await product('holdfast', files.scrollFile, marker);
    const vscode =
      process.env.HOLDFAST_BENCH_ONLY === 'holdfast' ? [] : await product('vscode', files.scrollFile, marker);
    const m = (loads: Load[], key: keyof Load) => (loads.length > 0 ? median(loads.map((l) => l[key])) : NaN);
    const hfFirst = m(holdfast, 'firstScreenMs');
    const hfAll = m(holdfast, 'allTabsMs');
    const vsFirst = m(vscode, 'firstScreenMs');
    const vsAll = m(vscode, 'allTabsMs');
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
    console.log(
      `| window load, ${TERMINALS} terminals × 10k lines | Holdfast | VS Code persistent terminals ` +
        '| ratio | target | met |',
    );
    console.log('|---|---|---|---|---|---|');
    console.log(
      `| workbench ready → first terminal's screen | ${hfFirst.toFixed(0)} ms | ${vsFirst.toFixed(0)} ms ` +
        `| ${ratio(hfFirst, vsFirst)} | ≤ 1500 ms | ${hfFirst <= 1500 ? 'yes' : 'NO'} |`,
    );
    console.log(
      `| workbench ready → every tab shown (clicked through) | ${hfAll.toFixed(0)} ms | ${vsAll.toFixed(0)} ms ` +
        `| ${ratio(hfAll, vsAll)} | ≤ 0.5× VS Code | ${hfAll <= vsAll / 2 ? 'yes' : 'NO'} |`,
    );
    console.log(
      `\nmedians of ${LOADS} reloads each (failed: Holdfast ${failures.holdfast}, VS Code ${failures.vscode}); ` +
        `${os.cpus()[0]?.model ?? 'cpu'}, ${os.cpus().length} cores, ` +
        `load average ${os
          .loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}; ${new Date().toISOString()}`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
