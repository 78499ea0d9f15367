// This window's Holdfast tabs: the entry point the commands and the activation use. It creates
// tabs for new sessions (with their environment and layout) and answers the tabs' needs (TabHost);
// the rest lives by concern: which tab shows which session (tabRegistry.ts), bringing tabs back
// after a reload / restart / crash (tabRestore.ts), and what Kill / Detach / Relaunch and closing a
// tab mean (sessionActions.ts). A tab's own life is in pseudoterminal.ts and tabState.ts.
import * as vscode from 'vscode';
import type { HoldfastClient } from '../client/client';
import { DisposableStore } from '../base/disposable';
import type { CreateParams, SessionInfo } from '../protocol/messages';
import { readLayout, type TabLayout, type TabLocation, withLayout } from '../protocol/tabLayout';
import { hookPath, newHookId, pointHook, removeHook } from './codeCli';
import type { DaemonConnection } from './daemonConnection';
import { defaultSessionName, nextOrder } from './layout';
import { SessionTab } from './pseudoterminal';
import { SessionActions } from './sessionActions';
import { type SessionStart, sessionStart } from './sessionStart';
import { reportError } from './errorReport';
import { settings } from './settings';
import type { Size, TabHost, TabLink, TabTarget } from './tabHost';
import { TabRegistry, tabTerminalOptions } from './tabRegistry';
import { TabRestore } from './tabRestore';
import { RemoteTabs } from './remoteTabs';
import type { RemoteHosts } from './remoteHosts';
import { terminalProfile } from './ui';
import { uiText } from '../text/uiText';
import { TabVisibility } from './tabVisibility';
import { WindowTyping } from './windowTyping';

export { TAB_ICON } from './tabRegistry';

import type { Launch, SplitRequest, TabsOptions } from './tabOptions';

export type { Launch, SplitRequest, TabsOptions };

export class TabManager implements TabHost, vscode.Disposable {
  private readonly store = new DisposableStore();
  private readonly registry = new TabRegistry();
  /** Which tabs are on screen: the others are sent nothing (tabVisibility.ts). */
  private readonly visibility = this.store.add(new TabVisibility(this.registry));
  /** Where the user types: that tab's output goes first (windowTyping.ts); the sidebar's previews use it too. */
  readonly typing = new WindowTyping();
  private readonly restorer: TabRestore;
  private readonly actions: SessionActions;
  private readonly remoteTabs: RemoteTabs | undefined;
  /** The window is going away: record nothing more about the layout. */
  private frozen = false;
  /** Holdfast: Split Terminal is waiting for its profile request (see splitGroups.ts); the group to join. */
  private splitting: SplitRequest | undefined;

  constructor(private readonly options: TabsOptions) {
    const { connection, sessions, workspace, log, windowCliHook, remotes } = options;
    const registry = this.registry;
    const warn = (line: string) => log.warn(line);
    this.remoteTabs = remotes && this.store.add(new RemoteTabs({ registry, ...remotes, tabHost: this, warn }));
    this.restorer = new TabRestore({
      registry,
      connection,
      sessions,
      workspace,
      log,
      existingTab: (session) => this.existingTab(session),
      expectActive: (terminal) => this.visibility.expectActive(terminal),
    });
    this.actions = new SessionActions({
      registry,
      connection,
      sessions,
      windowCliHook,
      isFrozen: () => this.frozen,
      freeze: () => this.freeze(),
      sessionStart: (cliHook, nonce) => this.sessionStart(cliHook, nonce),
      sessionStarted: (session, nonce) => options.shell.remember(session.id, nonce),
      showSession: (session, location) => this.showSession(session, location),
      reportError: (message, error) => this.reportError(message, error),
      warn: (line) => log.warn(line),
      sessionRemoved: (session) => options.sessionRemoved?.(session),
      forgetRemote: (key) => this.remoteTabs?.forget(key),
    });
    this.store.add(vscode.window.onDidOpenTerminal((t) => this.track(t)));
    this.store.add(vscode.window.onDidCloseTerminal((t) => void this.actions.onClosed(t)));
    vscode.window.terminals.forEach((t) => this.track(t));
    // This machine's daemon's tabs; a host's hear their host's connection (remoteTabs.ts).
    const local = () => [...this.registry.all()].filter((tab) => tab.remoteHost === undefined);
    this.store.add(
      connection.onDidLose(({ daemonGone, expected }) =>
        local().forEach((tab) => (daemonGone ? tab.daemonGone(expected) : tab.connectionLost())),
      ),
    );
    this.store.add(connection.onDidConnect((client) => local().forEach((tab) => tab.reconnected(client))));
  }

  get connection(): DaemonConnection {
    return this.options.connection;
  }

  get workspace(): string {
    return this.options.workspace;
  }

  get isFrozen(): boolean {
    return this.frozen;
  }

  freeze(): void {
    this.frozen = true;
  }

  // ---- lookups (tabRegistry.ts) ----

  readonly tabOf = (terminal: vscode.Terminal | undefined): SessionTab | undefined => this.registry.tabOf(terminal);
  readonly terminalOf = (tab: SessionTab): vscode.Terminal | undefined => this.registry.terminalOf(tab);

  readonly tabForSession = (id: string): SessionTab | undefined => this.registry.tabForSession(id);

  /** Live tabs with their terminals, in window order. */
  readonly liveTabs = (): { tab: SessionTab; terminal: vscode.Terminal }[] => this.registry.liveTabs();

  /** The Holdfast tab the user means: the active terminal if it is one. */
  activeTab(): SessionTab | undefined {
    return this.tabOf(vscode.window.activeTerminal);
  }

  // ---- new tabs ----

  /** Opens a tab with a new session. */
  async newTerminal(location: TabLocation, name?: string, launch?: Launch): Promise<vscode.Terminal> {
    const tab = new SessionTab(this, await this.newTarget(location, name, launch));
    const terminal = this.registry.open(tab, uiText(tab.pendingName), location, false);
    terminal.show();
    return terminal;
  }

  /**
   * For the "Holdfast" terminal profile. At startup it takes the first session waiting to be
   * restored instead of starting a new one.
   */
  async provideProfile(): Promise<vscode.TerminalProfile> {
    try {
      const split = this.splitting;
      this.splitting = undefined;
      const startup = split ? undefined : await this.restorer.startupProfile();
      if (startup) return startup;
      const tab = new SessionTab(this, await this.newTarget('panel', undefined, undefined, split));
      return terminalProfile(tabTerminalOptions(tab, uiText(tab.pendingName)));
    } catch (err) {
      this.reportError('Holdfast could not start a terminal', err);
      throw err;
    }
  }

  /**
   * The next profile request is a split (made by VS Code beside the active terminal): its session
   * joins `split.splitOf`'s group, read when the session is created (once VS Code has placed the tab).
   */
  expectSplit(split: SplitRequest | undefined): void {
    this.splitting = split;
  }

  /** The SSH hosts this window follows (holdfast.hosts). */
  get remoteHosts(): RemoteHosts | undefined {
    return this.options.remotes?.hosts;
  }

  /** Starts a session on an SSH host and shows it in a new tab here (remoteTabs.ts). */
  startOnHost(host: string, params: CreateParams & { nameBase?: string }, location: TabLocation): Promise<SessionInfo> {
    if (!this.remoteTabs) throw new Error('this window follows no SSH hosts');
    return this.remoteTabs.start(host, params, location);
  }

  /** Shows a host's session (its key, "@HOST/ID") here: its tab, or a new one over the host's connection. */
  async showRemote(key: string, location: TabLocation): Promise<void> {
    if (!this.remoteTabs) throw new Error('this window follows no SSH hosts');
    return this.remoteTabs.show(key, location);
  }

  /** Shows a session here: its tab if it has one, else a new tab attached to it. */
  showSession(session: SessionInfo, location: TabLocation, preserveFocus = false): vscode.Terminal | undefined {
    const existing = this.registry.tabForSession(session.id);
    if (existing) {
      const terminal = this.registry.terminalOf(existing);
      terminal?.show(preserveFocus);
      return terminal;
    }
    const terminal = this.registry.open(this.existingTab(session), uiText(session.name), location, preserveFocus);
    terminal.show(preserveFocus);
    return terminal;
  }

  private existingTab(session: SessionInfo): SessionTab {
    const shellNonce = this.options.shell.nonceFor(session.id);
    const tab = new SessionTab(this, { kind: 'existing', session, shellNonce });
    this.registry.bind(session.id, tab);
    return tab;
  }

  private async newTarget(
    location: TabLocation,
    name?: string,
    launch?: Launch,
    split?: SplitRequest,
  ): Promise<TabTarget & { kind: 'new' }> {
    const client = await this.connection.get();
    const sessions = await this.options.sessions.refresh(client);
    const sessionName = name?.trim() || defaultSessionName(sessions, launch?.nameBase);
    const shellNonce = this.options.shell.nonceFor();
    return {
      kind: 'new',
      name: sessionName,
      shellNonce,
      create: async (creator: HoldfastClient, size: Size | undefined): Promise<SessionInfo> => {
        try {
          const layout = { location, splitOf: split?.splitOf, shellNonce, cwd: split?.cwd };
          const params = await this.createParams(sessionName, layout, size, launch);
          if (split?.cancelled) throw new Error('the split was placed in another group and closed');
          return (await creator.request('create', params)).session;
        } catch (err) {
          launch?.createFailed?.(err);
          throw err;
        }
      },
    };
  }

  /** Where new sessions start, their environment (PATH with `holdfast` and `code`), their shell's integration. */
  sessionStart(cliHook?: string, shellNonce?: string): SessionStart {
    return sessionStart(this.options.sessionPath(), this.options.shell.params(shellNonce), cliHook);
  }

  private async createParams(
    name: string,
    {
      location,
      splitOf,
      shellNonce,
      cwd,
    }: { location: TabLocation; splitOf?: string; shellNonce: string; cwd?: string },
    size: Size | undefined,
    launch?: Launch,
  ): Promise<CreateParams> {
    const client = await this.connection.get();
    const sessions = await this.options.sessions.refresh(client);
    const shell = settings.shell();
    const hookId = this.options.windowCliHook ? newHookId() : undefined;
    const socket = this.connection.socket;
    if (hookId) pointHook(hookPath(socket, hookId), this.options.windowCliHook!);
    const layout: TabLayout = {
      workspace: this.workspace,
      order: nextOrder(sessions, this.workspace),
      location,
      cliHook: hookId,
      ...(splitOf ? { splitOf } : {}),
    };
    return {
      name,
      argv: launch?.argv ?? [shell.path, ...shell.args],
      ...this.sessionStart(hookId ? hookPath(socket, hookId) : undefined, shellNonce),
      ...(cwd ? { cwd } : {}),
      ...(launch?.cwd ? { cwd: launch.cwd } : {}),
      cols: size?.cols,
      rows: size?.rows,
      scrollback: settings.scrollback(),
      metadata: withLayout(launch?.metadata ?? {}, layout),
    };
  }

  // ---- restore (tabRestore.ts) ----

  /** Re-creates a tab for every session of this workspace that has none here; resolves how many. One at a time. */
  restore(): Promise<number> {
    return this.restorer.restore();
  }

  // ---- session actions (sessionActions.ts) ----

  /** Ends a session and removes it (its tab closes when the daemon says it was removed). */
  killSession(id: string): Promise<void> {
    return this.actions.killSession(id);
  }

  /** Starts an archived (or exited) session again in its own tab (see SessionActions.startAgain). */
  startAgain(id: string, how: 'resume' | 'relaunch', resumeArgv?: string[]): Promise<SessionInfo> {
    return this.actions.startAgain(id, how, resumeArgv);
  }

  /** Hides a tab and keeps its session running (it comes back through Attach to Session…). */
  detach(tab: SessionTab): Promise<void> {
    return this.actions.detach(tab);
  }

  /** Takes a session out of its split group in the record, with `own` layout changes (SessionActions). */
  leaveSplitGroup(id: string, own?: Partial<Record<keyof TabLayout, unknown>>): Promise<void> {
    return this.actions.leaveSplitGroup(id, own);
  }

  /** Changes the extension's part of a session's metadata, keeping every other key. */
  updateLayout(id: string, patch: Partial<Record<keyof TabLayout, unknown>>): Promise<void> {
    return this.actions.updateLayout(id, patch);
  }

  // ---- TabHost ----

  sessionKnown(tab: SessionTab, session: SessionInfo): void {
    this.registry.bind(session.id, tab);
    this.options.shell.remember(session.id, tab.shellNonce);
    this.actions.sessionCreated(tab, session);
  }

  readonly hostLink = (host: string): TabLink | undefined => this.remoteTabs?.link(host);

  becameOwner(tab: SessionTab, session: SessionInfo): void {
    const hookId = readLayout(session.metadata).cliHook;
    const target = this.options.windowCliHook;
    if (!hookId || !target || tab.remoteHost !== undefined) return; // a host's hooks are on that host
    try {
      pointHook(hookPath(this.connection.socket, hookId), target);
    } catch (err) {
      this.options.log.warn(`pointing the code hook of ${session.id}: ${(err as Error).message}`);
    }
  }

  sessionRemoved(tab: SessionTab): void {
    const id = tab.sessionId;
    if (!id) return;
    this.registry.unbind(id, tab);
    const hookId = readLayout(tab.session?.metadata).cliHook;
    if (hookId && tab.remoteHost === undefined) removeHook(hookPath(this.connection.socket, hookId));
  }

  readonly isShown = (tab: SessionTab): boolean => this.visibility.isShown(tab);
  readonly laidOut = (tab: SessionTab): void => this.visibility.laidOut(tab);

  warn(line: string): void {
    this.options.log.warn(line);
  }

  reportError(message: string, error: unknown): void {
    reportError(this.options.log, message, error);
  }

  private track(terminal: vscode.Terminal): void {
    this.registry.track(terminal);
  }

  dispose(): void {
    this.freeze();
    this.store.dispose();
  }
}
