// Holdfast: Split Terminal. Like VS Code's own Split Terminal: a new terminal beside the active one,
// in its split group; without an active terminal, a new one. The new session records the group
// VS Code actually put it in (its first session's id, see splitLayout.ts), so the group that comes
// back after a reload or a restart is the one the user saw.
import * as vscode from 'vscode';
import { readLayout } from '../protocol/tabLayout';
import { CommandContext } from './commandContext';

/** How long the split's terminal may take to open, and to become the active one, before we give up on it. */
const SPLIT_OPEN_MS = 5000;

/**
 * Holdfast's terminal profile (package.json contributes.terminal.profiles, under the extension's
 * id). VS Code splits with it through its own Split command: `createTerminal({ location: {
 * parentTerminal } })` is ignored once the parent terminal has opened (VS Code 1.139 looks the
 * parent up by an id it has replaced by then), so it only serves terminals created together, as
 * the restore does (tabRestore.ts).
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
  tabs.expectSplit({ splitOf: groupOf(ctx, active) });
  const opened = nextHoldfastTerminal(ctx);
  try {
    await vscode.commands.executeCommand('workbench.action.terminal.split', holdfastProfile(ctx.extensionId));
  } finally {
    tabs.expectSplit(undefined);
  }
  const split = await opened;
  if (split) await recordGroup(ctx, split);
}

/**
 * Records the group VS Code put `split` in. VS Code chooses the parent itself (a split from a
 * contributed profile goes beside the panel's last terminal in VS Code 1.139, whichever one is
 * active) and its API does not say which: the pane before the split in its group is its parent,
 * so VS Code's "Focus Previous Terminal in Terminal Group" is run from the split, the terminal it
 * makes active read back, and "Focus Next Terminal in Terminal Group" returns to the split.
 */
async function recordGroup(ctx: CommandContext, split: vscode.Terminal): Promise<void> {
  const id = ctx.tabs.tabOf(split)?.sessionId;
  if (!id || !(await makeActive(split))) return;
  const parent = await focusPane('workbench.action.terminal.focusPreviousPane', (t) => t !== split);
  if (parent) await focusPane('workbench.action.terminal.focusNextPane', (t) => t === split);
  // The focus commands move the keyboard focus after they return: the split takes it last.
  split.show();
  const splitOf = parent ? groupOf(ctx, parent) : undefined;
  const recorded = readLayout(ctx.sessions.get(id)?.metadata ?? ctx.tabs.tabOf(split)?.session?.metadata).splitOf;
  ctx.log.info(`split ${id} opened beside "${parent?.name ?? 'nothing'}": group ${splitOf ?? 'none'}`);
  if (splitOf !== recorded) await ctx.tabs.updateLayout(id, { splitOf });
}

/** Runs a focus command and resolves the terminal VS Code then reports active, when it is one `accept`s. */
async function focusPane(
  command: string,
  accept: (t: vscode.Terminal) => boolean,
): Promise<vscode.Terminal | undefined> {
  const next = nextEvent(vscode.window.onDidChangeActiveTerminal, (t) => t !== undefined && accept(t));
  await vscode.commands.executeCommand(command);
  return next;
}

/** The split group a terminal leads or belongs to (its first session's id); undefined when it is not Holdfast's. */
function groupOf(ctx: CommandContext, terminal: vscode.Terminal): string | undefined {
  const id = ctx.tabs.tabOf(terminal)?.sessionId;
  return id ? (layoutOf(ctx, terminal)?.splitOf ?? id) : undefined;
}

function layoutOf(ctx: CommandContext, terminal: vscode.Terminal) {
  const tab = ctx.tabs.tabOf(terminal);
  const id = tab?.sessionId;
  return id ? readLayout(ctx.sessions.get(id)?.metadata ?? tab?.session?.metadata) : undefined;
}

/** Shows `terminal` and resolves once VS Code reports it active (false: it did not become active in time). */
function makeActive(terminal: vscode.Terminal): Promise<boolean> {
  if (vscode.window.activeTerminal === terminal) return Promise.resolve(true);
  const became = nextEvent(vscode.window.onDidChangeActiveTerminal, (t) => t === terminal);
  terminal.show();
  return became.then((t) => t !== undefined);
}

/** The next Holdfast terminal to open in this window, if one opens in time. */
function nextHoldfastTerminal(ctx: CommandContext): Promise<vscode.Terminal | undefined> {
  return nextEvent(vscode.window.onDidOpenTerminal, (t) => ctx.tabs.tabOf(t) !== undefined);
}

/** The next value of `event` that `accept`s, or undefined after SPLIT_OPEN_MS. */
function nextEvent<T>(event: vscode.Event<T>, accept: (value: T) => boolean): Promise<T | undefined> {
  return new Promise((resolve) => {
    const done = (value: T | undefined) => {
      clearTimeout(timer);
      listener.dispose();
      resolve(value);
    };
    const listener = event((value) => accept(value) && done(value));
    const timer = setTimeout(() => done(undefined), SPLIT_OPEN_MS);
  });
}
