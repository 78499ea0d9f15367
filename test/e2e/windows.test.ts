// E2E: a second window on the same workspace shows the session as a
// watcher (and says so), does not change its size, and takes input over when the user types; and a
// workspace's own settings cannot change the daemon's config, which every window shares.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { absenceWindow } from '../helpers/absence';
import { type HoldfastE2E, waitFor, scenarioHooks } from './harness';

let e2e: HoldfastE2E;

// A user's own recovery setting: the mirror applies it to the daemon (the workspace's never).
scenarioHooks({ name: 'windows', settings: { 'holdfast.recovery.keep': 5 } }, (started) => (e2e = started));

test('a second window watches without resizing; typing there takes input over', { timeout: 300_000 }, async (t) => {
  await e2e.run(t.name, async () => {
    const folder = e2e.workspace('windows');
    const wb1 = e2e.wb;
    await e2e.open(folder);
    const session = await e2e.newTerminal(wb1);
    await wb1.typeInTerminal('echo from-window-1\n');
    await e2e.iso.waitForScreen(session.id, /^from-window-1$/m);
    const size = e2e.iso.session(session.id);

    // A smaller second window on the same folder.
    const wb2 = await e2e.newWindow(folder, { width: 1000, height: 640 });
    await wb2.waitForHoldfastTabs([{ name: session.name }]);
    await wb2.showTerminalPanel();
    await wb2.clickTerminalTab(session.name);
    await wb2.waitForTerminalText(/^from-window-1$/m);
    await wb2.waitForTerminalText(/watching/i);
    await waitFor(() => (e2e.iso.session(session.id).clients?.watchers ?? 0) >= 1, {
      timeout: 15_000,
      message: 'a watcher client',
    });
    await absenceWindow(2_000); // no late resize or takeover by the watching window
    let now = e2e.iso.session(session.id);
    assert.equal(now.clients?.owners, 1, 'window 1 keeps input');
    assert.deepEqual([now.cols, now.rows], [size.cols, size.rows], 'the watching window did not resize the session');

    // Typing in window 2 takes input over; window 1 is told.
    await wb2.typeInTerminal('echo from-window-2\n');
    await e2e.iso.waitForScreen(session.id, /^from-window-2$/m);
    await wb1.waitForTerminalText(/input moved/i);
    now = await waitFor(
      () => {
        const s = e2e.iso.session(session.id);
        return s.cols !== size.cols || s.rows !== size.rows ? s : undefined;
      },
      { timeout: 15_000, message: "the session to take the new owner's size" },
    );
    assert.equal(now.clients?.owners, 1, 'exactly one input owner');
    assert.ok(
      now.cols < size.cols || now.rows < size.rows,
      `the smaller window's size (${now.cols}x${now.rows}, was ${size.cols}x${size.rows})`,
    );
    assert.equal(await e2e.shellPid(wb2, 'window-2'), session.pid);
  });
});

test(
  "a workspace's .vscode/settings.json cannot turn screen saving on or recovery off in the daemon",
  { timeout: 240_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const folder = e2e.workspace('cloned-repository');
      fs.mkdirSync(path.join(folder, '.vscode'), { recursive: true });
      fs.writeFileSync(
        path.join(folder, '.vscode', 'settings.json'),
        JSON.stringify({ 'holdfast.recovery.screenText': true, 'holdfast.recovery.enabled': false }),
      );
      await e2e.open(folder);
      await e2e.newTerminal();
      const recovery = () => {
        const r = e2e.iso.cli(['--json', 'config', 'get']);
        assert.equal(r.code, 0, r.stderr);
        return (JSON.parse(r.stdout) as { config: { recovery: Record<string, unknown> } }).config.recovery;
      };
      // The user's value arrived: the mirror ran in this window; the workspace's values did not.
      await waitFor(() => recovery().keep === 5, { timeout: 20_000, message: "the user's recovery.keep applied" });
      assert.notEqual(
        recovery().screenText,
        true,
        `the workspace's screenText: true applied: ${JSON.stringify(recovery())}`,
      );
      assert.notEqual(recovery().enabled, false, "the workspace's enabled: false is not applied");
    });
  },
);
