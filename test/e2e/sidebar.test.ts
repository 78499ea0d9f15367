// E2E: the Sessions sidebar and the wall of screens in a real VS Code. The empty state
// starts a terminal; two sessions show their screens in the sidebar's previews (xterm.js DOM
// text); a session's state changes live (running → idle → exited); the previews are watchers
// (opening the sidebar or the wall changes no session's size; a resized session resizes its
// preview); a hidden sidebar or a collapsed section streams nothing and resyncs when shown; Enter
// on a card and a click on a wall tile focus their session; the wall comes back after a reload.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type HoldfastE2E, openSidebar, PROMPT_RE, SessionsWebview, waitFor, scenarioHooks } from './harness';

let e2e: HoldfastE2E;

scenarioHooks({ name: 'sidebar' }, (started) => (e2e = started));

function sizes(): Map<string, string> {
  return new Map(e2e.iso.sessions().map((s) => [s.id, `${s.cols}x${s.rows}`]));
}

test(
  'sidebar: live previews as watchers, live states, hidden = no stream; the wall focuses a session',
  { timeout: 240_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const wb = e2e.wb;
      await e2e.open(e2e.workspace('sidebar'));

      // No session yet: the empty state says what Holdfast is; its New Terminal button makes session 1, a tab.
      await openSidebar(wb);
      const empty = new SessionsWebview(wb, 'sidebar');
      const emptyFrame = await empty.frame();
      await waitFor(
        async () => /Holdfast runs your terminals/.test((await emptyFrame.locator('.empty').textContent()) ?? ''),
        { timeout: 15_000, message: 'the empty state' },
      );
      await emptyFrame.locator('.empty button', { hasText: 'New Agent' }).waitFor({ state: 'visible' });
      await emptyFrame.locator('.empty button', { hasText: 'New Terminal' }).click();
      const shellRef = await waitFor(() => e2e.iso.sessions()[0], {
        timeout: 30_000,
        message: "a session from the empty state's New Terminal",
      });
      await e2e.iso.waitForScreen(shellRef.id, PROMPT_RE);
      await wb.waitForTerminalText(PROMPT_RE);
      const shell = e2e.iso.session(shellRef.id);
      await wb.page.keyboard.press('Control+Shift+E'); // back to the Explorer: the sidebar is opened again below

      // Session 2: made with the CLI (no workspace: "other"), a script that prints, waits for "go",
      // prints for a while, goes quiet, then exits 3 on a line.
      await wb.typeInTerminal("printf '\\033[32malpha-%s\\033[0m\\n' screen\n");
      await e2e.iso.waitForScreen(shell.id, /^alpha-screen$/m);
      const script =
        'echo worker-ready; read go; for i in 1 2 3 4 5 6; do echo "working $i"; sleep 0.3; done; ' +
        'echo quiet-now; read line; echo "bye $line"; exit 3';
      const worker = e2e.iso.newShellSession('worker', script);
      await e2e.iso.waitForScreen(worker.id, /^worker-ready$/m);
      const before = sizes();
      assert.equal(before.get(worker.id), '100x30');

      // Open the sidebar: both cards, each preview showing its session's screen.
      await openSidebar(wb);
      const sidebar = new SessionsWebview(wb, 'sidebar');
      await sidebar.waitForText(shell.id, 'alpha-screen');
      await sidebar.waitForText(worker.id, 'worker-ready');
      assert.deepEqual(await sidebar.cardOrder(), [shell.id, worker.id], 'this workspace first, then the others');
      assert.equal(await sidebar.previewSize(worker.id), '100x30', 'the preview takes the session size');
      await waitFor(() => [shell.id, worker.id].every((id) => (e2e.iso.session(id).clients?.watchers ?? 0) >= 1), {
        timeout: 15_000,
        message: 'a watcher on each session',
      });
      assert.deepEqual(sizes(), before, 'opening the sidebar changes no session size');
      assert.equal(e2e.iso.session(shell.id).clients?.owners, 1, 'the tab is still the only input owner');
      await wb.screenshot('sidebar-two-sessions');

      // States, pushed by the daemon: idle now; "go" → running; quiet → idle; a line → exited 3.
      await sidebar.waitForPhase(worker.id, 'idle');
      e2e.iso.cliJson(['send', worker.id, '--text', 'go', '--enter']);
      await sidebar.waitForPhase(worker.id, 'running');
      await sidebar.waitForText(worker.id, 'working 3');
      const firstTick = await sidebar.elapsed(worker.id);
      await waitFor(async () => (await sidebar.elapsed(worker.id)) !== firstTick, {
        timeout: 5_000,
        message: 'the elapsed time to tick',
      });
      await sidebar.waitForText(worker.id, 'quiet-now');
      await sidebar.waitForPhase(worker.id, 'idle');

      // The session is resized (by the CLI, an owner's right): the preview follows.
      e2e.iso.cliJson(['resize', worker.id, '--cols', '90', '--rows', '20']);
      await waitFor(async () => (await sidebar.previewSize(worker.id)) === '90x20', {
        timeout: 15_000,
        message: 'the preview to take the new size',
      });
      assert.equal(sizes().get(worker.id), '90x20');

      // Hidden (another view container shown): no watcher streams; shown again: a fresh snapshot.
      await wb.page.keyboard.press('Control+Shift+E'); // Explorer
      await waitFor(() => [shell.id, worker.id].every((id) => (e2e.iso.session(id).clients?.watchers ?? 0) === 0), {
        timeout: 15_000,
        message: 'no watchers while the sidebar is hidden',
      });
      e2e.iso.cliJson(['send', shell.id, '--text', 'echo while-hidden', '--enter']);
      await e2e.iso.waitForScreen(shell.id, /^while-hidden$/m);
      await openSidebar(wb);
      const shown = new SessionsWebview(wb, 'sidebar');
      await shown.waitForText(shell.id, 'while-hidden');
      await waitFor(() => (e2e.iso.session(shell.id).clients?.watchers ?? 0) >= 1, {
        timeout: 15_000,
        message: 'the watcher back',
      });

      // Off screen (the collapsed "Other Workspaces" section): that preview stops; expanded, it resyncs.
      await waitFor(() => (e2e.iso.session(worker.id).clients?.watchers ?? 0) >= 1, {
        timeout: 15_000,
        message: "the worker's watcher back",
      });
      await shown.toggleOthers();
      await waitFor(() => (e2e.iso.session(worker.id).clients?.watchers ?? 0) === 0, {
        timeout: 15_000,
        message: 'no watcher for an off-screen preview',
      });
      assert.equal(e2e.iso.session(shell.id).clients?.watchers, 1, 'the visible preview keeps streaming');
      e2e.iso.cliJson(['send', worker.id, '--text', 'done', '--enter']);
      await shown.waitForPhase(worker.id, 'exited'); // the card's state still follows the daemon's events
      await shown.toggleOthers();
      await shown.waitForText(worker.id, 'bye done');
      assert.equal(await shown.stateText(worker.id), 'Exited with code 3');
      assert.deepEqual(
        await shown.actions(worker.id),
        ['focusSession', 'renameSession', 'removeSession'],
        'an exited card offers remove, not kill',
      );

      // Keyboard: Enter on a card focuses its session (the CLI's session has no tab: one opens).
      await shown.pressOnCard(worker.id, 'Enter');
      await waitFor(async () => (await wb.terminalTabs()).find((tab) => tab.name === 'worker' && tab.active), {
        timeout: 20_000,
        message: 'an active tab for the session whose card got Enter',
      });

      // The wall: every session as a tile; a click on one focuses it. The new tab is the worker's input owner and
      // sizes it to the panel, as the shell's tab is, a moment after it shows: taken before, the size was 90x20.
      await waitFor(() => sizes().get(worker.id) === sizes().get(shell.id), {
        timeout: 15_000,
        message: "the worker's tab to size it to the panel",
      });
      const withTabs = sizes();
      await wb.runCommand('Holdfast: Show All Sessions');
      const wall = new SessionsWebview(wb, 'wall');
      await wall.waitForText(shell.id, 'while-hidden');
      await wall.waitForText(worker.id, 'bye done');
      await wb.screenshot('sidebar-wall');
      assert.deepEqual(sizes(), withTabs, 'the wall changes no session size either');
      await wall.click(shell.id);
      await waitFor(async () => (await wb.terminalTabs()).find((tab) => tab.name === shell.name && tab.active), {
        timeout: 20_000,
        message: "the clicked tile's tab to be active",
      });

      // A reload brings the wall back, live.
      await wb.reloadWindow();
      const restored = new SessionsWebview(wb, 'wall');
      await restored.waitForText(shell.id, 'while-hidden', 40_000);
      await restored.waitForText(worker.id, 'bye done');
    });
  },
);
