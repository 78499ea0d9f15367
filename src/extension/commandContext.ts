// What every Holdfast command gets, the lookups and picks several of them share, and the context
// key that shows Holdfast's terminal menu entries.
import { parseKey } from './sessionKey';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionInfo } from '../protocol/messages';
import { commandLine } from '../text/shellQuote';
import { ui, type UiText, uiText } from '../text/uiText';
import { readLayout } from '../protocol/tabLayout';
import type { StatusFacts } from './doctor';
import type { HostFolders } from './hostPick';
import type { SessionTab } from './pseudoterminal';
import type { RemoteHosts } from './remoteHosts';
import type { SessionList } from './sessionList';
import type { TabManager } from './tabs';
import { showInformation, showQuickPick } from './ui';

export interface CommandContext {
  tabs: TabManager;
  sessions: SessionList;
  log: vscode.LogOutputChannel;
  /** The extension's id (publisher.name, from its ExtensionContext): its terminal profile is contributed under it. */
  extensionId: string;
  /** The folders used on each SSH host, offered when a session starts there (hostPick.ts). */
  hostFolders: HostFolders;
  /** Facts for the status report that only the activation knows. */
  statusFacts(): Promise<StatusFacts>;
  /** The SSH hosts of holdfast.hosts this window follows (search spans them). */
  remotes?: RemoteHosts;
}

/** The active Holdfast tab, else one the user picks among this window's. */
export async function targetTab(ctx: CommandContext, placeHolder: UiText): Promise<SessionTab | undefined> {
  const active = ctx.tabs.activeTab();
  if (active && active.sessionId) return active;
  const live = ctx.tabs.liveTabs().filter(({ tab }) => tab.sessionId);
  if (live.length === 0) {
    void showInformation(ui`Holdfast: there is no Holdfast terminal in this window.`);
    return undefined;
  }
  if (live.length === 1) return live[0].tab;
  const pick = await showQuickPick(
    live.map(({ tab, terminal }) => ({ label: uiText(terminal.name), tab })),
    { placeHolder },
  );
  return pick?.tab;
}

export function describe(session: SessionInfo, workspace: string): { description: UiText; detail: UiText } {
  const layout = readLayout(session.metadata);
  const state =
    session.state === 'exited' ? `exited (${session.exit?.signal ?? `code ${session.exit?.code}`})` : 'running';
  const where = layout.detached
    ? 'detached'
    : layout.workspace === workspace
      ? 'this workspace'
      : layout.workspace
        ? `workspace ${path.basename(layout.workspace)}`
        : 'no workspace';
  const clients = session.clients.owners + session.clients.watchers;
  return {
    description: uiText(`${state} · ${where}${clients ? ` · ${clients} window(s) attached` : ''}`),
    detail: ui`${uiText(commandLine(session.argv))} — ${uiText(session.cwd)} — pid ${session.pid}`,
  };
}

/**
 * A command argument meant as one of this machine's session ids (a menu may pass other things). A host's session
 * key is refused here, so it never reaches this machine's daemon as an id.
 */
export function sessionArg(value: unknown): string | undefined {
  if (typeof value !== 'string' || !value) return undefined;
  const { host } = parseKey(value);
  if (host !== undefined)
    throw new Error(`this acts on this machine's sessions; on ${host}, Reply…, Approve and Deny work from its card`);
  return value;
}

/** The session by id, fresh from the daemon. */
export async function sessionById(ctx: CommandContext, id: string): Promise<SessionInfo> {
  const client = await ctx.tabs.connection.get();
  return (await client.request('show', { session: id })).session;
}

/**
 * `holdfast.activeTerminalIsHoldfast`: menus on a terminal show Holdfast's entries only for
 * Holdfast tabs. Set when it changes, never once the window is closing (VS Code closes every
 * terminal with reason Shutdown then, and a context set from a closing window is cancelled).
 */
export class ActiveTerminalContextKey implements vscode.Disposable {
  private value: boolean | undefined;
  private closing = false;
  private readonly listeners: vscode.Disposable[];

  constructor(
    private readonly isHoldfast: (terminal: vscode.Terminal | undefined) => boolean,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.listeners = [
      vscode.window.onDidCloseTerminal((t) => {
        if (t.exitStatus?.reason === vscode.TerminalExitReason.Shutdown) this.closing = true;
      }),
      vscode.window.onDidChangeActiveTerminal((t) => this.update(t)),
    ];
    this.update(vscode.window.activeTerminal);
  }

  private update(terminal: vscode.Terminal | undefined): void {
    const next = this.isHoldfast(terminal);
    if (this.closing || next === this.value) return;
    this.value = next;
    vscode.commands.executeCommand('setContext', 'holdfast.activeTerminalIsHoldfast', next).then(undefined, (err) =>
      // Only a window going away refuses it; the next window sets its own.
      this.log.debug(`setting holdfast.activeTerminalIsHoldfast: ${(err as Error).message}`),
    );
  }

  dispose(): void {
    this.closing = true;
    for (const listener of this.listeners) listener.dispose();
  }
}
