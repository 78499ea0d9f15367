// Holdfast: Split Terminal. Like VS Code's own Split Terminal: a new terminal beside the active one,
// in its split group; without an active terminal, a new one. The new session records the group
// (its first session's id, see splitLayout.ts) so the group comes back after a reload or a restart;
// it starts in the directory the split terminal's shell is in.
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { readLayout } from '../protocol/tabLayout';
import { CommandContext } from './commandContext';
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
  active.show();
  const request: SplitRequest = { splitOf: groupOf(ctx, active), cwd: cwdOf(ctx, active) };
  tabs.expectSplit(request);
  const split = nextSplit(ctx, active, request, 5000);
  try {
    await vscode.commands.executeCommand('workbench.action.terminal.split', holdfastProfile(ctx.extensionId));
  } finally {
    tabs.expectSplit(undefined);
  }
  // VS Code focuses the group's last terminal before the split has arrived: the split is the one meant.
  (await split)?.show();
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
 * The next Holdfast terminal to open in this window, if one opens within `ms`. Its group is that of
 * the terminal active when it opened: VS Code makes a profile's split beside the terminal active when
 * the new one is created, and its own profile code makes the panel's last terminal active at about
 * that moment, so the split can land beside another group than the one meant. The extension host
 * hears of active terminals and new ones in the order VS Code made them (an order, not a timing), and
 * the session is created only after its tab opened: it records the group the user sees.
 */
function nextSplit(
  ctx: CommandContext,
  active: vscode.Terminal,
  request: SplitRequest,
  ms: number,
): Promise<vscode.Terminal | undefined> {
  return new Promise((resolve) => {
    let parent = active;
    const done = (terminal: vscode.Terminal | undefined) => {
      clearTimeout(timer);
      opened.dispose();
      changed.dispose();
      resolve(terminal);
    };
    const changed = vscode.window.onDidChangeActiveTerminal((t) => t && (parent = t));
    const opened = vscode.window.onDidOpenTerminal((t) => {
      if (!ctx.tabs.tabOf(t)) return;
      request.splitOf = groupOf(ctx, parent);
      request.cwd = cwdOf(ctx, parent);
      done(t);
    });
    const timer = setTimeout(() => done(undefined), ms);
  });
}
