// E2E: an extension update (a copy with a higher version installed beside
// the old one, then Reload Window) leaves sessions alive and attached, still served by the
// daemon started from the old copy; "Restart Daemon" then hands them to a daemon of the new version.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  daemonPids,
  type HoldfastE2E,
  isAlive,
  readProc,
  REPO_ROOT,
  NO_OTHER_TABS,
  otherTabs,
  waitFor,
  scenarioHooks,
} from './harness';

let e2e: HoldfastE2E;
let copy: string;

/** A copy of the built extension with another version: package.json, dist/, media/, bin/, node_modules (linked). */
function makeUpdatedCopy(dir: string, version: string): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  manifest.version = version;
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  for (const sub of ['dist', 'media', 'bin']) {
    if (fs.existsSync(path.join(REPO_ROOT, sub)))
      fs.cpSync(path.join(REPO_ROOT, sub), path.join(dir, sub), { recursive: true });
  }
  fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}

scenarioHooks({ name: 'update' }, (started) => {
  e2e = started;
  copy = path.join(e2e.iso.dir, 'holdfast-update');
});

test(
  'update: a higher version installed + reload keeps sessions alive and attached to the old daemon; ' +
    'Restart Daemon hands them to the new version',
  { timeout: 360_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const wb = e2e.wb;
      await e2e.open(e2e.workspace('update'));
      const session = await e2e.newTerminal();
      const pid = await e2e.shellPid(wb, 'before');
      await wb.typeInTerminal('echo before-update\n');
      await e2e.iso.waitForScreen(session.id, /^before-update$/m);

      const [daemon] = daemonPids(e2e.iso);
      assert.ok(daemon, 'the daemon process is found');
      const oldVersion = (
        JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }
      ).version;
      const daemonCmd = readProc(daemon)!.cmdline.join(' ');
      assert.match(
        daemonCmd,
        new RegExp(`/daemon/${oldVersion.replace(/\./g, '\\.')}-[0-9a-f]+/dist/daemon\\.js`),
        `the daemon runs from its versioned copy: ${daemonCmd}`,
      );

      // The update: a newer copy beside the old one (VS Code runs the highest version), then a reload.
      const newVersion = `${oldVersion}-update.1`.replace(
        /^(\d+)\.(\d+)\.(\d+).*$/,
        (_m, a, b, c) => `${a}.${b}.${Number(c) + 1}`,
      );
      e2e.server.installExtension(makeUpdatedCopy(copy, newVersion));
      await wb.reloadWindow();

      // The new version is the one running: it made its own copy of the daemon's files.
      const storage = path.join(e2e.server.userDataDir, 'User', 'globalStorage', 'holdfast.holdfast', 'daemon');
      await waitFor(
        () => fs.existsSync(storage) && fs.readdirSync(storage).some((d) => d.startsWith(`${newVersion}-`)),
        {
          timeout: 45_000,
          message: `extension ${newVersion} to activate (a ${newVersion}-* copy in ${storage})`,
        },
      );

      await wb.waitForHoldfastTabs([{ name: session.name, active: true }]);
      await wb.waitForTerminalText(/^before-update$/m);
      assert.deepEqual(daemonPids(e2e.iso), [daemon], 'the same daemon process serves the sessions');
      assert.match(
        readProc(daemon)!.cmdline.join(' '),
        new RegExp(`/daemon/${oldVersion.replace(/\./g, '\\.')}-`),
        'still from the old copy',
      );
      assert.equal(await e2e.shellPid(wb, 'after'), pid, 'the tab is attached to the same shell');
      assert.ok((e2e.iso.session(session.id).clients?.owners ?? 0) >= 1, 'the tab is the input owner');

      // Restart Daemon hands every session to a daemon of the new version: the same shell goes on in its tab.
      await wb.runCommand('Holdfast: Restart Daemon');
      await wb.page
        .locator('.notification-toast', { hasText: `took over from pid ${daemon}` })
        .waitFor({ state: 'visible', timeout: 30_000 });
      await waitFor(() => !isAlive(daemon), { timeout: 20_000, message: 'the old daemon to retire' });
      const fresh = await waitFor(() => daemonPids(e2e.iso)[0], { timeout: 20_000, message: 'the new daemon' });
      assert.match(
        readProc(fresh)!.cmdline.join(' '),
        new RegExp(`/daemon/${newVersion.replace(/\./g, '\\.')}-`),
        'the new daemon runs from the new copy',
      );
      assert.ok(isAlive(pid), 'the shell lives on');
      assert.equal(e2e.iso.session(session.id).state, 'running');
      await wb.typeInTerminal('echo after-handoff\n');
      await e2e.iso.waitForScreen(session.id, /^after-handoff$/m);
      await wb.waitForTerminalText(/^after-handoff$/m);
      assert.equal(await e2e.shellPid(wb, 'handed'), pid, 'the tab is attached to the same shell');
      assert.deepEqual(otherTabs(await wb.terminalTabs()), [], NO_OTHER_TABS);
    });
  },
);
