// E2E: shell integration in Holdfast tabs, as in VS Code's own terminal: bash, zsh and fish, one tab each
// in one window, start with VS Code's scripts; sticky scroll pins a long-running command; another
// extension runs a command through Terminal.shellIntegration and gets its output and exit code; `true`
// and `false` get a success and an error decoration on their rows; ctrl+up goes from one to the other;
// after Reload Window and after a restart of the editor every tab has the same decorations on the same
// rows and ctrl+up still works. The shells share the window's loads (three in all).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  BASE_SETTINGS,
  E2E_SETTINGS,
  type HoldfastE2E,
  PROMPT_RE,
  type SessionView,
  scenarioHooks,
  waitFor,
  type Workbench,
} from './harness';
import type { ShellState } from '../../src/protocol/shell';
import { PROBE_COMMAND_TITLE, probeExtension } from './shellApiProbeFolder';
import {
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
    // A HOME fish has started in before: its first interactive start makes completions from every man page in a
    // python3 of its own (~20 CPU-s, beside the test's window).
    fs.mkdirSync(path.join(started.iso.home!, '.local/share/fish/generated_completions'), { recursive: true });
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

/** The shells with integration Holdfast knows that Debian has: each gets every scene below. */
const SHELLS = [
  { shell: 'bash', path: '/bin/bash' },
  { shell: 'zsh', path: '/usr/bin/zsh' },
  { shell: 'fish', path: '/usr/bin/fish' },
];

/** A command another extension runs (the same line in bash, zsh and fish), and its exit code. */
const PROBED = { command: 'echo hi; sh -c "exit 3"', exitCode: 3 };

/** Another extension (the probe) runs PROBED in the active terminal through Terminal.shellIntegration. */
async function probeActiveTerminal(wb: Workbench, folder: string, shell: string): Promise<void> {
  fs.rmSync(RESULT, { force: true });
  await wb.runCommand(PROBE_COMMAND_TITLE);
  const result = await waitFor(
    () => (fs.existsSync(RESULT) ? JSON.parse(fs.readFileSync(RESULT, 'utf8')) : undefined),
    { timeout: 60_000, message: `the probe extension to write its result (${shell})` },
  );
  assert.equal(result.error, undefined, result.error);
  assert.equal(result.exitCode, PROBED.exitCode, `${shell}: the exit code`);
  // What the API's read() streams: the shell's bytes from the command's start (its C mark included).
  assert.match(result.output.replace(/\x1b\][^\x07]*\x07/g, ''), /^hi\r?$/m, JSON.stringify(result.output));
  assert.equal(result.commandLine, PROBED.command, `${shell}: the command line`);
  assert.equal(result.cwd, folder, `${shell}: the shell reported its directory`);
}

/** A shell's tab, and the decorations of its `true` and `false`. */
interface ShellTab {
  shell: string;
  session: SessionView;
  decorations: Decoration[];
}

/**
 * One terminal of `shell` in the window: sticky scroll pins a long-running command; ctrl+c ends it and
 * the daemon knows its exit code; another extension runs a command and gets its output and exit code;
 * `true` and `false` get their decorations and ctrl+up walks them. Returns the decorations.
 */
async function shellScenes(wb: Workbench, folder: string, shell: (typeof SHELLS)[number]): Promise<ShellTab> {
  const settings = { 'holdfast.shell.path': shell.path, 'holdfast.shell.args': [] };
  e2e.server.writeSettings({ ...BASE_SETTINGS, ...E2E_SETTINGS, ...settings });
  const session = await e2e.newTerminal(wb);
  assert.deepEqual(session.argv, [shell.path], 'the setting reached the new terminal');
  if (shell.shell === 'bash') {
    await wb.typeInTerminal('echo "rc: $FROM_BASHRC"\n');
    await wb.waitForTerminalText(/^rc: yes$/m);
  }
  // Sticky scroll: the running command stays pinned once its prompt scrolled away.
  await typeLine(wb, 'seq 1 150; sleep 600');
  await waitFor(async () => /seq 1 150; sleep 600/.test((await stickyScrollText(wb.page)) ?? ''), {
    timeout: 20_000,
    message: `sticky scroll to pin "seq 1 150; sleep 600" (${shell.shell})`,
  });
  await wb.page.keyboard.press('Control+C');
  await e2e.iso.waitForScreen(session.id, PROMPT_RE);
  await waitFor(() => (e2e.iso.session(session.id).shell as ShellState | undefined)?.phase === 'prompt', {
    timeout: 15_000,
    message: `${shell.shell} back at its prompt after ctrl+c`,
  });
  const state = e2e.iso.session(session.id).shell as ShellState | undefined;
  assert.equal(state?.lastExit, 130, `${shell.shell}: the daemon knows the last exit code (ctrl+c)`);

  await probeActiveTerminal(wb, folder, shell.shell);

  await typeLine(wb, 'true');
  await typeLine(wb, 'false');
  const decorations = await trueFalse(wb);
  assert.equal(decorations.length, 2, JSON.stringify(decorations));
  await walkBack(wb);
  return { shell: shell.shell, session, decorations };
}

/** Each shell's tab shows the same decorations on the same rows, and ctrl+up walks them. */
async function checkEveryTab(wb: Workbench, tabs: ShellTab[], after: string): Promise<void> {
  for (const { shell, session, decorations } of tabs) {
    await wb.clickTerminalTab(session.name);
    assert.deepEqual(await trueFalse(wb), decorations, `${shell}: ${after}`);
    await walkBack(wb);
    assert.equal(e2e.iso.session(session.id).pid, session.pid, `${shell}: the same shell all along`);
  }
}

test(
  'bash, zsh and fish: decorations, ctrl+up, sticky scroll, executeCommand; the same after Reload Window and a restart',
  { timeout: 600_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const folder = e2e.workspace('shells');
      await e2e.open(folder);
      const wb = e2e.wb;
      const shells: ShellTab[] = [];
      for (const shell of SHELLS) shells.push(await shellScenes(wb, folder, shell));
      const names = shells.map(({ session }) => ({ name: session.name }));

      await wb.reloadWindow();
      await wb.waitForHoldfastTabs(names, { timeout: 60_000 });
      await checkEveryTab(wb, shells, 'after Reload Window');

      await e2e.closeBrowser();
      await e2e.server.stop();
      await e2e.server.start();
      const again = await e2e.launchBrowser();
      await e2e.open(folder, again);
      await again.waitForHoldfastTabs(names, { timeout: 60_000 });
      await checkEveryTab(again, shells, 'after a restart of the editor');

      // Split Terminal starts where the split terminal's shell is (its cd reported by shell integration).
      const bash = shells[0].session;
      await again.clickTerminalTab(bash.name);
      const sub = path.join(folder, 'sub dir');
      fs.mkdirSync(sub);
      await typeLine(again, `cd '${sub}'`);
      await waitFor(() => e2e.iso.session(bash.id).cwd === sub, { timeout: 15_000, message: 'the cd reported' });
      const split = await e2e.newTerminal(again, 'Holdfast: Split Terminal');
      assert.equal(split.cwd, sub, 'the split starts in the directory of the terminal it splits');
    });
  },
);
