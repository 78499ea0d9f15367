// E2E: the trash icon kills a session; Detach keeps it running without a
// tab (also across a reload); Attach to Session… brings it back; Kill Session ends it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { daemonPids, type HoldfastE2E, isAlive, waitFor, scenarioHooks } from './harness';

let e2e: HoldfastE2E;

scenarioHooks({ name: 'tabs' }, (started) => (e2e = started));

test(
  'trash icon kills; Detach keeps the session; Attach brings it back; Kill Session ends it',
  { timeout: 360_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const wb = e2e.wb;
      await e2e.open(e2e.workspace('tabs'));
      const first = await e2e.newTerminal();
      const second = await e2e.newTerminal();
      await wb.waitForHoldfastTabs([{ name: first.name }, { name: second.name, active: true }], { settleMs: 0 });

      // 1. The trash icon on the first tab: its session is killed and removed.
      await wb.trashTerminalTab(first.name);
      await waitFor(() => !e2e.iso.sessions().some((s) => s.id === first.id), {
        timeout: 20_000,
        message: `session ${first.id} to be removed`,
      });
      await waitFor(() => !isAlive(first.pid), { timeout: 10_000, message: `process ${first.pid} to end` });
      await wb.waitForHoldfastTabs([{ name: second.name }], { settleMs: 0 });

      // 2. Detach the second: no tab, the process keeps running.
      await wb.clickTerminalTab(second.name);
      await wb.typeInTerminal('echo before-detach\n');
      await e2e.iso.waitForScreen(second.id, /^before-detach$/m);
      await wb.runCommand('Holdfast: Detach Terminal');
      await wb.waitForHoldfastTabs([], { settleMs: 1_000 });
      let now = e2e.iso.session(second.id);
      assert.equal(now.state, 'running', 'a detached session keeps running');
      assert.equal(now.pid, second.pid);
      assert.ok(isAlive(second.pid));

      // A detached session stays detached across a reload.
      await wb.reloadWindow();
      await wb.waitForHoldfastTabs([], { settleMs: 5_000 });
      assert.ok(isAlive(second.pid));

      // 3. Attach to Session… brings it back, with its screen, attached to the same shell.
      await wb.runCommand('Holdfast: Attach to Session…');
      await wb.pickQuickItem(second.name);
      await wb.waitForHoldfastTabs([{ name: second.name, active: true }]);
      await wb.waitForTerminalText(/^before-detach$/m);
      assert.equal(await e2e.shellPid(wb, 'attached'), second.pid, 'the attached tab types into the same shell');
      now = e2e.iso.session(second.id);
      assert.ok((now.clients?.owners ?? 0) >= 1, 'this window is its input owner');

      // 4. Kill Session on the active tab.
      await wb.runCommand('Holdfast: Kill Session');
      await waitFor(() => !e2e.iso.sessions().some((s) => s.id === second.id), {
        timeout: 20_000,
        message: `session ${second.id} to be removed`,
      });
      await waitFor(() => !isAlive(second.pid), { timeout: 10_000, message: `process ${second.pid} to end` });
      await wb.waitForHoldfastTabs([], { settleMs: 1_000 });
    });
  },
);

test('a terminal in the editor area comes back in the editor area after a reload', { timeout: 240_000 }, async (t) => {
  await e2e.run(t.name, async () => {
    const wb = e2e.wb;
    // The previous test's workspace (its sessions are gone by now), when still open: saves a page load.
    const folder = e2e.workspace('tabs');
    if (wb.folder !== folder) await e2e.open(folder);
    await wb.waitForHoldfastTabs([], { settleMs: 0 });
    const session = await e2e.newTerminal(wb, 'Holdfast: New Terminal in Editor Area');
    const isMine = (tab: { name: string }) =>
      tab.name === session.name || tab.name.startsWith(`${session.name},`) || tab.name.startsWith(`${session.name} `);
    await waitFor(async () => (await wb.editorTabs()).find(isMine), {
      timeout: 15_000,
      message: `an editor tab for ${session.name}`,
    });
    await wb.typeInTerminal('echo in-the-editor\n');
    await e2e.iso.waitForScreen(session.id, /^in-the-editor$/m);

    await wb.reloadWindow();
    const tab = await waitFor(async () => (await wb.editorTabs()).find(isMine), {
      timeout: 30_000,
      message: `the editor tab for ${session.name} after the reload`,
    });
    assert.ok(tab.active, 'it is the active editor');
    await waitFor(() => (e2e.iso.session(session.id).clients?.owners ?? 0) >= 1, {
      timeout: 30_000,
      message: 'the tab to attach',
    });
    await wb.waitForHoldfastTabs([], { settleMs: 2_000 }); // not in the panel as well
    assert.equal((await wb.editorTabs()).filter(isMine).length, 1, 'one editor tab for it');
    await wb.waitForTerminalText(/^in-the-editor$/m);
    assert.equal(await e2e.shellPid(wb, 'editor-after'), session.pid);
  });
});

test('Show Daemon Status writes the checks, for this daemon, to the Holdfast log', { timeout: 180_000 }, async (t) => {
  await e2e.run(t.name, async () => {
    const wb = e2e.wb;
    assert.ok(daemonPids(e2e.iso).length > 0, 'a daemon runs (the previous tests started one)');
    await wb.runCommand('Holdfast: Show Daemon Status');
    // The Output view shows the report's last lines (how many depends on the panel's height);
    // wrapped lines are joined back.
    const logLine = `daemon log: ${e2e.iso.stateHome}`;
    const text = await waitFor(
      async () => {
        const out = (await wb.outputText()).replace(/\n/g, '');
        return out.includes(logLine) ? out : undefined;
      },
      { timeout: 20_000, message: `"${logLine}" in the Output view` },
    );
    assert.match(text, /holdfast CLI: \S+/, `the report checks the holdfast CLI launcher:\n${text}`);
  });
});
