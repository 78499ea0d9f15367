// Holdfast: Split Terminal. Like VS Code's own Split Terminal: a new terminal beside the active one,
// in its split group; without an active terminal, a new one. The new session records the group
// (its first session's id, see splitLayout.ts) so the group comes back after a reload or a restart;
// it starts in the directory the split terminal's shell is in.
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { readLayout } from '../protocol/tabLayout';
import type { CommandContext } from './commandContext';
import { nextOrder } from './layout';
import { becomesActive } from './sessionCommands';
import type { SplitRequest } from './tabs';

/**
 * Holdfast's terminal profile (package.json contributes.terminal.profiles, under the extension's
 * id). VS Code splits the active terminal with it through its own Split command:
 * `createTerminal({ location: { parentTerminal } })` is ignored once the parent terminal has
 * opened (VS Code 1.139 looks the parent up by an id it has replaced by then), so it only serves
 * terminals created together, as the restore does (tabRestore.ts).
 */
function holdfastProfile(extensionId: string) {
  return { profileName: 'Holdfast', title: 'Holdfast', extensionIdentifier: extensionId, id: 'holdfast.terminal' };
}

/** How long a split waits for VS Code to open its tab, and for a moved terminal to become active. */
const SPLIT_WAIT_MS = 5000;

export async function splitTerminal(ctx: CommandContext): Promise<void> {
  const { tabs } = ctx;
  const active = vscode.window.activeTerminal;
  if (!active || active.exitStatus !== undefined) {
    await tabs.newTerminal('panel');
    return;
  }
  const layout = layoutOf(ctx, active);
  // Editor tabs are not grouped: the split of one is a new Holdfast tab in the editor area.
  if (layout?.location === 'editor') {
    await tabs.newTerminal('editor');
    return;
  }
  // Another extension's or VS Code's own terminal is split too, as VS Code would; Holdfast records
  // no group for it (that terminal is not one it can bring back).
  let split = await splitBeside(ctx, active, false);
  if (split === 'misplaced') {
    // VS Code 1.96 to 1.139 put a profile's split beside the panel's last terminal (see nextSplit): the
    // misplaced tab closed before its session started, the active terminal is moved to the end of the
    // panel (the same terminal, so the same process), where that same split lands beside it.
    await moveToPanelEnd(ctx, active);
    split = await splitBeside(ctx, active, true);
  }
  // VS Code focuses the group's last terminal before the split has arrived: the split is the one meant.
  if (split !== 'misplaced') split?.show();
}

/**
 * Runs VS Code's Split with Holdfast's profile beside `active`: the new tab, or `misplaced` when VS Code
 * put it in another group (unless `acceptAny`), in which case the tab is already closed, sessionless.
 */
async function splitBeside(
  ctx: CommandContext,
  active: vscode.Terminal,
  acceptAny: boolean,
): Promise<vscode.Terminal | 'misplaced' | undefined> {
  active.show();
  const request: SplitRequest = { splitOf: groupOf(ctx, active), cwd: cwdOf(ctx, active) };
  ctx.tabs.expectSplit(request);
  const split = nextSplit(ctx, active, request, acceptAny);
  try {
    await vscode.commands.executeCommand('workbench.action.terminal.split', holdfastProfile(ctx.extensionId));
  } finally {
    ctx.tabs.expectSplit(undefined);
  }
  return split;
}

/** Moves `terminal` to a group of its own at the end of the panel, out of its split group, last in the record too. */
async function moveToPanelEnd(ctx: CommandContext, terminal: vscode.Terminal): Promise<void> {
  terminal.show();
  // The move commands move the *active* terminal, and show() makes ours active only a moment later.
  await becomesActive(terminal, SPLIT_WAIT_MS);
  if (vscode.window.activeTerminal !== terminal)
    throw new Error(`the tab "${terminal.name}" did not become active, so it was not split`);
  await vscode.commands.executeCommand('workbench.action.terminal.moveToEditor');
  await vscode.commands.executeCommand('workbench.action.terminal.moveToTerminalPanel');
  const id = ctx.tabs.tabOf(terminal)?.sessionId;
  if (!id) return;
  const sessions = await ctx.sessions.refresh(await ctx.tabs.connection.get());
  await ctx.tabs.leaveSplitGroup(id, { order: nextOrder(sessions, ctx.tabs.workspace) });
}

function layoutOf(ctx: CommandContext, terminal: vscode.Terminal) {
  const tab = ctx.tabs.tabOf(terminal);
  const id = tab?.sessionId;
  return id ? readLayout(ctx.sessions.get(id)?.metadata ?? tab?.session?.metadata) : undefined;
}

/**
 * Where a split beside `terminal` starts, as VS Code's own split does (`terminal.integrated.splitCwd`,
 * `inherited` by default): the directory its shell reported (shell integration, or a Holdfast session's).
 */
function cwdOf(ctx: CommandContext, terminal: vscode.Terminal): string | undefined {
  if (vscode.workspace.getConfiguration('terminal.integrated').get<string>('splitCwd', 'inherited') !== 'inherited')
    return undefined;
  const tab = ctx.tabs.tabOf(terminal);
  const cwd =
    terminal.shellIntegration?.cwd?.fsPath ?? (tab?.sessionId ? ctx.sessions.get(tab.sessionId)?.cwd : undefined);
  return cwd && fs.statSync(cwd, { throwIfNoEntry: false })?.isDirectory() ? cwd : undefined;
}

/** The group a split beside `terminal` joins: its first session's id; none for a terminal not Holdfast's. */
function groupOf(ctx: CommandContext, terminal: vscode.Terminal): string | undefined {
  const id = ctx.tabs.tabOf(terminal)?.sessionId;
  return id ? (layoutOf(ctx, terminal)?.splitOf ?? id) : undefined;
}

/**
 * The next Holdfast terminal to open in this window, if one opens within SPLIT_WAIT_MS. VS Code places a
 * profile's split beside the terminal active when it creates it; in 1.96 to 1.139 its profile code makes
 * the panel's last terminal active first (once the extension host has handed the profile over, before
 * the new terminal is made), so unless `active` is the panel's last terminal the split lands in another
 * group. The extension host hears of active terminals and new ones in the order VS Code made them (an
 * order, not a timing), and the session is created only after its tab opened: the group recorded is the
 * one the user sees, and a split in another group than `active`'s (`misplaced`, unless `acceptAny`) is
 * closed before it has a session.
 */
function nextSplit(
  ctx: CommandContext,
  active: vscode.Terminal,
  request: SplitRequest,
  acceptAny: boolean,
): Promise<vscode.Terminal | 'misplaced' | undefined> {
  return new Promise((resolve) => {
    let parent = active;
    const done = (terminal: vscode.Terminal | 'misplaced' | undefined) => {
      clearTimeout(timer);
      opened.dispose();
      changed.dispose();
      resolve(terminal);
    };
    const changed = vscode.window.onDidChangeActiveTerminal((t) => t && (parent = t));
    const opened = vscode.window.onDidOpenTerminal((t) => {
      const tab = ctx.tabs.tabOf(t);
      if (!tab) return;
      const group = groupOf(ctx, parent);
      if (acceptAny || parent === active || (group !== undefined && group === request.splitOf)) {
        request.splitOf = group;
        request.cwd = cwdOf(ctx, parent);
        return done(t);
      }
      // Closed before it starts a session (VS Code opens a tab before it starts its pseudoterminal).
      request.cancelled = true;
      tab.closeIntent = 'removed';
      tab.close();
      t.dispose();
      done('misplaced');
    });
    const timer = setTimeout(() => done(undefined), SPLIT_WAIT_MS);
  });
}
