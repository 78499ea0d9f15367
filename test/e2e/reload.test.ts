// E2E: Holdfast terminals across "Developer: Reload Window": same processes, same screens, no stray shell.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  busyUntilTheEnd,
  type HoldfastE2E,
  isAlive,
  NO_OTHER_TABS,
  otherTabs,
  type SessionView,
  trace,
  waitFor,
  scenarioHooks,
} from './harness';

let e2e: HoldfastE2E;

scenarioHooks({ name: 'reload' }, (started) => (e2e = started));

test(
  'a terminal survives Reload Window (same PID, red text, typing, `code notes.txt` opens it); an exited one says so',
  { timeout: 300_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const wb = e2e.wb;
      fs.writeFileSync(path.join(e2e.workspace('reload'), 'notes.txt'), 'holdfast notes\n');
      await e2e.openShared('reload');
      const session = await e2e.newTerminal();
      const pid = await e2e.shellPid(wb, 'before');
      assert.equal(pid, session.pid, 'the shell runs as the session process the daemon reports');

      // Coloured output; the printed text ("COLOR-42") is not in the command line itself.
      await wb.typeInTerminal(`printf '\\033[31m%s-%s\\033[0m\\n' COLOR 42\n`);
      await e2e.iso.waitForScreen(session.id, 'COLOR-42');
      await wb.waitForTerminalText('COLOR-42');
      assert.match((await wb.terminalTextClasses('COLOR-42')) ?? '', /xterm-fg-1\b/, 'COLOR-42 is rendered red');

      // Beside it, in front, a session whose program exited with code 1, as the Claude Code CLI does without
      // network: print something, then exit with code 1.
      const exited = await e2e.newTerminal();
      await wb.typeInTerminal(`echo last-words-$((6*7)); exit 1\n`);
      await waitFor(() => exitedWith(e2e.iso.session(exited.id), 1), {
        timeout: 20_000,
        message: `session ${exited.id} exited with code 1`,
      });
      await wb.waitForTerminalText(EXIT_LINE);

      // Every core busy from the reload on: what it brings back must not depend on speed.
      busyUntilTheEnd(t);
      await wb.reloadWindow();
      const ready = Date.now();

      // The same tabs come back; the one in front shows its last screen and says the process exited (it must not
      // look alive).
      await waitFor(async () => (await wb.terminalTabs()).some((tab) => tab.holdfast && tab.name === exited.name), {
        timeout: 60_000,
        message: `the tab ${exited.name} back`,
      });
      trace(`the restored tab is shown ${Date.now() - ready} ms after the workbench is ready`);
      await wb.waitForHoldfastTabs([{ name: session.name }, { name: exited.name, active: true }]);
      await wb.waitForTerminalText(/^last-words-42$/m);
      const text = await wb.waitForTerminalText(EXIT_LINE);
      assert.ok(
        text.indexOf('last-words-42') < text.search(EXIT_LINE),
        `the exit line comes after the last screen:\n${text}`,
      );
      assert.ok(exitedWith(e2e.iso.session(exited.id), 1), 'the daemon still has the session, exited with code 1');

      // The shell's tab shows its old screen (from the daemon's snapshot), still red.
      await wb.clickTerminalTab(session.name);
      await wb.waitForTerminalText('COLOR-42');
      assert.match(
        (await wb.terminalTextClasses('COLOR-42')) ?? '',
        /xterm-fg-1\b/,
        'COLOR-42 is still red after the reload',
      );

      assert.ok(isAlive(pid), 'the shell process is still alive');
      const again = await e2e.shellPid(wb, 'after');
      assert.equal(again, pid, 'typing after the reload reaches the same shell process');
      await wb.typeInTerminal('echo typed-$((6*7))\n');
      await e2e.iso.waitForScreen(session.id, /^typed-42$/m);
      await wb.waitForTerminalText(/^typed-42$/m);

      // `code notes.txt` typed there opens notes.txt in this window.
      await wb.typeInTerminal(`code notes.txt; echo code-exit-$?\n`);
      await e2e.iso.waitForScreen(session.id, /^code-exit-\d+$/m);
      const screen = e2e.iso.screen(session.id).join('\n');
      assert.match(screen, /^code-exit-0$/m, `the code CLI succeeded; screen:\n${screen}`);
      await waitFor(async () => (await wb.editorTabs()).find((tab) => tab.name === 'notes.txt'), {
        timeout: 20_000,
        message: 'an editor tab for notes.txt',
      });

      const byId = (a: SessionView, b: SessionView) => a.id.localeCompare(b.id);
      const sessions = e2e.iso.sessions().sort(byId);
      assert.deepEqual(
        sessions.map((s) => [s.id, s.pid, s.state]),
        [session, exited].sort(byId).map((s) => [s.id, s.pid, s.id === session.id ? 'running' : 'exited']),
        'no new session was started by the reload; the shell runs',
      );
      assert.deepEqual(otherTabs(await wb.terminalTabs()), [], NO_OTHER_TABS);
    });
  },
);

test(
  'three named terminals, the second active: Reload Window keeps order, names and the active tab, without duplicates',
  { timeout: 300_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const wb = e2e.wb;
      await e2e.openShared('reload');
      const names = ['alpha', 'beta', 'gamma'];
      const pids = new Map<string, number>();
      for (const name of names) {
        const session = await e2e.newTerminal();
        await wb.runCommand('Holdfast: Rename Session');
        await wb.answerInputBox(name);
        await waitFor(() => e2e.iso.session(session.id).name === name, {
          timeout: 10_000,
          message: `session ${session.id} renamed to ${name}`,
        });
        await waitFor(async () => (await wb.terminalTabs()).some((tab) => tab.name === name), {
          timeout: 10_000,
          message: `a tab named ${name}`,
        });
        pids.set(name, session.pid);
      }
      await wb.clickTerminalTab('beta');
      await wb.typeInTerminal('echo i-am-beta\n');
      const beta = e2e.iso.sessions().find((s) => s.name === 'beta')!;
      await e2e.iso.waitForScreen(beta.id, /^i-am-beta$/m);
      await wb.waitForHoldfastTabs(
        [
          { name: 'alpha', active: false },
          { name: 'beta', active: true },
          { name: 'gamma', active: false },
        ],
        { settleMs: 0 },
      );

      // Every core busy from the reload on: what it brings back must not depend on speed.
      busyUntilTheEnd(t);
      await wb.reloadWindow();

      await wb.waitForHoldfastTabs(
        [
          { name: 'alpha', active: false },
          { name: 'beta', active: true },
          { name: 'gamma', active: false },
        ],
        { settleMs: 3_000 },
      );
      await wb.waitForTerminalText(/^i-am-beta$/m);

      const sessions = e2e.iso.sessions().filter((s) => names.includes(s.name));
      assert.equal(sessions.length, 3, 'still three sessions');
      for (const s of sessions) {
        assert.equal(s.pid, pids.get(s.name), `${s.name} has the same PID`);
        assert.equal(s.state, 'running');
      }
      // The visible terminal is beta's shell.
      assert.equal(await e2e.shellPid(wb, 'beta-after'), pids.get('beta'));
      assert.deepEqual(otherTabs(await wb.terminalTabs()), [], NO_OTHER_TABS);
    });
  },
);

/** The notice a tab prints when its process exited with code 1 (notices.ts: exitNotice). */
const EXIT_LINE = /\[holdfast\] process exited with code 1\b/;

function exitedWith(session: SessionView, code: number): boolean {
  const exit = session.exit as { code?: number | null } | null | undefined;
  return session.state === 'exited' && exit?.code === code;
}
