// E2E: an SSH host in the Sessions view (holdfast.hosts). A real sshd on loopback with a remote HOME, XDG dirs and
// daemon of its own (test/helpers/sshd.ts); the window reaches it through ssh as a user would (HOLDFAST_SSH adds
// the test's ssh config). This machine's section first, then the host's, its card's state live; a host with no
// known host key shows its one line; the host's session rings for you, the notification names the host and its
// Reply… answers it there, and nothing reaches this machine's session. A host's card opens its session in a tab
// here over the host's connection; typed into, it echoes; after Reload Window the tab is back, same remote process.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { CLI_SCRIPT } from '../helpers/daemon';
import { REMOTE, type SshServer, startSshServer, UNKNOWN_KEY } from '../helpers/sshd';
import { HoldfastE2E, openSidebar, PROMPT_RE, SessionsWebview, waitFor } from './harness';

let e2e: HoldfastE2E;
let sshd: SshServer;

/** The holdfast CLI here, reaching the host as the window does. */
function remoteCli(args: string[]): string {
  return execFileSync(process.execPath, [CLI_SCRIPT, '--host', REMOTE, ...args], {
    env: { ...process.env, HOLDFAST_SSH: sshd.sshProgram },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

// sshd first: the window's environment names its ssh config (hooks of one file may run in any order, so one hook).
before(async () => {
  sshd = await startSshServer();
  e2e = await HoldfastE2E.start({
    name: 'hosts',
    settings: { 'holdfast.hosts': [{ target: REMOTE, name: 'remote' }, UNKNOWN_KEY] },
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
      const local = await e2e.newTerminal();
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
  "hosts: a host's card opens its session in a tab here, typed into; Reload Window brings the tab back, same process",
  { timeout: 300_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const wb = e2e.wb;
      const created = JSON.parse(
        remoteCli(['new', '--name', 'far-sh', '--json', '--env', 'PS1=$ ', '--', 'bash', '--norc', '--noprofile']),
      ) as { session?: { id: string }; id?: string };
      const id = created.session?.id ?? created.id!;
      const key = `@remote/${id}`;
      const remoteShow = () =>
        JSON.parse(remoteCli(['show', 'far-sh', '--json'])) as { pid: number; clients: { owners: number } };
      const pid = remoteShow().pid;
      const title = 'far-sh (remote)';

      const sidebar = new SessionsWebview(wb, 'sidebar'); // open since the scene before (its icon would close it)
      await sidebar.waitForText(key, '$');
      await sidebar.click(key);
      await waitFor(async () => (await wb.terminalTabs()).some((tab) => tab.holdfast && tab.name === title), {
        timeout: 60_000,
        message: `the tab ${title}`,
      });
      await wb.clickTerminalTab(title);
      await wb.typeInTerminal('echo "typed-$((6*7))"\n');
      await wb.waitForTerminalText(/^typed-42$/m);
      assert.match(remoteCli(['read', 'far-sh']), /^typed-42$/m, "the keys reached the host's session");
      await waitFor(() => remoteShow().clients.owners === 1, {
        timeout: 20_000,
        message: "the tab to have input on the host's daemon",
      });
      await wb.screenshot('hosts-remote-tab');

      await wb.reloadWindow();
      await waitFor(async () => (await wb.terminalTabs()).some((tab) => tab.holdfast && tab.name === title), {
        timeout: 60_000,
        message: `the tab ${title} back after the reload`,
      });
      await wb.clickTerminalTab(title);
      await wb.waitForTerminalText(/^typed-42$/m); // the screen, from the host's snapshot
      await wb.typeInTerminal('echo "again-$((1+1))"\n');
      await wb.waitForTerminalText(/^again-2$/m);
      const after = remoteShow();
      assert.equal(after.pid, pid, 'the same remote process');
      assert.equal((await wb.terminalTabs()).filter((tab) => tab.name === title).length, 1, 'one tab for it, not two');
    });
  },
);
