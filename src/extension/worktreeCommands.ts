// New Agent in Worktree…: an agent on its own branch in its own folder (`git worktree add`), and
// the offer to remove that worktree when its session is removed. The git rules are in
// agents/worktree.ts, shared with `holdfast new --worktree`.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { agentLaunch } from '../agents/agentLaunch';
import type { SessionInfo } from '../protocol/messages';
import {
  checkBranchName,
  createWorktree,
  describeLoss,
  removeWorktree,
  repositoryRoot,
  suggestBranch,
  worktreeLoss,
  worktreeOf,
} from '../agents/worktree';
import { pickAgentProfile } from './agentCommands';
import type { CommandContext } from './commandContext';
import { settings } from './settings';
import { showError, showInputBox, showModal } from './ui';
import { ui, uiText } from '../text/uiText';

// `git worktree add` runs the repository's post-checkout hook: a cloned repository must not run code here.
const UNTRUSTED = "this workspace is not trusted, and git would run its repository's hooks (trust it first)";

/** Optional arguments, for scripts and tests: the profile and the branch, so nothing is asked. */
export interface WorktreeAgentArgs {
  profile?: string;
  branch?: string;
}

export async function newAgentInWorktree(ctx: CommandContext, args: WorktreeAgentArgs = {}): Promise<void> {
  if (!vscode.workspace.isTrusted) throw new Error(UNTRUSTED);
  // The repository first: outside one there is nothing to ask about.
  const repo = await repositoryRoot(ctx.tabs.sessionStart().cwd);
  const profile = await pickAgentProfile(ctx, args.profile);
  if (!profile) return;
  const branch = args.branch ?? (await askBranch(repo, profile.id));
  if (!branch) return;
  const worktree = await createWorktree(repo, branch, worktreesFolder());
  ctx.log.info(`worktree ${worktree.path} on the new branch ${branch} (from ${repo})`);
  const undo = () =>
    void removeWorktree(worktree, { force: true }).then(
      () => ctx.log.info(`the session did not start: removed the worktree ${worktree.path}`),
      (err: Error) => ctx.log.warn(`the session did not start; the worktree ${worktree.path} stays: ${err.message}`),
    );
  const launch = agentLaunch(profile);
  try {
    await ctx.tabs.newTerminal('panel', `${profile.id} · ${branch}`, {
      argv: launch.argv,
      metadata: { agent: launch.agent, worktree },
      nameBase: profile.id,
      cwd: worktree.path,
      createFailed: undo,
    });
  } catch (err) {
    undo();
    throw err;
  }
}

async function askBranch(repo: string, profileId: string): Promise<string | undefined> {
  const suggested = suggestBranch(profileId);
  const branch = await showInputBox({
    title: ui`New Agent in Worktree`,
    prompt: ui`A new branch of ${uiText(path.basename(repo))}; the agent runs in its own worktree folder`,
    value: suggested,
    valueSelection: [suggested.indexOf('/') + 1, suggested.length],
    validateInput: async (value) => {
      if (!value.trim()) return ui`A branch name cannot be empty`;
      try {
        await checkBranchName(repo, value.trim());
        return undefined;
      } catch (err) {
        return uiText((err as Error).message);
      }
    },
  });
  return branch?.trim() || undefined;
}

/** The setting, with a leading ~ for the home folder. */
function worktreesFolder(): string | undefined {
  const folder = settings.worktreesFolder();
  return folder?.startsWith('~/') ? path.join(os.homedir(), folder.slice(2)) : folder;
}

/**
 * A session that ran in a worktree is gone: offer to remove the worktree and its branch. The modal
 * says what would be lost (uncommitted changes, commits on no other branch); the default keeps it.
 */
export async function offerWorktreeRemoval(session: SessionInfo, log: vscode.LogOutputChannel): Promise<void> {
  const worktree = worktreeOf(session.metadata);
  // Gone already (removed by hand, or by another window): nothing to offer; untrusted: no git here.
  if (!worktree || !fs.existsSync(worktree.path) || !vscode.workspace.isTrusted) return;
  try {
    const loss = await worktreeLoss(worktree);
    const lost = describeLoss(loss, worktree.branch);
    const detail = uiText(
      `Removing deletes the folder ${worktree.path} and the branch "${worktree.branch}".` +
        (lost ? ` It has ${lost}: they would be lost.` : ' Nothing in it is uncommitted or unpushed.'),
    );
    const REMOVE = ui`Remove Worktree`;
    // Keep first: it is the dialog's default button (Enter), and Escape keeps too.
    const choice = await showModal(
      ui`Holdfast: "${uiText(session.name)}" ran in a git worktree. Remove the worktree too?`,
      detail,
      ui`Keep Worktree`,
      REMOVE,
    );
    if (choice !== REMOVE) return;
    await removeWorktree(worktree, { force: true });
    log.info(`removed the worktree ${worktree.path} and the branch ${worktree.branch}`);
  } catch (err) {
    void showError(uiText(`Holdfast: could not remove the worktree ${worktree.path}: ${(err as Error).message}`));
  }
}
