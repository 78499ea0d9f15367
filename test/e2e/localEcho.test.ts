// E2E: VS Code's predictive local echo (terminal.integrated.localEchoEnabled) on a Holdfast tab. It draws
// typed keys and Enter's line break before the program echoes them, then reconciles its guesses with what
// the tab writes; a command's output must land on the row below the command, as the session has it, in a
// new tab, after Reload Window, Restart Daemon, a split and a full editor quit (docs/vscode.md, "Local echo").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import {
  daemonPids,
  type HoldfastE2E,
  PROMPT_RE,
  scenarioHooks,
  type SessionView,
  trace,
  waitFor,
  type Workbench,
} from './harness';

/** Local echo on, and its predictions always drawn (threshold 0: whatever the latency measured). */
export const LOCAL_ECHO_ON = {
  'terminal.integrated.localEchoEnabled': 'on',
  'terminal.integrated.localEchoLatencyThreshold': 0,
};

let e2e: HoldfastE2E;

scenarioHooks({ name: 'local-echo', settings: LOCAL_ECHO_ON }, (started) => (e2e = started));

/** The focused terminal pane's rows as rendered (the pane holding the keyboard focus, split or not). */
function focusedRows(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const xterm = document.activeElement?.closest('.xterm');
    return Array.from(xterm?.querySelectorAll('.xterm-rows > div') ?? []).map((row) =>
      (row.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd(),
    );
  });
}

/**
 * Types `echo LABEL-$((6*7))` and Enter into the focused pane twice, as a user types (keys only): key by
 * key, then the first key alone and, once the shell echoed it (local echo then trusts the row and draws
 * what follows at once), the rest in one burst. Either way VS Code often gets the echo of the last keys,
 * the line break and the output in one piece, which is when its local echo went wrong: without the guard,
 * 3 to 4 commands of 8 each way (code-server 4.96.4 and 4.139.1), so the test's ten commands catch it.
 */
async function typeCommands(wb: Workbench, session: SessionView, label: string): Promise<void> {
  const page = wb.page;
  await typeCommand(wb, session, `${label}`, () => page.keyboard.type(`echo ${label}-$((6*7))`));
  await typeCommand(wb, session, `${label}-burst`, async () => {
    await page.keyboard.type('e');
    await waitFor(async () => (await focusedRows(page)).some((row) => /[#$] e$/.test(row)), {
      timeout: 10_000,
      message: 'the first key echoed',
    });
    await page.keyboard.insertText(`cho ${label}-burst-$((6*7))`);
  });
}

/**
 * Types a command with `keys`, then Enter, and checks the rendered rows once the new prompt is drawn: the
 * command's row, then `LABEL-42` on a row of its own.
 */
async function typeCommand(wb: Workbench, session: SessionView, label: string, keys: () => Promise<void>) {
  const page = wb.page;
  await waitFor(() => page.evaluate(() => !!document.activeElement?.classList.contains('xterm-helper-textarea')), {
    timeout: 10_000,
    message: 'a terminal pane to have the keyboard focus',
  });
  const command = `echo ${label}-$((6*7))`;
  await keys();
  await page.keyboard.press('Enter');
  await e2e.iso.waitForScreen(session.id, new RegExp(`^${label}-42\\r?$`, 'm'));
  let rows: string[] = [];
  const output = (r: string[]) => r.findIndex((row) => row.startsWith(`${label}-42`));
  await waitFor(
    async () => {
      rows = await focusedRows(page);
      const at = output(rows);
      return at >= 0 && rows.slice(at + 1).some((row) => PROMPT_RE.test(row));
    },
    { timeout: 20_000, message: `the tab to draw ${label}-42 and the next prompt` },
  ).catch((err: Error) => {
    throw new Error(`${err.message}; rows:\n${rows.join('\n')}`);
  });
  const at = output(rows);
  trace(`${label}: ${JSON.stringify(rows.slice(Math.max(0, at - 1), at + 2))}`);
  const shown = rows.filter((row) => row).join('\n');
  assert.equal(rows[at], `${label}-42`, `the output on a row of its own; the tab shows:\n${shown}`);
  // The command's rows (joined, should a pane wrap it) end with the command, exactly. A key of it went missing
  // in 3 of ~10 runs (the rest of the line one cell left) while every write of the tab carried a pacing query
  // and the scrollback came 100 ms after a reattach's screen, keys or not (docs/vscode.md, "Local echo"); with
  // the first fixed only, 5 of 6 runs passed; with both, 10 of 10 (5 on each version, both cores busy).
  const above = rows.slice(0, at).join('');
  assert.ok(above.endsWith(command), `the command on the rows above; the tab shows:\n${shown}`);
}

test(
  'with local echo on, a command and its output on their own rows: new tab, reload, Restart Daemon, split, restart',
  { timeout: 420_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const folder = e2e.workspace('local-echo');
      await e2e.open(folder);
      const session = await e2e.newTerminal();
      await e2e.wb.focusTerminal();
      await typeCommands(e2e.wb, session, 'typed');

      await e2e.wb.reloadWindow();
      await e2e.wb.waitForHoldfastTabs([{ name: session.name, active: true }]);
      await e2e.wb.waitForTerminalText(PROMPT_RE);
      await e2e.wb.focusTerminal();
      await typeCommands(e2e.wb, session, 'after-reload');

      const [daemon] = daemonPids(e2e.iso);
      await e2e.wb.runCommand('Holdfast: Restart Daemon');
      await waitFor(async () => (await e2e.wb.notifications()).find((n) => /took over from pid/.test(n)), {
        timeout: 30_000,
        message: 'the Restart Daemon notification',
      });
      assert.ok(!daemonPids(e2e.iso).includes(daemon), 'a new daemon serves the session');
      await e2e.wb.focusTerminal();
      await typeCommands(e2e.wb, session, 'after-restart');

      // Short commands in the split: its pane (33 columns in 4.139.1) does not wrap them. A wrapped command is
      // VS Code's own race (docs/vscode.md, "Local echo"): its guess of the wrap fails when bash writes past
      // the margin, and Enter typed before that echo was parsed is guessed on the row above (1 run of 9).
      const member = await e2e.newTerminal(e2e.wb, 'Holdfast: Split Terminal');
      await typeCommands(e2e.wb, member, 'sp');

      await e2e.closeBrowser();
      await e2e.server.stop();
      await e2e.server.start();
      const wb = await e2e.launchBrowser();
      await e2e.open(folder);
      // The split group back, its member active (its name follows VS Code's split mark).
      await waitFor(async () => (await wb.terminalTabs()).find((tab) => tab.active && tab.name.endsWith(member.name)), {
        timeout: 60_000,
        message: `the split ${member.name} back and active`,
      });
      // As after the reload: the tab's screen drawn before a key is typed, as a person waits to see the prompt.
      await wb.waitForTerminalText(PROMPT_RE);
      await wb.runCommand('Terminal: Focus Terminal');
      await typeCommands(wb, member, 'qt');
    });
  },
);
