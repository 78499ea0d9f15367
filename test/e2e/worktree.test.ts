// E2E: "Holdfast: New Agent in Worktree…" in a workspace that is a git repo
// makes a branch and a worktree beside it and starts the agent there; the tab and the card show the branch.
// Kill Session offers to remove the worktree: with uncommitted work the dialog says so and Keep
// keeps it; a clean one is removed with its branch.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { git, initRepoWithCommit } from '../helpers/git';
import {
  type HoldfastE2E,
  makeTempDir,
  openSidebar,
  SessionsWebview,
  type SessionView,
  waitFor,
  scenarioHooks,
  writeExecutable,
} from './harness';

/** Says which folder it runs in (its name: a full path would wrap), then echoes lines like an agent. */
const STAND_IN = `#!/usr/bin/env bash
printf 'agent in %s\\n' "\${PWD##*/}"
while IFS= read -r line; do printf 'working on: %s\\n' "$line"; done
`;

const binDir = makeTempDir('worktree-bin');
const CLAUDE = writeExecutable(binDir, 'claude', STAND_IN);

let e2e: HoldfastE2E;

scenarioHooks(
  {
    name: 'worktree',
    // VS Code's git extension watches the repository while Holdfast adds and removes its worktrees, as a user's does.
    builtinExtensions: 'all',
    cleanup: () => fs.rmSync(binDir, { recursive: true, force: true }),
    settings: { 'holdfast.agents': [{ id: 'claude', name: 'Claude Code', argv: [CLAUDE], resumeArgv: [] }] },
  },
  (started) => (e2e = started),
);

function worktreeMeta(session: SessionView): { path?: string; branch?: string; repo?: string } {
  return session.metadata?.worktree ?? {};
}

/** Runs the command through the palette and returns the session it started on `branch`. */
async function agentInWorktree(branch: string): Promise<SessionView> {
  const wb = e2e.wb;
  await wb.runCommand('Holdfast: New Agent in Worktree…');
  await wb.pickQuickItem(/Claude Code/);
  await wb.answerInputBox(branch);
  return waitFor(() => e2e.iso.sessions().find((s) => worktreeMeta(s).branch === branch), {
    timeout: 30_000,
    message: `the agent session on ${branch}`,
  });
}

/** The text of the modal that offers to remove the worktree, once it shows. */
function removalDialog(): Promise<string> {
  return waitFor(
    async () => {
      const text = await e2e.wb.dialogText();
      return text?.includes('Remove the worktree') ? text : undefined;
    },
    { timeout: 20_000, message: 'the remove-worktree dialog' },
  );
}

test(
  'New Agent in Worktree: branch, worktree and tab; Kill offers removal and says what would be lost',
  { timeout: 300_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const wb = e2e.wb;
      const repo = fs.realpathSync(e2e.workspace('project'));
      initRepoWithCommit(repo);
      await e2e.open(repo);

      // 1. The agent runs in the new worktree; the tab and the metadata name the branch.
      const dirty = await agentInWorktree('agent/e2e-one');
      const dirtyPath = path.join(path.dirname(repo), 'project.worktrees', 'agent-e2e-one');
      assert.deepEqual(worktreeMeta(dirty), { path: dirtyPath, branch: 'agent/e2e-one', repo });
      assert.equal(dirty.cwd, dirtyPath);
      assert.ok(fs.existsSync(path.join(dirtyPath, 'README')), 'the worktree folder is checked out');
      assert.equal(git(dirtyPath, 'rev-parse', '--abbrev-ref', 'HEAD').trim(), 'agent/e2e-one');
      await wb.waitForHoldfastTabs([{ name: 'claude · agent/e2e-one', active: true }], { settleMs: 0 });
      await wb.waitForTerminalText('agent in agent-e2e-one');
      await openSidebar(wb);
      const sidebar = new SessionsWebview(wb, 'sidebar');
      await waitFor(async () => (await sidebar.branch(dirty.id)) === '\u2387 agent/e2e-one', {
        timeout: 20_000,
        message: 'the sidebar card to show the branch',
      });
      await wb.clickTerminalTab('claude · agent/e2e-one');

      // 2. Uncommitted work: Kill Session asks, says what would be lost; Keep keeps it.
      fs.writeFileSync(path.join(dirtyPath, 'notes.txt'), 'work in progress\n');
      await wb.runCommand('Holdfast: Kill Session');
      assert.match(await removalDialog(), /1 uncommitted change/);
      await wb.clickButton('Keep Worktree');
      await waitFor(() => !e2e.iso.sessions().some((s) => s.id === dirty.id), {
        timeout: 20_000,
        message: 'the first session to be removed',
      });
      await waitFor(async () => !(await wb.dialogText()), { timeout: 10_000, message: 'the dialog to close' });
      assert.ok(fs.existsSync(path.join(dirtyPath, 'notes.txt')), 'Keep Worktree kept the work');
      assert.match(git(repo, 'branch', '--list', 'agent/e2e-one'), /agent\/e2e-one/);

      // 3. A clean worktree: Remove Worktree removes the folder and the branch.
      const clean = await agentInWorktree('agent/e2e-two');
      const cleanPath = worktreeMeta(clean).path!;
      await wb.waitForTerminalText('agent in agent-e2e-two');
      await wb.runCommand('Holdfast: Kill Session');
      assert.match(await removalDialog(), /Nothing in it is uncommitted or unpushed/);
      await wb.clickButton('Remove Worktree');
      await waitFor(() => !fs.existsSync(cleanPath), { timeout: 20_000, message: 'the clean worktree to be removed' });
      await waitFor(() => git(repo, 'branch', '--list', 'agent/e2e-two') === '', {
        timeout: 10_000,
        message: 'its branch to be deleted',
      });
      assert.ok(fs.existsSync(dirtyPath), 'the kept worktree is still there');
    });
  },
);
