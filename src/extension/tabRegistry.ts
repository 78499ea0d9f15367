// Which Holdfast tab in this window shows which session, and which VS Code terminal holds each tab.
// Opening a terminal for a tab goes through here, so every tab is known from its first moment.
import * as vscode from 'vscode';
import type { TabLocation } from '../protocol/tabLayout';
import { SessionTab } from './pseudoterminal';
import { createTerminal, type UiTerminalOptions } from './ui';
import type { UiText } from '../text/uiText';

export const TAB_ICON = new vscode.ThemeIcon('pinned');

/**
 * A tab's terminal, and the nonce VS Code trusts its shell's command lines by (VS Code 1.9x and later
 * read shellIntegrationNonce; the types of 1.95 do not have it yet).
 */
export function tabTerminalOptions(tab: SessionTab, name: UiText): UiTerminalOptions {
  const nonce = tab.shellNonce;
  return { name, pty: tab, iconPath: TAB_ICON, ...(nonce ? { shellIntegrationNonce: nonce } : {}) };
}

export class TabRegistry {
  private readonly bySession = new Map<string, SessionTab>();
  private readonly terminals = new Map<SessionTab, vscode.Terminal>();

  tabOf(terminal: vscode.Terminal | undefined): SessionTab | undefined {
    const pty = (terminal?.creationOptions as vscode.ExtensionTerminalOptions | undefined)?.pty;
    return pty instanceof SessionTab ? pty : undefined;
  }

  terminalOf(tab: SessionTab): vscode.Terminal | undefined {
    return this.terminals.get(tab);
  }

  tabForSession(id: string): SessionTab | undefined {
    return this.bySession.get(id);
  }

  sessionIds(): Set<string> {
    return new Set(this.bySession.keys());
  }

  /** Live tabs with their terminals, in window order. */
  liveTabs(): { tab: SessionTab; terminal: vscode.Terminal }[] {
    const result: { tab: SessionTab; terminal: vscode.Terminal }[] = [];
    for (const terminal of vscode.window.terminals) {
      const tab = this.tabOf(terminal);
      if (tab && !tab.isClosed && terminal.exitStatus === undefined) result.push({ tab, terminal });
    }
    return result;
  }

  /** Every tab this window knows, with a terminal or a session. */
  all(): Set<SessionTab> {
    return new Set([...this.terminals.keys(), ...this.bySession.values()]);
  }

  /** The tab shows this session (from now on, or in place of the one it showed). */
  bind(id: string, tab: SessionTab): void {
    this.bySession.set(id, tab);
  }

  /** The tab no longer shows this session (another tab may have taken it over meanwhile: that one stays). */
  unbind(id: string, tab: SessionTab): void {
    if (this.bySession.get(id) === tab) this.bySession.delete(id);
  }

  /** Opens a terminal showing the tab (split beside `parent` when given: in its split group). */
  open(
    tab: SessionTab,
    name: UiText,
    location: TabLocation,
    preserveFocus: boolean,
    parent?: vscode.Terminal,
  ): vscode.Terminal {
    const terminal = createTerminal({
      ...tabTerminalOptions(tab, name),
      location: parent ? { parentTerminal: parent } : toLocation(location, preserveFocus),
    });
    this.terminals.set(tab, terminal); // known before VS Code opens it (whether it is on screen is asked then)
    return terminal;
  }

  /** A terminal opened in this window (ours or not). */
  track(terminal: vscode.Terminal): void {
    const tab = this.tabOf(terminal);
    if (tab) this.terminals.set(tab, terminal);
  }

  /** A terminal closed: its tab is forgotten, with the session it showed. */
  untrack(terminal: vscode.Terminal): SessionTab | undefined {
    const tab = this.tabOf(terminal);
    if (!tab) return undefined;
    this.terminals.delete(tab);
    if (tab.sessionId) this.unbind(tab.sessionId, tab);
    return tab;
  }
}

function toLocation(
  location: TabLocation,
  preserveFocus: boolean,
): vscode.TerminalLocation | vscode.TerminalEditorLocationOptions {
  return location === 'editor'
    ? { viewColumn: vscode.ViewColumn.Active, preserveFocus }
    : vscode.TerminalLocation.Panel;
}
