// E2E: shell integration in Holdfast tabs, as in VS Code's own terminal: bash (then zsh and fish) starts
// with VS Code's scripts; `true` and `false` get a success and an error decoration on their rows;
// ctrl+up goes from one to the other; sticky scroll pins a long-running command; after Reload Window
// and after a restart of the editor the same decorations are on the same rows and ctrl+up still works;
// another extension runs a command through Terminal.shellIntegration and gets its output and exit code.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  BASE_SETTINGS,
  E2E_SETTINGS,
  type HoldfastE2E,
  PROMPT_RE,
  scenarioHooks,
  waitFor,
  type Workbench,
} from './harness';
import type { ShellState } from '../../src/protocol/shell';
import { PROBE_COMMAND_TITLE, probeExtension } from './shellApiProbeFolder';
import {
  commandDecorations,
  type Decoration,
  focusTerminalBottom,
  highlightedRow,
  stickyScrollText,
  waitForDecorations,
} from './shellMarksView';

let e2e: HoldfastE2E;
const PROBE_DIR = fs.mkdtempSync('/tmp/hf-shell-api-');
const RESULT = path.join(PROBE_DIR, 'result.json');

// A plain shell in a HOME of its own (no rc file), which Holdfast starts with VS Code's scripts.
scenarioHooks(
  {
    name: 'shell-integration',
    isolatedHome: true,
    settings: { 'holdfast.shell.path': '/bin/bash', 'holdfast.shell.args': [] },
    extraExtensions: [probeExtension(path.join(PROBE_DIR, 'extension'))],
    env: { HOLDFAST_SHELL_API_RESULT: RESULT },
    cleanup: () => fs.rmSync(PROBE_DIR, { recursive: true, force: true }),
  },
  (started) => {
    e2e = started;
    // The user's rc file: a short prompt (a long one wraps), and a mark that it was read.
    fs.writeFileSync(path.join(started.iso.home!, '.bashrc'), "PS1='\\$ '\nexport FROM_BASHRC=yes\n");
  },
);

const TRUE_FALSE = [
  { kind: 'success' as const, row: /[#$%>] true$/ },
  { kind: 'error' as const, row: /[#$%>] false$/ },
];

/** Types a line into the visible terminal (focused by a click below sticky scroll's pinned row). */
async function typeLine(wb: Workbench, line: string): Promise<void> {
  await focusTerminalBottom(wb.page);
  await wb.page.keyboard.type(line);
  await wb.page.keyboard.press('Enter');
}

/** Ctrl+Up from the prompt highlights `false`'s command, then `true`'s. */
async function walkBack(wb: Workbench): Promise<void> {
  await focusTerminalBottom(wb.page);
  for (const command of ['false', 'true']) {
    await wb.page.keyboard.press('Control+ArrowUp');
    await waitFor(async () => new RegExp(`${command}$`).test((await highlightedRow(wb.page)) ?? ''), {
      timeout: 15_000,
      message: `ctrl+up to highlight "${command}" (it highlights ${JSON.stringify(await highlightedRow(wb.page))})`,
    });
  }
}

/** The decorations of `true` and `false`, as VS Code shows them now. */
async function trueFalse(wb: Workbench): Promise<Decoration[]> {
  const shown = await waitForDecorations(wb.page, TRUE_FALSE);
  return shown.filter((d) => /[#$%>] (true|false)$/.test(d.row));
}

test(
  'bash: decorations, ctrl+up, sticky scroll; the same after Reload Window and a restart',
  { timeout: 420_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const folder = e2e.workspace('bash');
      await e2e.open(folder);
      const session = await e2e.newTerminal();
      const wb = e2e.wb;
      await wb.typeInTerminal('echo "rc: $FROM_BASHRC"\n');
      await wb.waitForTerminalText(/^rc: yes$/m);
      // Sticky scroll: the running command stays pinned once its prompt scrolled away.
      await wb.typeInTerminal('seq 1 150; sleep 600\n');
      await waitFor(async () => /seq 1 150; sleep 600/.test((await stickyScrollText(wb.page)) ?? ''), {
        timeout: 20_000,
        message: 'sticky scroll to pin "seq 1 150; sleep 600"',
      });
      await wb.page.keyboard.press('Control+C');
      await e2e.iso.waitForScreen(session.id, PROMPT_RE);
      const shell = e2e.iso.session(session.id).shell as ShellState | undefined;
      assert.equal(shell?.lastExit, 130, 'the daemon knows the last exit code (ctrl+c)');

      await typeLine(wb, 'true');
      await typeLine(wb, 'false');
      const before = await trueFalse(wb);
      assert.equal(before.length, 2, JSON.stringify(before));
      await walkBack(wb);

      await wb.reloadWindow();
      await wb.waitForHoldfastTabs([{ name: session.name, active: true }], { timeout: 60_000 });
      assert.deepEqual(await trueFalse(wb), before, 'after Reload Window');
      await walkBack(wb);

      await e2e.closeBrowser();
      await e2e.server.stop();
      await e2e.server.start();
      const again = await e2e.launchBrowser();
      await e2e.open(folder, again);
      await again.waitForHoldfastTabs([{ name: session.name, active: true }], { timeout: 60_000 });
      assert.deepEqual(await trueFalse(again), before, 'after a restart of the editor');
      await walkBack(again);
      assert.equal(e2e.iso.session(session.id).pid, session.pid, 'the same shell all along');
    });
  },
);

test(
  'another extension runs a command in a Holdfast terminal through Terminal.shellIntegration',
  { timeout: 240_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const folder = e2e.workspace('api');
      await e2e.open(folder);
      await e2e.newTerminal();
      fs.rmSync(RESULT, { force: true });
      await e2e.wb.runCommand(PROBE_COMMAND_TITLE);
      const result = await waitFor(
        () => (fs.existsSync(RESULT) ? JSON.parse(fs.readFileSync(RESULT, 'utf8')) : undefined),
        {
          timeout: 60_000,
          message: 'the probe extension to write its result',
        },
      );
      assert.equal(result.error, undefined, result.error);
      assert.equal(result.exitCode, 3);
      // What the API's read() streams: the shell's bytes from the command's start (its C mark included).
      assert.match(result.output.replace(/\x1b\][^\x07]*\x07/g, ''), /^hi\r?$/m, JSON.stringify(result.output));
      assert.equal(result.commandLine, 'echo hi; (exit 3)');
      assert.equal(result.cwd, folder, 'the shell reported its directory');

      // Split Terminal starts where the split terminal's shell is (its cd reported by shell integration).
      const sub = path.join(folder, 'sub dir');
      fs.mkdirSync(sub);
      const first = e2e.iso.sessions().find((s) => s.state === 'running' && s.cwd === folder)!;
      await typeLine(e2e.wb, `cd '${sub}'`);
      await waitFor(() => e2e.iso.session(first.id).cwd === sub, { timeout: 15_000, message: 'the cd reported' });
      const split = await e2e.newTerminal(e2e.wb, 'Holdfast: Split Terminal');
      assert.equal(split.cwd, sub, 'the split starts in the directory of the terminal it splits');
    });
  },
);

for (const shell of ['zsh', 'fish']) {
  test(`${shell}: decorations and ctrl+up, also after Reload Window`, { timeout: 240_000 }, async (t) => {
    await e2e.run(t.name, async () => {
      const settings = { 'holdfast.shell.path': `/usr/bin/${shell}`, 'holdfast.shell.args': [] };
      e2e.server.writeSettings({ ...BASE_SETTINGS, ...E2E_SETTINGS, ...settings });
      const folder = e2e.workspace(shell);
      await e2e.open(folder);
      const session = await e2e.newTerminal();
      assert.deepEqual(session.argv, [`/usr/bin/${shell}`], 'the setting reached the new terminal');
      const wb = e2e.wb;
      await typeLine(wb, 'true');
      await typeLine(wb, 'false');
      const before = await trueFalse(wb);
      assert.equal(before.length, 2, JSON.stringify(before));
      await walkBack(wb);
      await wb.reloadWindow();
      await wb.waitForHoldfastTabs([{ name: session.name, active: true }], { timeout: 60_000 });
      assert.deepEqual(await trueFalse(wb), before);
      await walkBack(wb);
      assert.ok((await commandDecorations(wb.page)).length >= 2);
    });
  });
}
