// Which Holdfast tabs are on screen, so that one that is not is sent nothing (tabView.ts). VS Code's API does
// not say which terminals are visible; it says enough to know when a tab surely is not:
//  - an editor-area terminal that is not the active tab of its editor group (tabGroups, matched by name);
//  - a panel terminal while the panel's active terminal is another Holdfast tab outside its split group: the
//    panel shows one group at a time.
// Everything else counts as shown: a tab wrongly counted hidden would freeze on screen, one wrongly counted
// shown only costs its output, paced to the renderer (rendererWriter.ts). A panel whose active terminal is not
// Holdfast's hides none (that terminal's group is unknown). Split groups are the ones Holdfast made (splitOf in
// the layout) and what layouts tell (terminalGroups.ts): VS Code sizes only what it shows, so a tab sized while
// another panel terminal stays active is in that terminal's group.
import * as vscode from 'vscode';
import { DisposableStore, type IDisposable, timeout } from '../base/disposable';
import { readLayout } from '../protocol/tabLayout';
import type { SessionTab } from './pseudoterminal';
import type { TabRegistry } from './tabRegistry';
import { TerminalGroups } from './terminalGroups';

/**
 * How long after VS Code sizes a tab the panel's active terminal is read: on a switch to another group,
 * VS Code sizes what it shows and then says which terminal is active.
 */
const LAYOUT_SETTLE_MS = 200;

export class TabVisibility implements IDisposable {
  private readonly store = new DisposableStore();
  private readonly groups = new TerminalGroups<vscode.Terminal>();
  /** The panel's active terminal: the last active one not in the editor area. */
  private panelActive: vscode.Terminal | undefined;
  private readonly settling = new Set<IDisposable>();

  constructor(private readonly registry: TabRegistry) {
    const window = vscode.window;
    this.store.add(window.onDidChangeActiveTerminal((terminal) => this.expectActive(terminal)));
    this.store.add(window.onDidOpenTerminal(() => this.update()));
    this.store.add(
      window.onDidCloseTerminal((terminal) => {
        this.groups.forget(terminal);
        if (this.panelActive === terminal) this.panelActive = undefined;
        this.update();
      }),
    );
    this.store.add(window.tabGroups.onDidChangeTabs(() => this.update()));
    this.store.add(window.tabGroups.onDidChangeTabGroups(() => this.update()));
    this.store.add({ dispose: () => this.settling.forEach((s) => s.dispose()) });
    this.expectActive(window.activeTerminal);
  }

  /** `terminal` is (or, while tabs are restored, will be) the active one. */
  expectActive(terminal: vscode.Terminal | undefined): void {
    if (terminal && !this.editorTab(terminal)) this.panelActive = terminal;
    this.update();
  }

  isShown(tab: SessionTab): boolean {
    const terminal = this.registry.terminalOf(tab);
    if (!terminal) return true;
    const editor = this.editorTab(terminal);
    if (editor !== undefined) return editor === 'ambiguous' || editor.isActive;
    const active = this.panelActive;
    const activeTab = active && this.registry.tabOf(active);
    if (!active || active === terminal || !activeTab || activeTab.isClosed) return true;
    return this.groups.together(terminal, active) || splitGroup(tab) === splitGroup(activeTab);
  }

  /** VS Code sized the tab: it is on screen now, and in the group of the panel's active terminal once settled. */
  laidOut(tab: SessionTab): void {
    const terminal = this.registry.terminalOf(tab);
    if (!terminal) return;
    tab.setShown(true);
    const settle = timeout(LAYOUT_SETTLE_MS, () => {
      this.settling.delete(settle);
      const active = this.panelActive;
      if (active && active !== terminal && terminal.exitStatus === undefined && !this.editorTab(terminal))
        this.groups.join(terminal, active);
      this.update();
    });
    this.settling.add(settle);
  }

  private update(): void {
    for (const tab of this.registry.all()) if (!tab.isClosed) tab.setShown(this.isShown(tab));
  }

  /** The editor tab showing `terminal` (matched by name, unique among terminals), if it is in the editor area. */
  private editorTab(terminal: vscode.Terminal): vscode.Tab | 'ambiguous' | undefined {
    const tabs = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((t) => t.input instanceof vscode.TabInputTerminal && t.label === terminal.name);
    if (tabs.length === 0) return undefined;
    const sameName = vscode.window.terminals.filter((t) => t.name === terminal.name).length;
    return tabs.length === 1 && sameName === 1 ? tabs[0] : 'ambiguous';
  }

  dispose(): void {
    this.store.dispose();
  }
}

/** The split group Holdfast recorded for a panel tab: its first session's id. */
function splitGroup(tab: SessionTab): string | undefined {
  return readLayout(tab.session?.metadata).splitOf ?? tab.sessionId;
}
