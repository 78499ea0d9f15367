// Bringing this workspace's tabs back after a reload / restart / crash: in order, with names,
// location and the active one, never twice; archived after a reboot. A Holdfast-profile request
// that comes while the restore is planned (VS Code's startup terminal, when the default profile is
// Holdfast and the user's settings let VS Code open one) takes the first restored panel tab.
import * as vscode from 'vscode';
import type { SessionInfo } from '../protocol/messages';
import { readLayout } from '../protocol/tabLayout';
import { restoreArchives } from './archives';
import { pruneHooks } from './codeCli';
import type { DaemonConnection } from './daemonConnection';
import { planRestore, type RestoreItem } from './layout';
import type { SessionTab } from './pseudoterminal';
import type { SessionList } from './sessionList';
import { type TabRegistry, tabTerminalOptions } from './tabRegistry';
import { uiText } from '../text/uiText';
import { terminalProfile } from './ui';

export interface RestoreContext {
  readonly registry: TabRegistry;
  readonly connection: DaemonConnection;
  readonly sessions: SessionList;
  readonly workspace: string;
  readonly log: vscode.LogOutputChannel;
  /** A tab for an existing session, known to the registry before its terminal opens. */
  existingTab(session: SessionInfo): SessionTab;
  /** The terminal that will be active once restored: the others are not on screen (tabVisibility.ts). */
  expectActive(terminal: vscode.Terminal | undefined): void;
}

export class TabRestore {
  /** Restored sessions not yet given a tab (a startup default-profile terminal takes the first). */
  private restoreQueue: RestoreItem[] = [];
  private restoring: Promise<number> | undefined;
  private planReady: Promise<void> | undefined;

  constructor(private readonly ctx: RestoreContext) {}

  /** Re-creates a tab for every session of this workspace that has none here; resolves how many. One at a time. */
  restore(): Promise<number> {
    this.restoring ??= this.doRestore().finally(() => (this.restoring = undefined));
    return this.restoring;
  }

  /**
   * What a Holdfast-profile request gets while the restore is planned: the first restored panel
   * tab (VS Code asked for a terminal to fill its empty panel, and that tab is the one meant).
   * Undefined: an ordinary request (a new session).
   */
  async startupProfile(): Promise<vscode.TerminalProfile | undefined> {
    if (this.planReady) await this.planReady;
    const index = this.restoreQueue.findIndex((item) => item.location === 'panel');
    if (index < 0) return undefined;
    const [item] = this.restoreQueue.splice(index, 1);
    const tab = this.ctx.existingTab(item.session);
    return terminalProfile(tabTerminalOptions(tab, uiText(item.session.name)));
  }

  private async doRestore(): Promise<number> {
    const { registry, log } = this.ctx;
    let markPlanReady!: () => void;
    this.planReady = new Promise((resolve) => (markPlanReady = resolve));
    try {
      const sessions = await this.sessionsToShow();
      const plan = planRestore(sessions, this.ctx.workspace, registry.sessionIds());
      const count = plan.items.length;
      this.restoreQueue = [...plan.items];
      markPlanReady();
      // Let a waiting profile request (VS Code's startup terminal) take its tab first.
      await new Promise((resolve) => setTimeout(resolve, 0));
      const stale = staleTabs();
      let active: vscode.Terminal | undefined;
      const opened = new Map<string, vscode.Terminal>();
      for (const item of this.restoreQueue.splice(0)) {
        if (registry.tabForSession(item.session.id)) continue;
        const parent = item.splitBeside ? this.terminalFor(item.splitBeside, opened) : undefined;
        if (item.splitBeside && !parent) log.warn(`no tab of ${item.splitBeside} to split ${item.session.id} beside`);
        const tab = this.ctx.existingTab(item.session);
        const terminal = registry.open(tab, uiText(item.session.name), item.location, true, parent);
        opened.set(item.session.id, terminal);
        if (item.session.id === plan.activeId) active = terminal;
        // After an extension host crash the old tab stays, dead (its pseudoterminal died with the
        // host): ours replaces it.
        const index = stale.findIndex((t) => t.name === item.session.name);
        if (index >= 0) stale.splice(index, 1)[0].dispose();
      }
      const activeTab = plan.activeId ? registry.tabForSession(plan.activeId) : undefined;
      if (activeTab) active ??= registry.terminalOf(activeTab);
      // Before VS Code opens the tabs (they attach then): the ones not shown load no screen until they are.
      if (active) this.ctx.expectActive(active);
      active?.show(true);
      if (count > 0) log.info(`restored ${count} tab(s) for ${this.ctx.workspace}`);
      return count;
    } finally {
      markPlanReady();
      this.planReady = undefined;
      this.restoreQueue = [];
    }
  }

  /** The terminal showing a session: restored just now, or already here (VS Code's startup terminal took it). */
  private terminalFor(id: string, opened: ReadonlyMap<string, vscode.Terminal>): vscode.Terminal | undefined {
    const known = opened.get(id);
    if (known) return known;
    const tab = this.ctx.registry.tabForSession(id);
    if (!tab) return undefined;
    return this.ctx.registry.terminalOf(tab) ?? vscode.window.terminals.find((t) => this.ctx.registry.tabOf(t) === tab);
  }

  /** The daemon's sessions, with this workspace's archives restored first after a reboot or a daemon crash. */
  private async sessionsToShow(): Promise<SessionInfo[]> {
    const { connection, sessions: list, workspace, log } = this.ctx;
    const client = await connection.get();
    let sessions = await list.refresh(client);
    const archived = await restoreArchives(client, workspace, sessions, (line) => log.info(line)).catch(
      (err: Error) => {
        log.warn(`restoring archived sessions: ${err.message}`);
        return 0;
      },
    );
    if (archived > 0) sessions = await list.refresh(client);
    this.pruneCliHooks(sessions);
    return sessions;
  }

  /** `code` hooks of sessions that no longer exist are removed. */
  private pruneCliHooks(sessions: SessionInfo[]): void {
    const live = new Set<string>();
    for (const s of sessions) {
      const hook = readLayout(s.metadata).cliHook;
      if (hook) live.add(hook);
    }
    try {
      pruneHooks(this.ctx.connection.socket, live);
    } catch (err) {
      this.ctx.log.warn(`pruning code hooks: ${(err as Error).message}`);
    }
  }
}

/**
 * Tabs a crashed extension host left behind: a new host sees them as terminals with only a name
 * (no command, no pseudoterminal of its own), opened before it started.
 */
function staleTabs(): vscode.Terminal[] {
  return vscode.window.terminals.filter((t) => {
    if (t.exitStatus !== undefined) return false;
    // Seen in VS Code 1.139: {name, shellPath, shellArgs, cwd, env, hideFromUser, titleTemplate},
    // all but the name undefined.
    const options = t.creationOptions as Record<string, unknown>;
    return (
      typeof options.name === 'string' &&
      Object.entries(options).every(([key, value]) => key === 'name' || value === undefined)
    );
  });
}
