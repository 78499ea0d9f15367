// E2E: an SSH host in the Sessions view (holdfast.hosts). A real sshd on loopback with a remote HOME, XDG dirs and
// daemon of its own (test/helpers/sshd.ts); the window reaches it through ssh as a user would (HOLDFAST_SSH adds
// the test's ssh config). This machine's section first, then the host's, its card's state live; a host with no
// known host key shows its one line; the host's session rings for you, the notification names the host and its
// Reply… answers it there, and nothing reaches this machine's session. A host's card opens its session in a tab
// here over the host's connection; typed into, it echoes; New Terminal on the host (picked, a folder typed) runs its
// shell there; after Reload Window both tabs are back, same remote processes; the window's ssh killed, the tab says it
// is reconnecting and comes back by itself to the same program, nothing doubled or lost; after a full editor quit
// and a start again the host's tabs are back, attached to the same programs.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { CLI_SCRIPT } from '../helpers/daemon';
import { REMOTE, type SshServer, startSshServer, UNKNOWN_KEY } from '../helpers/sshd';
import { HoldfastE2E, openSidebar, PROMPT_RE, type SessionView, SessionsWebview, waitFor } from './harness';
import { DaemonProbe } from './daemonProbe';
import { kill } from './processes';

let e2e: HoldfastE2E;
/** The host's agent: says where it runs, then waits. */
const FAR_AGENT = '#!/bin/sh\necho "far-agent in $(/bin/pwd)"\nexec sleep 100000\n';
let sshd: SshServer;

/** The holdfast CLI here, reaching the host as the window does. */
function remoteCli(args: string[]): string {
  return execFileSync(process.execPath, [CLI_SCRIPT, '--host', REMOTE, ...args], {
    env: { ...process.env, HOLDFAST_SSH: sshd.sshProgram },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

/** With hosts listed, New Terminal and New Agent ask where first: this machine, then each host. */
async function newOn(where: string, command = 'Holdfast: New Terminal'): Promise<void> {
  await e2e.wb.runCommand(command);
  await waitFor(async () => (await e2e.wb.quickPickItems()).join('|') === `This machine|remote|${UNKNOWN_KEY}`, {
    timeout: 15_000,
    message: 'the pick of this machine and the hosts',
  });
  await e2e.wb.pickQuickItem(where);
}

/** New Terminal on this machine, once its shell shows the prompt. */
async function newLocalTerminal(): Promise<SessionView> {
  const before = new Set(e2e.iso.sessions().map((s) => s.id));
  await newOn('This machine');
  const session = await waitFor(() => e2e.iso.sessions().find((s) => !before.has(s.id)), {
    timeout: 30_000,
    message: 'a new session on this machine',
  });
  await e2e.iso.waitForScreen(session.id, PROMPT_RE);
  await e2e.wb.waitForTerminalText(PROMPT_RE);
  return session;
}

/** The window's ssh processes running the bridge of `target` (one connection per host). */
function windowSshPids(target: string): number[] {
  return e2e.server
    .processes()
    .filter((p) => p.cmdline[0] === 'ssh' && p.cmdline.includes(target) && p.cmdline.at(-1)?.includes(' bridge'))
    .map((p) => p.pid);
}

// sshd first: the window's environment names its ssh config (hooks of one file may run in any order, so one hook).
before(async () => {
  sshd = await startSshServer();
  e2e = await HoldfastE2E.start({
    name: 'hosts',
    settings: {
      'holdfast.hosts': [{ target: REMOTE, name: 'remote' }, UNKNOWN_KEY],
      // An agent whose command is on the host's PATH alone (sshd.ts's remote bin).
      'holdfast.agents': [{ id: 'far-agent', name: 'Far Agent', argv: ['far-agent'] }],
    },
    env: { HOLDFAST_SSH: sshd.sshProgram },
  });
});

// The window first: its ssh connections end before the host's daemon and sshd do.
after(async () => {
  await e2e?.dispose();
  await sshd?.stop();
});

test(
  "hosts: this machine's section, then the host's with live states and its failure line; Reply… answers there",
  { timeout: 300_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const wb = e2e.wb;
      const script =
        'echo remote-ready; read line; echo "got:$line"; printf "Deploy remote?\\a\\n"; read answer; ' +
        'echo "answer:$answer"; exec sleep 100000';
      const far = JSON.parse(
        remoteCli(['new', '--name', 'far', '--cols', '90', '--rows', '20', '--json', '--', '/bin/sh', '-c', script]),
      ) as { session?: { id: string }; id?: string };
      const farId = far.session?.id ?? far.id!;
      const farKey = `@remote/${farId}`;

      await e2e.open(e2e.workspace('hosts'));
      const local = await newLocalTerminal();
      await wb.typeInTerminal("printf 'local-%s\\n' screen\n");
      await e2e.iso.waitForScreen(local.id, /^local-screen$/m);

      await openSidebar(wb);
      const sidebar = new SessionsWebview(wb, 'sidebar');
      await sidebar.waitForText(local.id, 'local-screen');
      await waitFor(async () => (await sidebar.phase(farKey)) !== undefined, {
        timeout: 60_000,
        message: "the host's session's card",
      });
      assert.deepEqual(await sidebar.cardOrder(), [local.id, farKey], "this machine's session first, then the host's");
      const frame = await sidebar.frame();
      const headings = await frame.locator('.host .host-heading').allTextContents();
      assert.deepEqual(headings, ['remote', UNKNOWN_KEY]);
      await waitFor(
        async () =>
          (await frame.locator(`.host[data-host="${UNKNOWN_KEY}"] .host-status`).textContent()) ===
          `ssh: host key unknown — run \`ssh ${UNKNOWN_KEY}\` once`,
        { timeout: 60_000, message: "the unknown host key's one line in its section" },
      );
      assert.equal(await sidebar.previewSize(farKey), '90x20', "the preview takes the remote session's size");
      await wb.screenshot('hosts-two-sections');

      // Live: the preview shows the host's screen (its snapshot), then what the host's program prints next.
      await sidebar.waitForText(farKey, 'remote-ready');
      remoteCli(['send', 'far', '--text', 'over-ssh', '--enter']);
      await sidebar.waitForText(farKey, 'got:over-ssh');

      // It rings: waiting, told here with the host named; Reply… types into the host's session only.
      await sidebar.waitForPhase(farKey, 'waiting', 30_000);
      const toast = await wb.toast('"far" on remote is waiting for you');
      await toast.locator('.monaco-button', { hasText: /^Reply…$/ }).click();
      await wb.answerInputBox('ship it');
      await waitFor(() => /^answer:ship it$/m.test(remoteCli(['read', 'far'])), {
        timeout: 20_000,
        message: "the answer on the host's own screen",
      });
      assert.doesNotMatch(e2e.iso.screen(local.id).join('\n'), /ship it/, "nothing reached this machine's session");
      assert.match(e2e.iso.screen(local.id).join('\n'), PROMPT_RE);
    });
  },
);

test(
  "hosts: a card's tab and New Terminal on the host; Reload Window and a restart bring them back; ssh killed: back",
  { timeout: 420_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const wb = e2e.wb;
      const created = JSON.parse(
        remoteCli(['new', '--name', 'far-sh', '--json', '--env', 'PS1=$ ', '--', 'bash', '--norc', '--noprofile']),
      ) as { session?: { id: string }; id?: string };
      const id = created.session?.id ?? created.id!;
      const key = `@remote/${id}`;
      // The checks ask the host's daemon on its socket, as the other files' waits ask theirs: a CLI call over ssh
      // (two Nodes and a login) each cost ~0.5 CPU-s.
      const probe = new DaemonProbe(path.join(sshd.remoteEnv.XDG_RUNTIME_DIR!, 'holdfast', 'holdfast.sock'));
      const remoteShow = (name: string) =>
        probe.ask<{ session: { pid: number; cwd: string; clients: { owners: number } } }>('show', { session: name })
          .session;
      const remoteRead = (name: string) => probe.ask<{ lines: string[] }>('read', { session: name }).lines.join('\n');
      const pid = remoteShow('far-sh').pid;
      const title = 'far-sh (remote)';
      const hasTab = async (name: string) => (await wb.terminalTabs()).some((tab) => tab.holdfast && tab.name === name);

      const sidebar = new SessionsWebview(wb, 'sidebar'); // open since the scene before (its icon would close it)
      await sidebar.waitForText(key, '$');
      await sidebar.click(key);
      await waitFor(() => hasTab(title), { timeout: 60_000, message: `the tab ${title}` });
      await wb.clickTerminalTab(title);
      await wb.typeInTerminal('echo "typed-$((6*7))"\n');
      await wb.waitForTerminalText(/^typed-42$/m);
      assert.match(remoteRead('far-sh'), /^typed-42$/m, "the keys reached the host's session");
      await waitFor(() => remoteShow('far-sh').clients.owners === 1, {
        timeout: 20_000,
        message: "the tab to have input on the host's daemon",
      });
      await wb.screenshot('hosts-remote-tab');

      // New Terminal on the host, in a folder typed: a folder not there is one line and no session.
      const home = sshd.remoteEnv.HOME!;
      const folder = path.join(home, 'proj-far');
      fs.mkdirSync(folder, { recursive: true });
      fs.writeFileSync(path.join(home, 'remote-marker'), 'only-on-the-host\n');
      const typeFolder = async (typed: string) => {
        await newOn('remote');
        await wb.page.fill('.quick-input-widget .quick-input-box input', typed);
        await wb.pickQuickItem(typed);
      };
      const remoteCount = () => probe.ask<{ sessions: unknown[] }>('list', {}).sessions.length;
      const sessionsBefore = remoteCount();
      await typeFolder('/no/such/folder');
      await wb.toast('remote: no such directory: /no/such/folder');
      await wb.runCommand('Notifications: Clear All Notifications'); // a toast can cover the terminal's tab list
      assert.equal(remoteCount(), sessionsBefore, 'no session started');
      await typeFolder(folder);
      const newTitle = 'holdfast 1 (remote)';
      await waitFor(() => hasTab(newTitle), { timeout: 60_000, message: `the tab ${newTitle}` });
      await wb.waitForTerminalText(PROMPT_RE);
      await wb.typeInTerminal('pwd; cat ~/remote-marker\n');
      await wb.waitForTerminalText(new RegExp(`^${folder}\\n(.*\\n)?only-on-the-host$`, 'm'));
      const started = remoteShow('holdfast 1');
      assert.equal(started.cwd, folder, "the session's folder on the host");
      assert.ok(!fs.existsSync(path.join(os.homedir(), 'remote-marker')), "the marker is the host's HOME's alone");
      await wb.screenshot('hosts-new-terminal-on-host');

      // New Agent on the host, in the folder just used there (offered as recent): its command is the host's.
      fs.writeFileSync(path.join(sshd.remoteEnv.PATH!.split(':')[0], 'far-agent'), FAR_AGENT, { mode: 0o755 });
      await newOn('remote', 'Holdfast: New Agent…');
      await waitFor(async () => (await wb.quickPickItems()).join('|') === `Home folder|${folder}`, {
        timeout: 15_000,
        message: 'the home and the recent folder on the host',
      });
      await wb.pickQuickItem(folder);
      await wb.pickQuickItem('Far Agent');
      const agentTitle = 'far-agent 1 (remote)';
      await waitFor(() => hasTab(agentTitle), { timeout: 60_000, message: `the tab ${agentTitle}` });
      await wb.waitForTerminalText(new RegExp(`^far-agent in ${folder}$`, 'm'));

      await wb.reloadWindow();
      for (const name of [title, newTitle, agentTitle])
        await waitFor(() => hasTab(name), { timeout: 60_000, message: `the tab ${name} back after the reload` });
      await wb.clickTerminalTab(newTitle);
      await wb.waitForTerminalText(/^only-on-the-host$/m); // the screen, from the host's snapshot
      assert.equal(remoteShow('holdfast 1').pid, started.pid, 'the same shell on the host');
      await wb.clickTerminalTab(title);
      await wb.waitForTerminalText(/^typed-42$/m);
      await wb.typeInTerminal('echo "again-$((1+1))"\n');
      await wb.waitForTerminalText(/^again-2$/m);
      assert.equal(remoteShow('far-sh').pid, pid, 'the same remote process');
      assert.equal((await wb.terminalTabs()).filter((tab) => tab.name === title).length, 1, 'one tab for it, not two');

      // The window's ssh to the host killed, while the network stays down a moment: the tab says it is reconnecting,
      // keeps what is typed meanwhile, and comes back by itself to the same program, which counts on.
      await wb.typeInTerminal('clear; n=0; tick() { n=$((n+1)); echo "tick-$n"; }; tick\n');
      await wb.waitForTerminalText(/^tick-1$/m);
      const ssh = await waitFor(
        () => {
          const pids = windowSshPids(REMOTE);
          return pids.length === 1 ? pids : undefined;
        },
        { timeout: 20_000, message: "the window's one ssh to the host" },
      );
      sshd.hold(true);
      try {
        kill(ssh[0], 'SIGKILL');
        await wb.waitForTerminalText(/lost the connection to remote; its programs run on there/);
        await wb.typeInTerminal('tick\n');
      } finally {
        sshd.hold(false);
      }
      await wb.waitForTerminalText(/^tick-2$/m, 60_000);
      await wb.typeInTerminal('tick\n');
      await wb.waitForTerminalText(/^tick-3$/m);
      const ticks = (text: string) =>
        text
          .split('\n')
          .map((line) => line.trimEnd())
          .filter((line) => /^tick-\d+$/.test(line));
      assert.deepEqual(ticks(await wb.terminalText()), ['tick-1', 'tick-2', 'tick-3'], 'each once, in order');
      assert.deepEqual(ticks(remoteCli(['read', 'far-sh'])), ['tick-1', 'tick-2', 'tick-3'], "as the host's screen");
      assert.equal(remoteShow('far-sh').pid, pid, 'the remote program never noticed');
      assert.ok(!windowSshPids(REMOTE).includes(ssh[0]), 'a new ssh');
      await wb.screenshot('hosts-reconnected');

      // A full editor quit (code-server's process tree stopped, the browser closed) and a start again: the host's
      // tabs come back attached to the same programs there.
      await e2e.closeBrowser();
      await e2e.server.stop();
      assert.equal(windowSshPids(REMOTE).length, 0, "the window's ssh ended with the editor");
      await e2e.server.start();
      const again = await e2e.launchBrowser();
      await e2e.open(e2e.workspace('hosts'));
      const tabsAgain = async (name: string) =>
        (await again.terminalTabs()).some((tab) => tab.holdfast && tab.name === name);
      for (const name of [title, newTitle, agentTitle])
        await waitFor(() => tabsAgain(name), { timeout: 60_000, message: `the tab ${name} back after a restart` });
      await again.clickTerminalTab(title);
      await again.waitForTerminalText(/^tick-3$/m); // the screen, from the host's snapshot
      await again.typeInTerminal('tick\n');
      await again.waitForTerminalText(/^tick-4$/m);
      assert.equal(remoteShow('far-sh').pid, pid, 'the same remote process after the restart');
      assert.equal(remoteShow('holdfast 1').pid, started.pid, 'the same shell on the host after the restart');
      probe.dispose();
    });
  },
);
