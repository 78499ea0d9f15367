// E2E: Holdfast: Split Terminal, split groups across Reload Window (the same shells) and a full quit, and a split
// member moved to the editor area (same process, out of the group).
// On the oldest VS Code (HOLDFAST_E2E_OLDEST, scripts/test.sh) only the first scene runs: the split beside the
// active tab and the groups across a reload, where 1.96 differed (issue 45). The split across Restart Daemon
// and a full quit runs there in localEcho.test; the other two scenes here run on the newest.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { OLDEST } from './environment';
import {
  type HoldfastE2E,
  NO_OTHER_TABS,
  openSidebar,
  otherTabs,
  PROMPT_RE,
  SessionsWebview,
  waitFor,
  scenarioHooks,
} from './harness';
import type { TerminalTab } from './harness';

let e2e: HoldfastE2E;

scenarioHooks({ name: 'splits' }, (started) => (e2e = started));

interface PanelTab {
  name: string;
  active: boolean;
  /** VS Code's split indicator before the name: ┌ first of a group, ├ middle, └ last; '' not split. */
  split: string;
}

/** The panel's Holdfast tabs with VS Code's split indicator taken off the name. */
function holdfastTabs(tabs: TerminalTab[]): PanelTab[] {
  return tabs
    .filter((t) => t.holdfast)
    .map((t) => {
      const [, split = '', name] = /^([┌├└])?\s*(.*)$/su.exec(t.name)!;
      return { name, active: t.active, split };
    });
}

/**
 * The PID of the shell in the focused terminal pane: types `echo $$ > FILE` with the keyboard only
 * (the harness's typeInTerminal clicks the first pane of a split group).
 */
async function focusedShellPid(label: string): Promise<number> {
  const page = e2e.wb.page;
  await waitFor(() => page.evaluate(() => !!document.activeElement?.classList.contains('xterm-helper-textarea')), {
    timeout: 10_000,
    message: 'a terminal pane to have the keyboard focus',
  });
  const file = e2e.file(`pid-${label}`);
  await page.keyboard.type(`echo $$ > ${file}`);
  await page.keyboard.press('Enter');
  const text = await waitFor(
    () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() || undefined : undefined),
    {
      timeout: 15_000,
      message: `the focused shell to write its PID to ${file}`,
    },
  );
  return Number(text);
}

async function waitForPanel(expected: PanelTab[], message: string): Promise<void> {
  let last: PanelTab[] = [];
  await waitFor(
    async () => JSON.stringify((last = holdfastTabs(await e2e.wb.terminalTabs()))) === JSON.stringify(expected),
    { timeout: 30_000, message: `${message}: expected ${JSON.stringify(expected)}` },
  ).catch((err: Error) => {
    throw new Error(`${err.message}; saw ${JSON.stringify(last)}`);
  });
}

test(
  'two tabs, the first active: Split Terminal splits the first as VS Code does; Reload Window keeps groups and shells',
  { timeout: 300_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const wb = e2e.wb;
      await e2e.openShared('splits');
      const first = await e2e.newTerminal();
      const second = await e2e.newTerminal();
      await wb.clickTerminalTab(first.name);
      await wb.focusTerminal();
      const member = await e2e.newTerminal(wb, 'Holdfast: Split Terminal');
      // VS Code 1.96 to 1.139 split only the panel's last terminal with a profile: the first moves to the end.
      const groups = [
        { name: second.name, active: false, split: '' },
        { name: first.name, active: false, split: '┌' },
        { name: member.name, active: true, split: '└' },
      ];
      await waitForPanel(groups, 'the split beside the active tab, the first');
      await waitFor(() => e2e.iso.session(member.id).metadata?.splitOf === first.id, {
        timeout: 10_000,
        message: `the split to record ${first.name}'s group`,
      });
      assert.equal(await focusedShellPid('two-tabs-member'), member.pid, 'the split has the focus');
      const sessions = e2e.iso.sessions().length;
      // VS Code reads its startup-shell setting before the extensions' defaults: Holdfast made it the user's own.
      const userSettings = path.join(e2e.server.userDataDir, 'User', 'settings.json');
      await waitFor(
        () => /"terminal\.integrated\.hideOnStartup":\s*"whenEmpty"/.test(fs.readFileSync(userSettings, 'utf8')),
        {
          timeout: 20_000,
          message: 'hideOnStartup in the user settings',
        },
      );

      await wb.reloadWindow();

      await waitForPanel(groups, 'the same groups after the reload');
      assert.equal(e2e.iso.sessions().length, sessions, 'no session was started by the reload');
      assert.deepEqual(otherTabs(await wb.terminalTabs()), [], NO_OTHER_TABS);

      // The same shells in the group: the active split, then the first of its group.
      await wb.waitForTerminalText(PROMPT_RE);
      await wb.runCommand('Terminal: Focus Terminal');
      assert.equal(await focusedShellPid('member-after'), member.pid, 'the active split is the same shell');
      await wb.runCommand('Terminal: Focus Previous Terminal in Terminal Group');
      await waitForPanel(
        [
          { name: second.name, active: false, split: '' },
          { name: first.name, active: true, split: '┌' },
          { name: member.name, active: false, split: '└' },
        ],
        'the first of the group focused',
      );
      assert.equal(await focusedShellPid('first-after'), first.pid, 'the first of the group is the same shell');
      for (const s of e2e.iso.sessions()) assert.equal(s.state, 'running');
    });
  },
);

// The scenes that run on the newest VS Code only (see the top of the file).
if (!OLDEST) {
  test(
    'a split member moved to the editor area keeps its process and leaves the group',
    { timeout: 240_000 },
    async (t) => {
      await e2e.run(t.name, async () => {
        const wb = e2e.wb;
        const sessions = e2e.iso.sessions();
        const member = sessions.find((s) => s.metadata?.splitOf !== undefined);
        const first = sessions.find((s) => s.id === member?.metadata?.splitOf);
        const second = sessions.find((s) => s !== member && s !== first);
        assert.ok(member && first && second, 'the two tabs and the split group of the previous test');
        await openSidebar(wb);
        const sidebar = new SessionsWebview(wb, 'sidebar');
        await sidebar.clickAction(member.id, 'openSessionInEditor');
        await waitFor(async () => (await wb.editorTabs()).some((tab) => tab.name === member.name), {
          timeout: 20_000,
          message: "the member's tab in the editor area",
        });
        await waitFor(
          () => {
            const metadata = e2e.iso.session(member.id).metadata;
            return metadata?.location === 'editor' && metadata.splitOf === undefined;
          },
          { timeout: 10_000, message: 'the editor location recorded, out of the group' },
        );
        await waitForPanel(
          [
            { name: second.name, active: false, split: '' },
            { name: first.name, active: true, split: '' },
          ],
          'the first alone in its group in the panel',
        );
        assert.equal(e2e.iso.session(member.id).pid, member.pid, 'the same process, moved');
        assert.equal(e2e.iso.session(member.id).state, 'running');
      });
    },
  );

  test(
    'a split group of three comes back in order after a full editor quit and a start again',
    { timeout: 300_000 },
    async (t) => {
      await e2e.run(t.name, async () => {
        // The scenes share one workspace, the scene before removed: a page load less each.
        const folder = e2e.workspace('splits');
        await e2e.openShared('splits');
        const first = await e2e.newTerminal();
        const second = await e2e.newTerminal(e2e.wb, 'Holdfast: Split Terminal');
        const third = await e2e.newTerminal(e2e.wb, 'Holdfast: Split Terminal');
        const group = [
          { name: first.name, active: false, split: '┌' },
          { name: second.name, active: false, split: '├' },
          { name: third.name, active: true, split: '└' },
        ];
        await waitForPanel(group, 'a split group of three');
        assert.deepEqual(
          [second, third].map((s) => s.metadata?.splitOf),
          [first.id, first.id],
          'both record the group',
        );

        await e2e.closeBrowser();
        await e2e.server.stop();
        await e2e.server.start();
        await e2e.launchBrowser();
        await e2e.open(folder);

        await waitForPanel(group, 'the split group of three back after the restart');
        await e2e.wb.runCommand('Terminal: Focus Terminal');
        assert.equal(await focusedShellPid('third-after-restart'), third.pid, 'the active split is the same shell');
        for (const s of [first, second, third]) assert.equal(e2e.iso.session(s.id).pid, s.pid, `${s.name}: same PID`);
        assert.deepEqual(otherTabs(await e2e.wb.terminalTabs()), [], NO_OTHER_TABS);
      });
    },
  );
}
