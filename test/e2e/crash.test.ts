// E2E: the extension host is killed with SIGKILL; VS Code restarts it and
// the Holdfast tab is back, attached to the same process, once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type HoldfastE2E, isAlive, NO_OTHER_TABS, otherTabs, waitFor, scenarioHooks } from './harness';

let e2e: HoldfastE2E;

scenarioHooks({ name: 'crash' }, (started) => (e2e = started));

test(
  'extension host killed with SIGKILL: same PID, screen, typing, no duplicate tab',
  { timeout: 240_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const wb = e2e.wb;
      await e2e.open(e2e.workspace('crash'));
      const session = await e2e.newTerminal();
      const pid = await e2e.shellPid(wb, 'before');
      await wb.typeInTerminal(`printf '\\033[31m%s-%s\\033[0m\\n' COLOR 42\n`);
      await e2e.iso.waitForScreen(session.id, 'COLOR-42');

      const killed = await e2e.server.killExtensionHost();
      const host = await e2e.server.waitForExtensionHost(killed);
      assert.ok(!killed.includes(host));
      assert.ok(isAlive(pid), 'the shell outlived the extension host');
      // The new extension host re-attaches (the killed one's connection closed with it).
      await waitFor(() => (e2e.iso.session(session.id).clients?.owners ?? 0) >= 1, {
        timeout: 45_000,
        message: 'the session to have an input owner again',
      });

      await wb.waitForHoldfastTabs([{ name: session.name }], { timeout: 45_000, settleMs: 3_000 });
      await wb.clickTerminalTab(session.name);
      await wb.waitForTerminalText('COLOR-42');
      assert.equal(await e2e.shellPid(wb, 'after'), pid, 'typing reaches the same shell');
      await wb.typeInTerminal('echo typed-$((6*7))\n');
      await e2e.iso.waitForScreen(session.id, /^typed-42$/m);
      const sessions = e2e.iso.sessions();
      assert.equal(sessions.length, 1, 'no session was added');
      assert.equal(sessions[0].pid, pid);
      assert.deepEqual(otherTabs(await wb.terminalTabs()), [], NO_OTHER_TABS);
    });
  },
);
