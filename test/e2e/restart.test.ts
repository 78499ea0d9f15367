// E2E: a full editor quit, and closing the window, never end a
// Holdfast session; after a restart the tab comes back attached to the same process.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { absenceWindow } from '../helpers/absence';
import {
  busyUntilTheEnd,
  type HoldfastE2E,
  isAlive,
  NO_OTHER_TABS,
  otherTabs,
  waitFor,
  scenarioHooks,
} from './harness';

let e2e: HoldfastE2E;

// A short reconnection grace: when its page is gone, the server ends the window's extension
// host after 5 s, as closing a desktop window does (the default keeps it 3 hours).
scenarioHooks({ name: 'restart', serverArgs: ['--reconnection-grace-time', '5'] }, (started) => (e2e = started));

test(
  'a full editor quit (code-server process tree stopped, browser closed) and a start again: same PID, screen, typing',
  { timeout: 300_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const folder = e2e.workspace('restart');
      await e2e.openShared('restart');
      const session = await e2e.newTerminal();
      const pid = await e2e.shellPid(e2e.wb, 'before');
      assert.equal(pid, session.pid);
      await e2e.wb.typeInTerminal(`printf '\\033[31m%s-%s\\033[0m\\n' COLOR 42\n`);
      await e2e.iso.waitForScreen(session.id, 'COLOR-42');

      // Every core busy from the quit on: what a restart brings back must not depend on speed.
      busyUntilTheEnd(t);
      await e2e.closeBrowser();
      await e2e.server.stop();
      assert.equal(e2e.server.processes().length, 0, 'no code-server process left');
      assert.ok(isAlive(pid), 'the shell outlived the editor');
      const during = e2e.iso.session(session.id);
      assert.equal(during.state, 'running');
      assert.equal(during.pid, pid);

      await e2e.server.start();
      const wb = await e2e.launchBrowser();
      await e2e.open(folder);
      await wb.waitForHoldfastTabs([{ name: session.name, active: true }]);
      await wb.waitForTerminalText('COLOR-42');
      assert.match((await wb.terminalTextClasses('COLOR-42')) ?? '', /xterm-fg-1\b/, 'COLOR-42 is still red');
      assert.equal(await e2e.shellPid(wb, 'after'), pid, 'typing reaches the same shell');
      await wb.typeInTerminal('echo typed-$((6*7))\n');
      await e2e.iso.waitForScreen(session.id, /^typed-42$/m);
      assert.equal(e2e.iso.sessions().length, 1, 'no session was added');
      assert.deepEqual(otherTabs(await wb.terminalTabs()), [], NO_OTHER_TABS);
    });
  },
);

test('closing the browser page, then stopping the editor, never kills a session', { timeout: 300_000 }, async (t) => {
  await e2e.run(t.name, async () => {
    // The first test's window, its session removed: a page load less.
    await e2e.openShared('restart');
    const wb = e2e.wb;
    const session = await e2e.newTerminal();
    const pid = await e2e.shellPid(wb, 'before');
    const hostsBefore = e2e.server.extensionHostPids();
    assert.ok(hostsBefore.length > 0, 'an extension host runs');

    // Every core busy from here on: what outlives a closed window must not depend on speed.
    busyUntilTheEnd(t);
    // The user closes the window (the browser tab). After the grace period the server ends that
    // window's extension host (its pseudoterminals get close() with reason Shutdown).
    await wb.closeWindow();
    await waitFor(() => hostsBefore.every((h) => !e2e.server.extensionHostPids().includes(h)), {
      timeout: 60_000,
      message: "the closed window's extension host to end",
    });
    await absenceWindow(1_000); // no late kill
    assert.ok(isAlive(pid), 'the shell is alive after the window closed');
    let now = e2e.iso.session(session.id);
    assert.equal(now.state, 'running');
    assert.equal(now.pid, pid);

    // Then the editor stops altogether.
    await e2e.closeBrowser();
    await e2e.server.stop();
    assert.ok(isAlive(pid), 'the shell is alive after the editor stopped');
    now = e2e.iso.session(session.id);
    assert.equal(now.state, 'running');
    assert.equal(now.pid, pid);
    // Coming back after a restart is the previous test's subject.
  });
});
