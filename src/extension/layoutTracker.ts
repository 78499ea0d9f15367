// Records in each session's metadata which tab was active and whether it sits in the panel or the
// editor area, so the next window restores the same. Writes are debounced and stop as soon as the
// window starts going away: tabs closing at shutdown must not be recorded as a new layout.
import * as vscode from 'vscode';
import { DisposableStore, type IDisposable, timeout } from '../base/disposable';
import { readLayout, type TabLocation } from '../protocol/tabLayout';
import { parseKey } from './sessionKey';
import type { SessionList } from './sessionList';
import type { TabManager } from './tabs';

const ACTIVE_DEBOUNCE_MS = 400;
const LOCATION_DEBOUNCE_MS = 1000;

export class LayoutTracker implements vscode.Disposable {
  private readonly store = new DisposableStore();
  private activeTimer: IDisposable | undefined;
  private locationTimer: IDisposable | undefined;

  constructor(
    private readonly tabs: TabManager,
    private readonly sessions: SessionList,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.store.add(vscode.window.onDidChangeActiveTerminal((terminal) => this.onActive(terminal)));
    this.store.add(vscode.window.tabGroups.onDidChangeTabs(() => this.scheduleLocations()));
    this.store.add({ dispose: () => (this.activeTimer?.dispose(), this.locationTimer?.dispose()) });
  }

  private onActive(terminal: vscode.Terminal | undefined): void {
    const tab = this.tabs.tabOf(terminal);
    if (!terminal || !tab || this.tabs.isFrozen) return;
    this.activeTimer?.dispose();
    this.activeTimer = timeout(ACTIVE_DEBOUNCE_MS, () => {
      const id = tab.sessionId;
      if (!id || this.tabs.isFrozen || terminal.exitStatus !== undefined || vscode.window.activeTerminal !== terminal)
        return;
      this.write(id, { activeAt: Date.now() });
    });
  }

  private scheduleLocations(): void {
    if (this.tabs.isFrozen) return;
    this.locationTimer?.dispose();
    this.locationTimer = timeout(LOCATION_DEBOUNCE_MS, () => this.recordLocations());
  }

  /** Editor-area terminal tabs carry no terminal reference, only a label: match by name when unambiguous. */
  private recordLocations(): void {
    if (this.tabs.isFrozen) return;
    const live = this.tabs.liveTabs();
    const editorLabels = new Map<string, number>();
    for (const group of vscode.window.tabGroups.all) {
      for (const t of group.tabs)
        if (t.input instanceof vscode.TabInputTerminal) editorLabels.set(t.label, (editorLabels.get(t.label) ?? 0) + 1);
    }
    const nameCount = new Map<string, number>();
    for (const { terminal } of live) nameCount.set(terminal.name, (nameCount.get(terminal.name) ?? 0) + 1);
    for (const { tab, terminal } of live) {
      const id = tab.sessionId;
      if (!id || nameCount.get(terminal.name) !== 1) continue;
      const location: TabLocation = editorLabels.has(terminal.name) ? 'editor' : 'panel';
      const known = readLayout(this.sessions.get(id)?.metadata ?? tab.session?.metadata).location ?? 'panel';
      if (location !== known) this.write(id, { location });
    }
  }

  private write(id: string, patch: { activeAt?: number; location?: TabLocation }): void {
    // A host's tab is recorded in this window's state (remoteTabRecord.ts), not in a session here.
    if (!this.tabs.connection.client || parseKey(id).host !== undefined) return;
    // Moved to the editor area: the same terminal (so the same process), out of its split group.
    const written =
      patch.location === 'editor' ? this.tabs.leaveSplitGroup(id, patch) : this.tabs.updateLayout(id, patch);
    written.catch((err) => this.log.warn(`recording the layout of ${id}: ${(err as Error).message}`));
  }

  dispose(): void {
    this.store.dispose();
  }
}
