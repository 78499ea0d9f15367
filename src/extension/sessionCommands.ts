// The commands on sessions: attach, focus, rename, kill, remove.
import * as vscode from 'vscode';
import { readLayout, type TabLocation } from '../protocol/tabLayout';
import { nextOrder } from './layout';
import { ui, uiText } from '../text/uiText';
import { type CommandContext, describe, sessionArg, sessionById, targetTab } from './commandContext';
import { showInformation, showInputBox, showModal, showQuickPick } from './ui';

/** Quick pick of every session (any workspace): focuses its tab here, or opens one attached to it. */
export async function attachSession(ctx: CommandContext): Promise<void> {
  const client = await ctx.tabs.connection.get();
  const sessions = await ctx.sessions.refresh(client);
  if (sessions.length === 0) {
    const choice = await showInformation(ui`Holdfast: there are no sessions.`, ui`New Terminal`);
    if (choice) await vscode.commands.executeCommand('holdfast.newTerminal');
    return;
  }
  const items = sessions.map((session) => ({
    label: ctx.tabs.tabForSession(session.id) ? ui`$(eye) ${uiText(session.name)}` : uiText(session.name),
    ...describe(session, ctx.tabs.workspace),
    session,
  }));
  const pick = await showQuickPick(items, {
    placeHolder: ui`Attach to a Holdfast session (shown here as a tab)`,
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!pick) return;
  let session = pick.session;
  if (!ctx.tabs.tabForSession(session.id)) {
    const layout = readLayout(session.metadata);
    const unowned = session.clients.owners + session.clients.watchers === 0;
    // It joins this workspace's tabs (restored here after a reload) unless another window shows it.
    if (layout.detached || !layout.workspace || layout.workspace === ctx.tabs.workspace || unowned) {
      await ctx.tabs.updateLayout(session.id, {
        detached: undefined,
        workspace: ctx.tabs.workspace,
        order: nextOrder(sessions, ctx.tabs.workspace),
        activeAt: Date.now(),
      });
      session = (await client.request('show', { session: session.id })).session;
    }
  }
  const location: TabLocation = readLayout(session.metadata).location ?? 'panel';
  ctx.tabs.showSession(session, location);
}

export async function renameSession(ctx: CommandContext, sessionId?: string): Promise<void> {
  const tab = sessionId ? ctx.tabs.tabForSession(sessionId) : await targetTab(ctx, ui`Rename which Holdfast terminal?`);
  const id = sessionArg(sessionId ?? tab?.sessionId); // a host's tab: refused in one line
  if (!id) return;
  const current = tab?.session?.name ?? (await sessionById(ctx, id)).name;
  const name = await showInputBox({
    prompt: ui`New name for the Holdfast session`,
    value: current,
    validateInput: (v) => (v.trim() ? undefined : ui`A name cannot be empty`),
  });
  if (!name?.trim()) return;
  const client = await ctx.tabs.connection.get();
  await client.request('update', { session: id, name: name.trim() });
  tab?.rename(name.trim());
}

export async function killSession(ctx: CommandContext, sessionId?: string): Promise<void> {
  if (sessionId) {
    // From the sidebar: one click away from ending a process, so it asks.
    const session = await sessionById(ctx, sessionId);
    if (session.state === 'running') {
      const choice = await showModal(
        ui`Kill the Holdfast session "${uiText(session.name)}"? Its process (pid ${session.pid}) ends.`,
        undefined,
        ui`Kill`,
      );
      if (choice !== 'Kill') return;
    }
    await ctx.tabs.killSession(sessionId);
    return;
  }
  let id = sessionArg(ctx.tabs.activeTab()?.sessionId);
  if (!id) {
    const client = await ctx.tabs.connection.get();
    const sessions = await ctx.sessions.refresh(client);
    if (sessions.length === 0) {
      void showInformation(ui`Holdfast: there are no sessions.`);
      return;
    }
    const pick = await showQuickPick(
      sessions.map((session) => ({ label: uiText(session.name), ...describe(session, ctx.tabs.workspace), session })),
      { placeHolder: ui`Kill which Holdfast session? (its process ends)` },
    );
    id = pick?.session.id;
  }
  if (id) await ctx.tabs.killSession(id);
}

/** Shows a session here and gives this window its input: its tab, or a new tab attached to it. */
export async function focusSession(ctx: CommandContext, id: string | undefined, location: TabLocation): Promise<void> {
  if (!id) return attachSession(ctx);
  const tab = ctx.tabs.tabForSession(id);
  const terminal = tab && ctx.tabs.terminalOf(tab);
  if (tab && terminal) {
    terminal.show();
    if (location === 'editor' && readLayout(tab.session?.metadata).location !== 'editor') {
      // moveToEditor moves the *active* terminal, and show() makes ours active only a moment later.
      await becomesActive(terminal, 2000);
      if (vscode.window.activeTerminal !== terminal)
        throw new Error(`the tab "${terminal.name}" did not become active, so it was not moved`);
      await vscode.commands.executeCommand('workbench.action.terminal.moveToEditor');
      // The same terminal, so the same process; it leaves its split group (editor tabs are not split).
      await ctx.tabs.leaveSplitGroup(id, { location: 'editor' });
    }
    await tab.takeInput();
    return;
  }
  const client = await ctx.tabs.connection.get();
  const sessions = await ctx.sessions.refresh(client);
  await ctx.tabs.updateLayout(id, {
    detached: undefined,
    workspace: ctx.tabs.workspace,
    order: nextOrder(sessions, ctx.tabs.workspace),
    activeAt: Date.now(),
    location,
  });
  ctx.tabs.showSession(await sessionById(ctx, id), location);
}

export async function removeSession(ctx: CommandContext, id: string | undefined): Promise<void> {
  if (!id) return killSession(ctx);
  const session = await sessionById(ctx, id);
  if (session.state === 'running') throw new Error(`"${session.name}" is still running; use Kill Session to end it`);
  await ctx.tabs.killSession(id);
}

/** Resolves once `terminal` is the active terminal, or after `ms`. */
export function becomesActive(terminal: vscode.Terminal, ms: number): Promise<void> {
  if (vscode.window.activeTerminal === terminal) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      listener.dispose();
      resolve();
    };
    const listener = vscode.window.onDidChangeActiveTerminal((t) => t === terminal && done());
    const timer = setTimeout(done, ms);
  });
}
