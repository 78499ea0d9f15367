// E2E measurement, on demand (`npm run test:flood`, minutes long, so not in `npm test`; the pacing itself is
// tested in test/tab-output.test.ts): a 200 MB flood into a Holdfast tab, visible and hidden, in a real
// VS Code. The extension host's RSS and the renderer's JS heap are sampled through the flood; both stay under ceilings
// that a tab forwarding everything at socket speed exceeds, and the tab ends on the session's screen.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import type { CDPSession } from 'playwright-core';
import { type HoldfastE2E, scenarioHooks, trace, waitFor } from './harness';

const FLOOD_BYTES = 200_000_000;
const MB = 1024 * 1024;
/**
 * Peak growth over the figure before the flood (docs/vscode.md, "Flow control to VS Code"): on main before
 * flow control to the glass the extension host grew 83 / 95 MB and the renderer's JS heap 77 / 84 MB (visible /
 * hidden); with a hidden tab sent nothing and writes paced to the renderer's parsing, 28 / 3 MB and 8 / 1 MB.
 */
const EXTENSION_HOST_CEILING_MB = 60;
const RENDERER_CEILING_MB = 40;

let e2e: HoldfastE2E;

scenarioHooks({ name: 'flood' }, (started) => (e2e = started));

const mb = (bytes: number): string => (bytes / MB).toFixed(0);

function rssBytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
}

async function heapBytes(cdp: CDPSession): Promise<number> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0;
}

/** Samples both processes until stopped; resolves with the peaks above the figures when it started. */
function sampler(cdp: CDPSession, hostPid: number) {
  let stopped = false;
  const peaks = { host: 0, renderer: 0, hostBase: rssBytes(hostPid), rendererBase: 0 };
  const running = (async () => {
    peaks.rendererBase = await heapBytes(cdp);
    while (!stopped) {
      peaks.host = Math.max(peaks.host, rssBytes(hostPid) - peaks.hostBase);
      peaks.renderer = Math.max(peaks.renderer, (await heapBytes(cdp).catch(() => 0)) - peaks.rendererBase);
      await new Promise((resolve) => setTimeout(resolve, 100)); // a sampling period, not an ordering wait
    }
  })();
  return {
    async stop() {
      stopped = true;
      await running;
      return peaks;
    },
  };
}

const floodCommand = (mark: string) => `head -c ${FLOOD_BYTES} /dev/zero | tr '\\0' x; echo; echo ${mark}-$((6*7))`;

async function flood(where: 'visible' | 'hidden'): Promise<void> {
  const wb = e2e.wb;
  await e2e.open(e2e.workspace(`flood-${where}`));
  const target = await e2e.newTerminal();
  if (where === 'hidden') await e2e.newTerminal(); // the second tab is shown; the first is hidden
  const cdp = await wb.page.context().newCDPSession(wb.page);
  await cdp.send('Performance.enable');
  await cdp.send('HeapProfiler.collectGarbage');
  const hostPid = e2e.server.extensionHostPids()[0];
  const sampling = sampler(cdp, hostPid);
  const mark = `flood-${where}`;
  e2e.iso.cli(['send', target.id, '--text', floodCommand(mark), '--enter']);
  await e2e.iso.waitForScreen(target.id, new RegExp(`^${mark}-42$`, 'm'), 600_000);
  if (where === 'hidden') await wb.clickTerminalTab(target.name);
  await wb.waitForTerminalText(new RegExp(`^${mark}-42$`, 'm'), 600_000);
  const peaks = await sampling.stop();
  const line =
    `flood ${where}: extension host +${mb(peaks.host)} MB RSS (from ${mb(peaks.hostBase)}), ` +
    `renderer +${mb(peaks.renderer)} MB JS heap (from ${mb(peaks.rendererBase)})`;
  trace(line);
  console.log(line);
  // The tab ends on the session's screen: the last rows the daemon shows are the tab's last rows.
  const screen = e2e.iso.cli(['read', target.id, '--json']);
  const rows = (JSON.parse(screen.stdout) as { lines: string[] }).lines.map((l) => l.trimEnd()).filter(Boolean);
  const shown = await waitFor(
    async () => {
      const text = (await wb.terminalText())
        .split('\n')
        .map((l) => l.trimEnd())
        .filter(Boolean);
      return text.slice(-3).join('\n') === rows.slice(-3).join('\n') ? text : undefined;
    },
    { timeout: 60_000, message: 'the tab to show the session screen' },
  );
  assert.ok(shown.length > 0);
  assert.ok(peaks.host < EXTENSION_HOST_CEILING_MB * MB, line);
  assert.ok(peaks.renderer < RENDERER_CEILING_MB * MB, line);
}

test('a 200 MB flood into a visible tab: memory bounded, the screen exact', { timeout: 900_000 }, async (t) => {
  await e2e.run(t.name, () => flood('visible'));
});

test('a 200 MB flood into a hidden tab: memory bounded, the screen exact', { timeout: 900_000 }, async (t) => {
  await e2e.run(t.name, () => flood('hidden'));
});
