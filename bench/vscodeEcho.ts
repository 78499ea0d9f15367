// `npm run bench:echo`: what the person sees while another terminal floods. In code-server (the e2e's
// harness), one window holds Holdfast terminals and VS Code's own terminals in the same layouts; a key is
// typed into one terminal and timed from its keydown in the page to the first animation frame whose rows
// show it, while another terminal of the same product runs `while :; do seq 1 200000; done`:
//   idle     nothing floods (each product's own floor)
//   hidden   the flood runs in another tab of the panel, not shown
//   split    the flood runs in a split beside the typed terminal, shown
//   preview  as hidden, with Holdfast's sidebar open (its preview of the flooding session shows)
// and one more row, flood: `seq 1 200000` in the shown terminal, from the Enter's keydown to the first frame
// showing its last line and the prompt after it (FLOODS_PER_ROUND of them per round).
// Rounds alternate which product goes first. Not a test: it prints table rows, as `npm run bench` does.
//   HOLDFAST_BENCH_ROUNDS=N    rounds (3)
//   HOLDFAST_BENCH_KEYS=N      keys per product, layout and round (20)
//   HOLDFAST_BENCH_LAYOUTS=a,b layouts to run (idle,hidden,split,preview,flood)
//   HOLDFAST_BENCH_PROFILE=DIR the window's renderer profiled (CDP) while each product and layout types;
//                              each profile saved in DIR and summarized on stderr
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { daemonPids, HoldfastE2E, openSidebar, waitFor } from '../test/e2e/harness';
import { echoOnce, keysShown, lastKeydown, noteKeydowns } from '../test/e2e/echo';
import { allProcs, processTree } from '../test/e2e/processes';
import { formatProfile, summarizeProfile } from './profile';
import { median, percentile, procCpu } from './util';

const ROUNDS = Number(process.env.HOLDFAST_BENCH_ROUNDS ?? 3);
const KEYS = Number(process.env.HOLDFAST_BENCH_KEYS ?? 20);
const LAYOUTS = (process.env.HOLDFAST_BENCH_LAYOUTS ?? 'idle,hidden,split,preview,flood').split(',') as Layout[];
const FLOODS_PER_ROUND = 3;
const FLOOD = 'while :; do seq 1 200000; done';
/** A key not shown by then is counted at this figure (the measurement gives up on it). */
const KEY_TIMEOUT_MS = 10_000;
const PROFILE_DIR = process.env.HOLDFAST_BENCH_PROFILE;

type Layout = 'idle' | 'hidden' | 'split' | 'preview' | 'flood';
type Product = 'holdfast' | 'vscode';

interface Terminals {
  /** Panel tab indexes (VS Code's own terminals share one name): the typed terminal, the flooding one. */
  typed: number;
  flood: number;
}

const log = (line: string) => process.stderr.write(`[bench-echo] ${line}\n`);

function tabEntries(page: Page) {
  return page
    .locator('.part.panel .terminal-tabs-entry')
    .filter({ has: page.locator('.monaco-icon-label .label-name') });
}

async function tabCount(page: Page): Promise<number> {
  return tabEntries(page).count();
}

/** Makes the `index`th panel tab active and focuses its terminal. */
async function focusTab(page: Page, index: number): Promise<void> {
  await tabEntries(page).nth(index).click();
  await waitFor(
    () =>
      page.evaluate((i) => {
        const tabs = Array.from(document.querySelectorAll('.part.panel .terminal-tabs-entry')).filter((e) =>
          e.querySelector('.monaco-icon-label .label-name'),
        );
        return tabs[i]?.classList.contains('is-active') ?? false;
      }, index),
    { timeout: 10_000, message: `tab ${index} to be active` },
  );
  await page.keyboard.press('Enter'); // the tab list has the focus: Enter gives it to that terminal (in a split too)
  await waitFor(() => page.evaluate(() => !!document.activeElement?.classList.contains('xterm-helper-textarea')), {
    timeout: 5_000,
    message: 'the terminal to take focus',
  });
}

/** The focused terminal's rows as text. */
function focusedRows(page: Page): Promise<string> {
  return page.evaluate(() => {
    const xterm = document.activeElement?.closest('.xterm');
    return Array.from(xterm?.querySelectorAll('.xterm-rows > div') ?? [])
      .map((row) => (row.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd())
      .join('\n');
  });
}

/** Runs `command` in the `index`th tab (typed, as a person does); the typed terminal gets focus back. */
async function runIn(page: Page, index: number, keys: string): Promise<void> {
  await focusTab(page, index);
  if (keys === 'Control+C') await page.keyboard.press('Control+C');
  else {
    await page.keyboard.type(keys);
    await page.keyboard.press('Enter');
  }
}

/** The flood stopped: its terminal ends on a prompt, twice in a row half a second apart. */
async function waitForPrompt(page: Page): Promise<void> {
  let last = '';
  await waitFor(
    async () => {
      const rows = (await focusedRows(page)).split('\n').filter((l) => l.trim());
      const tail = rows.slice(-2).join('\n');
      const settled = /[#$] ?$/.test(rows[rows.length - 1] ?? '') && tail === last;
      last = tail;
      return settled;
    },
    { timeout: 600_000, message: 'the flood to stop', interval: 500 },
  );
}

/** CPU time (ms) of the processes on the path, by kind, to say where a layout's time went. */
function cpuNow(e2e: HoldfastE2E): Record<string, number> {
  const out: Record<string, number> = {};
  const add = (kind: string, pid: number) => {
    try {
      out[kind] = (out[kind] ?? 0) + procCpu(pid).cpuMs;
    } catch {
      // the process ended meanwhile: its CPU is not counted
    }
  };
  const kindOf = (cmdline: string[]) => cmdline.find((a) => a.startsWith('--type='))?.slice(7);
  const daemons = daemonPids(e2e.iso);
  for (const pid of daemons) add('daemon', pid);
  // The server's tree also holds the terminals' programs (the flood itself), under its pty host or the daemon.
  for (const p of e2e.server.processes()) {
    if (daemons.includes(p.pid)) continue;
    add(p.pid === e2e.server.pid ? 'server' : kindOf(p.cmdline) ? `server:${kindOf(p.cmdline)}` : 'programs', p.pid);
  }
  const procs = allProcs();
  const profile = e2e.server.browserProfileDir;
  const browser = procs.find((q) => q.cmdline[0]?.includes('chromium') && q.cmdline.some((a) => a.includes(profile)));
  for (const p of browser ? processTree(browser.pid, procs) : [])
    add(`chromium:${kindOf(p.cmdline) ?? 'browser'}`, p.pid);
  return out;
}

/** Profiles the window's renderer until stopped; the profile is saved and summarized on stderr. */
async function startProfile(page: Page): Promise<{ stop(name: string): Promise<void> }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
  await cdp.send('Profiler.start');
  return {
    async stop(name: string) {
      const { profile } = await cdp.send('Profiler.stop');
      await cdp.detach();
      fs.mkdirSync(PROFILE_DIR!, { recursive: true });
      const file = path.join(PROFILE_DIR!, `${name}.cpuprofile`);
      fs.writeFileSync(file, JSON.stringify(profile));
      log(formatProfile(summarizeProfile(file, 12)));
    },
  };
}

/** A visible flood: `seq 1 200000` typed in the focused terminal, Enter → its last line and the next prompt shown. */
async function visibleFlood(e2e: HoldfastE2E, product: Product, terminals: Terminals): Promise<number[]> {
  const page = e2e.wb.page;
  await focusTab(page, terminals.typed);
  const times: number[] = [];
  for (let i = 0; i < FLOODS_PER_ROUND; i++) {
    await page.keyboard.press('Control+U');
    await page.keyboard.type('clear; seq 1 200000');
    await noteKeydowns(page);
    await page.keyboard.press('Enter');
    const shown = await page.waitForFunction(
      () => {
        const xterm = document.activeElement?.closest('.xterm');
        const rows = Array.from(xterm?.querySelectorAll('.xterm-rows > div') ?? []).map((row) =>
          (row.textContent ?? '').replace(/\u00a0/g, ' ').trim(),
        );
        const last = rows.lastIndexOf('200000');
        return last >= 0 && /[#$]$/.test(rows.slice(last + 1).find(Boolean) ?? '') ? performance.now() : 0;
      },
      undefined,
      { polling: 'raf', timeout: 300_000 },
    );
    times.push((await shown.jsonValue()) - (await lastKeydown(page)));
  }
  log(`${product} flood: ${times.map((ms) => ms.toFixed(0)).join(', ')} ms`);
  return times;
}

async function measure(e2e: HoldfastE2E, product: Product, terminals: Terminals, layout: Layout): Promise<number[]> {
  if (layout === 'flood') return visibleFlood(e2e, product, terminals);
  const page = e2e.wb.page;
  const flooding = layout !== 'idle';
  if (flooding) await runIn(page, terminals.flood, FLOOD);
  await focusTab(page, terminals.typed);
  await page.keyboard.press('Control+U');
  const base = await keysShown(page);
  const profiling = PROFILE_DIR ? await startProfile(page) : undefined;
  const before = cpuNow(e2e);
  const started = Date.now();
  const times: number[] = [];
  for (let i = 1; i <= KEYS; i++) {
    const echo = await echoOnce(page, base + i, KEY_TIMEOUT_MS);
    times.push(echo ?? KEY_TIMEOUT_MS);
    if (echo === undefined)
      await waitFor(async () => (await keysShown(page)) >= base + i, {
        timeout: 120_000,
        message: 'a late echo',
      }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 30 + Math.random() * 50)); // a typist's gap
  }
  const after = cpuNow(e2e);
  if (profiling) await profiling.stop(`${product}-${layout}-${Date.now()}`);
  const seconds = (Date.now() - started) / 1000;
  const cpu = Object.keys(after)
    .filter((k) => after[k] - (before[k] ?? 0) >= seconds * 10) // 1% of a core or more
    .map((k) => `${k} ${((after[k] - (before[k] ?? 0)) / seconds / 10).toFixed(0)}%`)
    .join(', ');
  log(`${product} ${layout}: median ${median(times).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)}; CPU ${cpu}`);
  await page.keyboard.press('Control+U');
  if (flooding) {
    const stopping = Date.now();
    await runIn(page, terminals.flood, 'Control+C');
    await waitForPrompt(page);
    log(`${product} ${layout}: the flood's prompt showed ${Date.now() - stopping} ms after Control+C`);
  }
  return times;
}

/** A new terminal of `product` in the panel (split beside the active one when `split`); its tab index. */
async function newTerminal(e2e: HoldfastE2E, product: Product, split: boolean): Promise<number> {
  const page = e2e.wb.page;
  const before = await tabCount(page);
  const command =
    product === 'holdfast'
      ? split
        ? 'Holdfast: Split Terminal'
        : 'Holdfast: New Terminal'
      : split
        ? 'Terminal: Split Terminal'
        : 'Terminal: Create New Terminal';
  await e2e.wb.runCommand(command);
  await waitFor(async () => (await tabCount(page)) > before, { timeout: 30_000, message: `a tab after ${command}` });
  const active = await page.evaluate(() =>
    Array.from(document.querySelectorAll('.part.panel .terminal-tabs-entry'))
      .filter((e) => e.querySelector('.monaco-icon-label .label-name'))
      .findIndex((e) => e.classList.contains('is-active')),
  );
  await e2e.wb.waitForTerminalText(/[#$] ?$/m, 30_000);
  return active;
}

/** The tabs of both products for every layout; a split's first terminal is focused before it is split. */
async function setUp(e2e: HoldfastE2E): Promise<Record<Product, { tabs: Terminals; split: Terminals }>> {
  const out = {} as Record<Product, { tabs: Terminals; split: Terminals }>;
  for (const product of ['holdfast', 'vscode'] as Product[]) {
    const typed = await newTerminal(e2e, product, false);
    const flood = await newTerminal(e2e, product, false);
    const splitTyped = await newTerminal(e2e, product, false);
    await focusTab(e2e.wb.page, splitTyped);
    const splitFlood = await newTerminal(e2e, product, true);
    out[product] = { tabs: { typed, flood }, split: { typed: splitTyped, flood: splitFlood } };
  }
  // Tab indexes move as splits are inserted: read them again by order of creation.
  const count = await tabCount(e2e.wb.page);
  if (count !== 8) throw new Error(`expected 8 terminal tabs, saw ${count}`);
  out.holdfast = { tabs: { typed: 0, flood: 1 }, split: { typed: 2, flood: 3 } };
  out.vscode = { tabs: { typed: 4, flood: 5 }, split: { typed: 6, flood: 7 } };
  return out;
}

async function main(): Promise<void> {
  const e2e = await HoldfastE2E.start({ name: 'bench-echo', settings: { 'terminal.integrated.scrollback': 10_000 } });
  const results = new Map<string, number[]>();
  try {
    await e2e.open(e2e.workspace('echo'));
    const terminals = await setUp(e2e);
    let sidebarOpen = false;
    for (let round = 0; round < ROUNDS; round++) {
      const order: Product[] = round % 2 === 0 ? ['holdfast', 'vscode'] : ['vscode', 'holdfast'];
      for (const layout of LAYOUTS) {
        if (layout === 'preview' && !sidebarOpen) {
          await openSidebar(e2e.wb);
          sidebarOpen = true;
        }
        for (const product of order) {
          const set = layout === 'split' ? terminals[product].split : terminals[product].tabs;
          const times = await measure(e2e, product, set, layout);
          const key = `${product} ${layout}`;
          results.set(key, [...(results.get(key) ?? []), ...times]);
        }
      }
    }
  } finally {
    await e2e.dispose();
  }
  console.log('| echo in VS Code (code-server), another terminal floods | Holdfast | VS Code | ratio | met |');
  console.log('|---|---|---|---|---|');
  const idle = median(results.get('holdfast idle') ?? []);
  for (const layout of LAYOUTS.filter((l) => l !== 'flood')) {
    const hf = results.get(`holdfast ${layout}`) ?? [];
    const vs = results.get(`vscode ${layout}`) ?? [];
    const met = layout === 'idle' ? '–' : median(hf) <= median(vs) && median(hf) <= idle + 50 ? 'yes' : 'NO';
    console.log(
      `| ${layout}: median / p90 | ${median(hf).toFixed(0)} / ${percentile(hf, 90).toFixed(0)} ms ` +
        `| ${median(vs).toFixed(0)} / ${percentile(vs, 90).toFixed(0)} ms | ${(median(hf) / median(vs)).toFixed(2)}× ` +
        `| ${met} |`,
    );
  }
  if (LAYOUTS.includes('flood')) {
    const [hf, vs] = [results.get('holdfast flood') ?? [], results.get('vscode flood') ?? []];
    console.log(
      `| a visible flood, \`seq 1 200000\`: Enter → its last line and the prompt, median | ` +
        `${median(hf).toFixed(0)} ms | ${median(vs).toFixed(0)} ms | ${(median(hf) / median(vs)).toFixed(2)}× ` +
        `| ${median(hf) <= median(vs) ? 'yes' : 'NO'} |`,
    );
  }
  console.log(
    `\n${ROUNDS} rounds × ${KEYS} keys per product and layout, alternating which goes first; ` +
      `${os.cpus()[0]?.model ?? 'cpu'}, ${os.cpus().length} cores, load average ` +
      `${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}; ${new Date().toISOString()}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
