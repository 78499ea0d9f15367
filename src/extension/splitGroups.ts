// Holdfast: Split Terminal. Like VS Code's own Split Terminal: a new terminal beside the active one,
// in its split group; without an active terminal, a new one. The new session records the group
// (its first session's id, see splitLayout.ts) so the group comes back after a reload or a restart.
import * as vscode from 'vscode';
import { readLayout } from '../protocol/tabLayout';
import { CommandContext } from './commandContext';

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
  const tab = tabs.tabOf(active);
  const id = tab?.sessionId;
  const layout = id ? readLayout(ctx.sessions.get(id)?.metadata ?? tab?.session?.metadata) : {};
  // Editor tabs are not grouped: the split of one is a new Holdfast tab in the editor area.
  if (layout.location === 'editor') {
    await tabs.newTerminal('editor');
    return;
  }
  // Another extension's or VS Code's own terminal is split too, as VS Code would; Holdfast records
  // no group for it (that terminal is not one it can bring back).
  active.show();
  tabs.expectSplit({ splitOf: id ? (layout.splitOf ?? id) : undefined });
  const opened = nextHoldfastTerminal(ctx, 5000);
  try {
    await vscode.commands.executeCommand('workbench.action.terminal.split', holdfastProfile(ctx.extensionId));
  } finally {
    tabs.expectSplit(undefined);
  }
  // VS Code focuses the group's last terminal before the split has arrived: the split is the one meant.
  (await opened)?.show();
}

/** The next Holdfast terminal to open in this window, if one opens within `ms`. */
function nextHoldfastTerminal(ctx: CommandContext, ms: number): Promise<vscode.Terminal | undefined> {
  return new Promise((resolve) => {
    const done = (terminal: vscode.Terminal | undefined) => {
      clearTimeout(timer);
      listener.dispose();
      resolve(terminal);
    };
    const listener = vscode.window.onDidOpenTerminal((t) => ctx.tabs.tabOf(t) && done(t));
    const timer = setTimeout(() => done(undefined), ms);
  });
}
