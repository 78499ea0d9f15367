// E2E (issues 4 and 6): "Holdfast: New Agent…" starts a Claude Code stand-in with a generated
// --session-id; a missing agent binary is named; then a simulated reboot (the daemon and every
// session SIGKILLed) and a reload bring both tabs back archived, in order, with their saved
// screens, and Resume runs the stand-in with --resume <the recorded id> in the same tab.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  daemonPids,
  type HoldfastE2E,
  isAlive,
  makeTempDir,
  NO_OTHER_TABS,
  openSidebar,
  otherTabs,
  PROMPT_RE,
  readEnviron,
  SessionsWebview,
  type SessionView,
  type TerminalTab,
  waitFor,
  scenarioHooks,
  writeExecutable,
} from './harness';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Behaves like an agent: says how it was started, rings the bell when it waits for a line, works on each line. */
const STAND_IN = `#!/usr/bin/env bash
printf '\\033[1;35mclaude stand-in\\033[0m\\n'
printf 'arg: %s\\n' "$@"
while true; do
  printf '\\a> '
  IFS= read -r line || exit 0
  [ "$line" = "/exit" ] && exit 0
  printf 'working on: %s\\n' "$line"
done
`;

const binDir = makeTempDir('agents-bin');
const CLAUDE = writeExecutable(binDir, 'claude', STAND_IN);

let e2e: HoldfastE2E;

scenarioHooks(
  {
    name: 'agents',
    cleanup: () => fs.rmSync(binDir, { recursive: true, force: true }),
    // Screens are saved only when the user allows it; the setting is applied to the daemon.
    // The stand-in replaces the built-in Claude Code profile's binary (the server's login shell
    // resets PATH, so a PATH entry would not reach the extension host).
    settings: {
      'holdfast.recovery.screenText': true,
      'holdfast.agents': [
        {
          id: 'claude',
          name: 'Claude Code',
          argv: [CLAUDE, '--session-id', '{id}'],
          resumeArgv: [CLAUDE, '--resume', '{id}'],
        },
      ],
    },
  },
  (started) => (e2e = started),
);

function holdfastTabNames(tabs: TerminalTab[]): string[] {
  return tabs.filter((tab) => tab.holdfast).map((tab) => tab.name);
}

function agentMeta(session: SessionView): { profile?: string; sessionId?: string; resumeArgv?: string[] } {
  return session.metadata?.agent ?? {};
}

test(
  'New Agent starts the Claude Code stand-in with a generated --session-id; a missing binary is named',
  { timeout: 240_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const wb = e2e.wb;
      await e2e.open(e2e.workspace('agents'));

      await wb.runCommand('Holdfast: New Agent…');
      await wb.pickQuickItem(/Claude Code/);
      const agent = await waitFor(() => e2e.iso.sessions().find((s) => agentMeta(s).profile === 'claude'), {
        timeout: 30_000,
        message: 'the agent session',
      });
      const id = agentMeta(agent).sessionId!;
      assert.match(id, UUID_RE, 'a UUID was generated and recorded');
      assert.deepEqual(agent.argv, [CLAUDE, '--session-id', id]);
      assert.deepEqual(agentMeta(agent).resumeArgv, [CLAUDE, '--resume', '{id}']);
      assert.equal(agent.name, 'claude 1');
      await e2e.iso.waitForScreen(agent.id, `arg: --session-id\narg: ${id}`);
      await wb.waitForTerminalText(`arg: ${id}`);
      await wb.typeInTerminal('fix the tests\n');
      await e2e.iso.waitForScreen(agent.id, 'working on: fix the tests');

      // Codex is not installed here: a clear message, and no dead tab.
      await wb.runCommand('Holdfast: New Agent…');
      await wb.pickQuickItem(/Codex CLI/);
      const message = await waitFor(async () => (await wb.notifications()).find((n) => n.includes('`codex`')), {
        timeout: 15_000,
        message: 'the missing-binary message',
      });
      assert.match(message, /not on PATH/);
      assert.match(message, /holdfast\.agents/);
      assert.equal(e2e.iso.sessions().length, 1, 'no session was started for the missing agent');
    });
  },
);

test(
  'reboot (daemon and sessions SIGKILLed) → reload → archived tabs in order with saved screens → ' +
    'Resume runs --resume <id> in place',
  { timeout: 300_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const wb = e2e.wb;
      if (wb.folder !== e2e.workspace('agents')) await e2e.open(e2e.workspace('agents'));
      const agent = e2e.iso.sessions().find((s) => agentMeta(s).profile === 'claude');
      assert.ok(agent, 'the agent of the first test is running');
      const agentId = agentMeta(agent).sessionId!;
      const shell = await e2e.newTerminal();
      await wb.typeInTerminal(`printf '\\033[32m%s-%s\\033[0m\\n' SHELL SAVED\n`);
      await e2e.iso.waitForScreen(shell.id, 'SHELL-SAVED');
      assert.equal(
        e2e.iso.cliJson<{ value: unknown }>(['config', 'get', 'recovery.screenText']).value,
        true,
        'the VS Code setting reached the daemon',
      );
      // The daemon writes checkpoints on its own (on changes and every intervalSeconds); this one is now.
      e2e.iso.cliJson(['recovery', 'checkpoint']);

      // A reboot: the daemon and every session process die at once, nobody writes anything more.
      const victims = [...daemonPids(e2e.iso), agent.pid, shell.pid];
      for (const pid of victims) process.kill(pid, 'SIGKILL');
      await waitFor(() => victims.every((pid) => !isAlive(pid)), {
        timeout: 10_000,
        message: 'the daemon and its sessions to die',
      });

      await wb.reloadWindow();
      await e2e.waitForHoldfast(wb);
      const tabs = await wb.waitForHoldfastTabs([{ name: agent.name }, { name: shell.name }], {
        timeout: 60_000,
        settleMs: 2_000,
      });
      assert.deepEqual(holdfastTabNames(tabs), [agent.name, shell.name], 'in their order');

      const archived = e2e.iso.sessions();
      assert.deepEqual(archived.map((s) => [s.name, s.state]).sort(), [
        [agent.name, 'exited'],
        [shell.name, 'exited'],
      ]);
      for (const s of archived) assert.ok(s.metadata?.archivedFrom, `${s.name} is archived`);
      const archivedAgent = archived.find((s) => s.name === agent.name)!;
      assert.equal(agentMeta(archivedAgent).sessionId, agentId, 'the agent session id survived the reboot');

      await wb.clickTerminalTab(shell.name);
      await wb.waitForTerminalText('SHELL-SAVED');
      await wb.waitForTerminalText(/archived: this process ended with its daemon/);
      await wb.clickTerminalTab(agent.name);
      await wb.waitForTerminalText('working on: fix the tests');
      await wb.waitForTerminalText(/Resume the conversation/);

      await wb.runCommand('Holdfast: Resume Session');
      const resumed = await waitFor(
        () => e2e.iso.sessions().find((s) => s.name === agent.name && s.state === 'running'),
        { timeout: 30_000, message: 'the resumed agent' },
      );
      assert.deepEqual(resumed.argv, [CLAUDE, '--resume', agentId]);
      assert.equal(resumed.metadata?.archivedFrom, undefined, 'a new run, no longer archived');
      // It keeps the session's stable `code` hook.
      const hook = resumed.metadata?.cliHook;
      assert.equal(typeof hook, 'string');
      // Read once its program runs: between node-pty's fork and exec the pid still shows the daemon's environment.
      const hookVar = `VSCODE_IPC_HOOK_CLI=${path.join(path.dirname(e2e.iso.socket), 'cli', `${String(hook)}.sock`)}`;
      await waitFor(() => readEnviron(resumed.pid).includes(hookVar), {
        timeout: 10_000,
        message: "the resumed agent with its session's code hook",
      });
      await e2e.iso.waitForScreen(resumed.id, `arg: --resume\narg: ${agentId}`);
      await wb.waitForTerminalText('arg: --resume');
      // Same tab, same place: no tab was added or moved, and it takes input.
      assert.deepEqual(holdfastTabNames(await wb.terminalTabs()), [agent.name, shell.name]);
      await waitFor(async () => otherTabs(await wb.terminalTabs()).length === 0, {
        timeout: 15_000,
        message: NO_OTHER_TABS,
      });
      await wb.typeInTerminal('carry on\n');
      await e2e.iso.waitForScreen(resumed.id, 'working on: carry on');
      assert.equal(e2e.iso.sessions().length, 2, 'the archive was replaced, not duplicated');
    });
  },
);

test(
  'the sidebar marks the archive; Relaunch starts the shell again in its tab; Open in Editor Area moves the agent',
  { timeout: 240_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const wb = e2e.wb;
      const sessions = e2e.iso.sessions();
      const shell = sessions.find((s) => s.state === 'exited' && s.metadata?.archivedFrom);
      const agent = sessions.find((s) => s.state === 'running' && agentMeta(s).profile === 'claude');
      assert.ok(shell && agent, 'the archived shell and the resumed agent of the previous test');
      await openSidebar(wb);
      const sidebar = new SessionsWebview(wb, 'sidebar');
      await sidebar.waitForPhase(shell.id, 'archived');
      assert.deepEqual(await sidebar.actions(shell.id), [
        'relaunchSession',
        'focusSession',
        'renameSession',
        'removeSession',
      ]);
      await sidebar.waitForText(shell.id, 'SHELL-SAVED');
      assert.equal(await sidebar.stateText(shell.id), 'Archived (ended with its daemon)');

      await sidebar.clickAction(shell.id, 'relaunchSession');
      const relaunched = await waitFor(
        () => e2e.iso.sessions().find((s) => s.name === shell.name && s.state === 'running'),
        { timeout: 30_000, message: 'the relaunched shell' },
      );
      assert.notEqual(relaunched.id, shell.id, 'a new run');
      await e2e.iso.waitForScreen(relaunched.id, PROMPT_RE);
      await waitFor(async () => (await wb.terminalTabs()).find((tab) => tab.name === shell.name && tab.active), {
        timeout: 20_000,
        message: "the shell's tab to be active",
      });
      await wb.typeInTerminal('echo relaunched-$((6*7))\n');
      await e2e.iso.waitForScreen(relaunched.id, /^relaunched-42$/m);
      assert.deepEqual(
        holdfastTabNames(await wb.terminalTabs()),
        [agent.name, shell.name],
        'the same tab, in its place',
      );

      // The stand-in rang the bell at its prompt: a live agent waiting for input.
      await sidebar.waitForPhase(agent.id, 'waiting');
      assert.ok((await sidebar.actions(agent.id))?.includes('openSessionInEditor'));
      await sidebar.clickAction(agent.id, 'openSessionInEditor');
      await waitFor(async () => (await wb.editorTabs()).some((tab) => tab.name === agent.name), {
        timeout: 20_000,
        message: "the agent's tab in the editor area",
      });
      await waitFor(() => e2e.iso.session(agent.id).metadata?.location === 'editor', {
        timeout: 10_000,
        message: 'the editor location recorded',
      });
      assert.deepEqual(holdfastTabNames(await wb.terminalTabs()), [shell.name], 'it left the panel');
      assert.equal(e2e.iso.session(agent.id).pid, agent.pid, 'the same process, moved');
    });
  },
);
