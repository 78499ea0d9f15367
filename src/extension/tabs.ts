// This window's Holdfast tabs: creating them, bringing them back after a reload / restart / crash
// (in order, with names, location and the active one; never twice), and deciding what closing one
// means. VS Code calls a pseudoterminal's close() also when the window goes away, so a session is
// killed only when window.onDidCloseTerminal says the *user* closed its tab.
import * as os from 'node:os';
import * as vscode from 'vscode';
import { RequestError } from '../protocol/client';
import { DisposableStore, timeout } from '../protocol/disposable';
import { CreateParams, ErrorCode, SessionInfo } from '../protocol/messages';
import { hookPath, newHookId, pointHook, pruneHooks, removeHook } from './codeCli';
import { DaemonConnection } from './daemonConnection';
import {
  defaultSessionName,
  nextOrder,
  planRestore,
  readLayout,
  RestoreItem,
  TabLayout,
  TabLocation,
  withLayout,
} from './layout';
import { SessionTab, Size, TabHost, TabTarget } from './pseudoterminal';
import { restoreArchives } from './archives';
import { buildSessionEnv } from './sessionEnv';
import { SessionList } from './sessionList';
import { settings } from './settings';

export interface TabsOptions {
  connection: DaemonConnection;
  sessions: SessionList;
  workspace: string;
  log: vscode.LogOutputChannel;
  /** Folders to put first on a new session's PATH (`holdfast`, the editor's `code`). */
  sessionPath(): string[];
  /** This window's CLI hook (the extension host's VSCODE_IPC_HOOK_CLI), if the editor has one. */
  windowCliHook: string | undefined;
}

export const TAB_ICON = new vscode.ThemeIcon('pinned');

/** What a new session runs instead of the shell (an agent), and what it records about it. */
export interface Launch {
  argv: string[];
  metadata: Record<string, unknown>;
  /** Default names are "<nameBase> N" (e.g. "claude 1") instead of "holdfast N". */
  nameBase: string;
}

/** A default-profile request this soon after restored tabs came back is VS Code's startup terminal. */
const STARTUP_PROFILE_MS = 5000;

/** A tab that closes as soon as it opens (writes nothing, starts nothing). */
class ClosingTab implements vscode.Pseudoterminal {
  private readonly closeEmitter = new vscode.EventEmitter<void>();
  readonly onDidWrite = new vscode.EventEmitter<string>().event;
  readonly onDidClose = this.closeEmitter.event;
  open(): void {
    setTimeout(() => {
      this.closeEmitter.fire();
      this.closeEmitter.dispose();
    }, 0);
  }
  close(): void {
    this.closeEmitter.dispose();
  }
  handleInput(): void {}
}

export class TabManager implements TabHost, vscode.Disposable {
  private readonly store = new DisposableStore();
  private readonly bySession = new Map<string, SessionTab>();
  private readonly terminals = new Map<SessionTab, vscode.Terminal>();
  /** The window is going away: record nothing more about the layout. */
  private frozen = false;
  /** Restored sessions not yet given a tab (a startup default-profile terminal takes the first). */
  private restoreQueue: RestoreItem[] = [];
  private restoring: Promise<number> | undefined;
  private planReady: Promise<void> | undefined;
  /** When the last restore that brought tabs back finished (0: none did). */
  private restoredAt = 0;

  constructor(private readonly options: TabsOptions) {
    this.store.add(vscode.window.onDidOpenTerminal((t) => this.track(t)));
    this.store.add(vscode.window.onDidCloseTerminal((t) => void this.onClosed(t)));
    vscode.window.terminals.forEach((t) => this.track(t));
    this.store.add(
      options.connection.onDidLose(({ daemonGone, expected }) => this.onConnectionLost(daemonGone, expected)),
    );
    this.store.add(options.connection.onDidConnect((client) => this.forEachTab((tab) => tab.reconnected(client))));
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

  // ---- lookups ----

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

  /** Live tabs with their terminals, in window order. */
  liveTabs(): { tab: SessionTab; terminal: vscode.Terminal }[] {
    const result: { tab: SessionTab; terminal: vscode.Terminal }[] = [];
    for (const terminal of vscode.window.terminals) {
      const tab = this.tabOf(terminal);
      if (tab && !tab.isClosed && terminal.exitStatus === undefined) result.push({ tab, terminal });
    }
    return result;
  }

  /** The Holdfast tab the user means: the active terminal if it is one. */
  activeTab(): SessionTab | undefined {
    return this.tabOf(vscode.window.activeTerminal);
  }

  // ---- new tabs ----

  /** Opens a tab with a new session. */
  async newTerminal(location: TabLocation, name?: string, launch?: Launch): Promise<vscode.Terminal> {
    const tab = new SessionTab(this, await this.newTarget(location, name, launch));
    const terminal = vscode.window.createTerminal({
      name: tab.pendingName,
      pty: tab,
      iconPath: TAB_ICON,
      location: toLocation(location, false),
    });
    terminal.show();
    return terminal;
  }

  /** For the "Holdfast" terminal profile. At startup it takes the first session waiting to be restored instead of starting a new one. */
  async provideProfile(): Promise<vscode.TerminalProfile> {
    try {
      return await this.profile();
    } catch (err) {
      this.reportError('Holdfast could not start a terminal', err);
      throw err;
    }
  }

  private async profile(): Promise<vscode.TerminalProfile> {
    if (this.planReady) await this.planReady;
    // VS Code asks for its startup terminal (the default profile is Holdfast) when it saw an empty
    // panel, i.e. just before our restored tabs arrived: that tab would be a duplicate, so it closes at once.
    if (this.restoredAt && Date.now() - this.restoredAt < STARTUP_PROFILE_MS) {
      this.options.log.info(
        `VS Code's startup terminal (${Date.now() - this.restoredAt} ms after the restored tabs) is not needed: closing it`,
      );
      return new vscode.TerminalProfile({ name: 'holdfast', pty: new ClosingTab(), iconPath: TAB_ICON });
    }
    const index = this.restoreQueue.findIndex((item) => item.location === 'panel');
    if (index >= 0) {
      const [item] = this.restoreQueue.splice(index, 1);
      const tab = this.existingTab(item.session);
      return new vscode.TerminalProfile({ name: item.session.name, pty: tab, iconPath: TAB_ICON });
    }
    const tab = new SessionTab(this, await this.newTarget('panel'));
    return new vscode.TerminalProfile({ name: tab.pendingName, pty: tab, iconPath: TAB_ICON });
  }

  /** Shows a session here: its tab if it has one, else a new tab attached to it. */
  showSession(session: SessionInfo, location: TabLocation, preserveFocus = false): vscode.Terminal | undefined {
    const existing = this.bySession.get(session.id);
    if (existing) {
      const terminal = this.terminals.get(existing);
      terminal?.show(preserveFocus);
      return terminal;
    }
    const tab = this.existingTab(session);
    const terminal = vscode.window.createTerminal({
      name: session.name,
      pty: tab,
      iconPath: TAB_ICON,
      location: toLocation(location, preserveFocus),
    });
    terminal.show(preserveFocus);
    return terminal;
  }

  private existingTab(session: SessionInfo): SessionTab {
    const tab = new SessionTab(this, { kind: 'existing', session });
    this.bySession.set(session.id, tab);
    return tab;
  }

  private async newTarget(location: TabLocation, name?: string, launch?: Launch): Promise<TabTarget & { kind: 'new' }> {
    const client = await this.connection.get();
    const sessions = await this.options.sessions.refresh(client);
    const sessionName = name?.trim() || defaultSessionName(sessions, launch?.nameBase);
    const target = {
      kind: 'new' as const,
      name: sessionName,
      prepare: async (size: Size | undefined): Promise<CreateParams> =>
        this.createParams(sessionName, location, size, launch),
    };
    return target;
  }

  /** Where new sessions start, and the environment they get (PATH with `holdfast` and `code`). */
  sessionStart(cliHook?: string): { cwd: string; env: Record<string, string> } {
    return {
      cwd:
        vscode.workspace.workspaceFolders?.[0]?.uri.scheme === 'file'
          ? vscode.workspace.workspaceFolders[0].uri.fsPath
          : os.homedir(),
      env: buildSessionEnv(process.env, {
        pathPrepend: this.options.sessionPath(),
        cliHook,
        termProgramVersion: vscode.version,
      }),
    };
  }

  private async createParams(
    name: string,
    location: TabLocation,
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
    };
    return {
      name,
      argv: launch?.argv ?? [shell.path, ...shell.args],
      ...this.sessionStart(hookId ? hookPath(socket, hookId) : undefined),
      cols: size?.cols,
      rows: size?.rows,
      scrollback: settings.scrollback(),
      metadata: withLayout(launch?.metadata ?? {}, layout as Record<string, unknown>),
    };
  }

  // ---- restore ----

  /** Re-creates a tab for every session of this workspace that has none here; resolves how many. Runs once at a time. */
  restore(): Promise<number> {
    this.restoring ??= this.doRestore().finally(() => (this.restoring = undefined));
    return this.restoring;
  }

  private async doRestore(): Promise<number> {
    let markPlanReady!: () => void;
    this.planReady = new Promise((resolve) => (markPlanReady = resolve));
    try {
      const client = await this.connection.get();
      let sessions = await this.options.sessions.refresh(client);
      // After a reboot or a daemon crash: this workspace's tabs come back archived.
      const archived = await restoreArchives(client, this.workspace, sessions, (line) =>
        this.options.log.info(line),
      ).catch((err: Error) => {
        this.options.log.warn(`restoring archived sessions: ${err.message}`);
        return 0;
      });
      if (archived > 0) sessions = await this.options.sessions.refresh(client);
      this.pruneCliHooks(sessions);
      const plan = planRestore(sessions, this.workspace, new Set(this.bySession.keys()));
      const count = plan.items.length;
      this.restoreQueue = [...plan.items];
      markPlanReady();
      // Let a waiting profile request (VS Code's startup terminal) take its tab first.
      await new Promise((resolve) => setTimeout(resolve, 0));
      const stale = staleTabs();
      let active: vscode.Terminal | undefined;
      for (const item of this.restoreQueue.splice(0)) {
        if (this.bySession.has(item.session.id)) continue;
        const tab = this.existingTab(item.session);
        const terminal = vscode.window.createTerminal({
          name: item.session.name,
          pty: tab,
          iconPath: TAB_ICON,
          location: toLocation(item.location, true),
        });
        if (item.session.id === plan.activeId) active = terminal;
        // After an extension host crash the old tab stays, dead (its pseudoterminal died with the host): ours replaces it.
        const index = stale.findIndex((t) => t.name === item.session.name);
        if (index >= 0) stale.splice(index, 1)[0].dispose();
      }
      if (plan.activeId) active ??= this.terminals.get(this.bySession.get(plan.activeId)!);
      active?.show(true);
      if (count > 0) {
        this.restoredAt = Date.now();
        this.options.log.info(`restored ${count} tab(s) for ${this.workspace}`);
      }
      return count;
    } finally {
      markPlanReady();
      this.planReady = undefined;
      this.restoreQueue = [];
    }
  }

  private pruneCliHooks(sessions: SessionInfo[]): void {
    const live = new Set<string>();
    for (const s of sessions) {
      const hook = readLayout(s.metadata).cliHook;
      if (hook) live.add(hook);
    }
    try {
      pruneHooks(this.connection.socket, live);
    } catch (err) {
      this.options.log.warn(`pruning code hooks: ${(err as Error).message}`);
    }
  }

  // ---- what closing a tab means ----

  private track(terminal: vscode.Terminal): void {
    const tab = this.tabOf(terminal);
    if (tab) this.terminals.set(tab, terminal);
    // A pseudoterminal closing itself during startup may go unheard: close its terminal too.
    if ((terminal.creationOptions as vscode.ExtensionTerminalOptions).pty instanceof ClosingTab) {
      this.store.add(timeout(200, () => terminal.exitStatus === undefined && terminal.dispose()));
    }
  }

  private async onClosed(terminal: vscode.Terminal): Promise<void> {
    const tab = this.tabOf(terminal);
    if (!tab) return;
    this.terminals.delete(tab);
    const id = tab.sessionId;
    if (id && this.bySession.get(id) === tab) this.bySession.delete(id);
    const reason = terminal.exitStatus?.reason;
    if (reason === vscode.TerminalExitReason.Shutdown) this.freeze();
    if (tab.closeIntent || reason !== vscode.TerminalExitReason.User || this.frozen) return;
    // The user closed the tab (trash icon, Kill Terminal, closing the editor tab).
    if (!id) {
      tab.killWhenCreated = true; // still being created: kill it once it exists
      return;
    }
    await this.applyCloseAction(id, tab.session?.name ?? id, tab.exited);
  }

  private async applyCloseAction(id: string, name: string, exited: boolean): Promise<void> {
    let action = settings.closeAction();
    if (action === 'ask' && !exited) {
      const choice = await vscode.window.showWarningMessage(
        `Holdfast: the terminal "${name}" was closed. Kill its session, or keep it running in the background?`,
        { modal: true },
        'Kill',
        'Keep Running',
      );
      action = choice === 'Kill' ? 'kill' : 'detach';
    }
    try {
      if (action === 'detach' && !exited) await this.updateLayout(id, { detached: true });
      else await this.killSession(id);
    } catch (err) {
      this.reportError(`Holdfast could not ${action === 'detach' ? 'detach' : 'kill'} the session "${name}"`, err);
    }
  }

  /** Ends a session and removes it (its tab closes when the daemon says it was removed). */
  async killSession(id: string): Promise<void> {
    const tab = this.bySession.get(id);
    if (tab) tab.closeIntent = 'removed';
    const client = await this.connection.get();
    try {
      await client.request('kill', { session: id, remove: true });
    } catch (err) {
      if (!(err instanceof RequestError)) throw err;
      if (err.code === ErrorCode.NoSession) return;
      if (err.code !== ErrorCode.Exited) throw err;
      await client.request('remove', { session: id });
    }
  }

  /**
   * Starts an archived (or exited) session again in its own tab, which stays where it is: `resume`
   * continues an agent's conversation, `relaunch` runs the command again. A new run, not the old process.
   * `resumeArgv` is the resume command of the session's agent profile as this window's settings have it.
   */
  async startAgain(id: string, how: 'resume' | 'relaunch', resumeArgv?: string[]): Promise<SessionInfo> {
    const tab = this.bySession.get(id);
    tab?.expectReplacement();
    const client = await this.connection.get();
    // The new run keeps the session's metadata, so its `code` hook too (pointed here when the tab takes input).
    const hookId = this.options.windowCliHook
      ? readLayout((tab?.session ?? this.options.sessions.get(id))?.metadata).cliHook
      : undefined;
    const { env } = this.sessionStart(hookId ? hookPath(this.connection.socket, hookId) : undefined);
    let session: SessionInfo;
    let note: string;
    try {
      if (how === 'resume') {
        const result = await client.request('resume', { session: id, env, ...(resumeArgv ? { resumeArgv } : {}) });
        session = result.session;
        note = `resumed: ${result.argv.join(' ')} in ${session.cwd} (a new run of the agent; the conversation continues)`;
      } else {
        session = (await client.request('relaunch', { session: id, env })).session;
        note = `relaunched: ${session.argv.join(' ')} in ${session.cwd} (a new run, not the old process)`;
      }
    } catch (err) {
      tab?.replacementFailed();
      throw err;
    }
    if (tab && !tab.isClosed) {
      if (this.bySession.get(id) === tab) this.bySession.delete(id);
      this.bySession.set(session.id, tab);
      await tab.replaceSession(session, note);
      this.terminals.get(tab)?.show();
    } else {
      this.showSession(session, readLayout(session.metadata).location ?? 'panel');
    }
    return session;
  }

  /** Hides a tab and keeps its session running (it comes back through Attach to Session…). */
  async detach(tab: SessionTab): Promise<void> {
    const id = tab.sessionId;
    if (id) await this.updateLayout(id, { detached: true });
    tab.closeTab('detach');
  }

  /** Changes the extension's part of a session's metadata, keeping every other key. */
  async updateLayout(id: string, patch: Partial<Record<keyof TabLayout, unknown>>): Promise<void> {
    const client = this.connection.client ?? (await this.connection.get());
    const base = this.options.sessions.get(id)?.metadata ?? this.bySession.get(id)?.session?.metadata;
    await client.request('update', { session: id, metadata: withLayout(base, patch) });
  }

  // ---- TabHost ----

  sessionKnown(tab: SessionTab, session: SessionInfo): void {
    this.bySession.set(session.id, tab);
    // The tab became active before its session existed, so the layout tracker could not record it.
    const terminal = this.terminals.get(tab);
    if (terminal && terminal === vscode.window.activeTerminal && !this.frozen)
      void this.updateLayout(session.id, { activeAt: Date.now() }).catch(() => undefined);
    if (tab.killWhenCreated)
      void this.killSession(session.id).catch((err) => this.options.log.warn(`killing ${session.id}: ${err}`));
  }

  becameOwner(_tab: SessionTab, session: SessionInfo): void {
    const hookId = readLayout(session.metadata).cliHook;
    const target = this.options.windowCliHook;
    if (!hookId || !target) return;
    try {
      pointHook(hookPath(this.connection.socket, hookId), target);
    } catch (err) {
      this.options.log.warn(`pointing the code hook of ${session.id}: ${(err as Error).message}`);
    }
  }

  sessionRemoved(tab: SessionTab): void {
    const id = tab.sessionId;
    if (!id) return;
    if (this.bySession.get(id) === tab) this.bySession.delete(id);
    const hookId = readLayout(tab.session?.metadata).cliHook;
    if (hookId) removeHook(hookPath(this.connection.socket, hookId));
  }

  reportError(message: string, error: unknown): void {
    const detail = error instanceof Error ? error.message : String(error);
    this.options.log.error(`${message}: ${detail}`);
    void vscode.window.showErrorMessage(`${message}: ${detail}`, 'Show Daemon Status', 'Open Log').then((choice) => {
      if (choice === 'Show Daemon Status') void vscode.commands.executeCommand('holdfast.showStatus');
      else if (choice === 'Open Log') void vscode.commands.executeCommand('holdfast.openLog');
    });
  }

  // ---- connection ----

  private onConnectionLost(daemonGone: boolean, expected: boolean): void {
    this.forEachTab((tab) => (daemonGone ? tab.daemonGone(expected) : tab.connectionLost()));
  }

  private forEachTab(fn: (tab: SessionTab) => void): void {
    for (const tab of new Set([...this.terminals.keys(), ...this.bySession.values()])) fn(tab);
  }

  dispose(): void {
    this.freeze();
    this.store.dispose();
  }
}

/**
 * Tabs a crashed extension host left behind: a new host sees them as terminals with only a name
 * (no command, no pseudoterminal of its own), opened before it started.
 */
function staleTabs(): vscode.Terminal[] {
  return vscode.window.terminals.filter((t) => {
    if (t.exitStatus !== undefined) return false;
    // Seen in VS Code 1.139: {name, shellPath, shellArgs, cwd, env, hideFromUser, titleTemplate}, all but the name undefined.
    const options = t.creationOptions as Record<string, unknown>;
    return (
      typeof options.name === 'string' &&
      Object.entries(options).every(([key, value]) => key === 'name' || value === undefined)
    );
  });
}

function toLocation(
  location: TabLocation,
  preserveFocus: boolean,
): vscode.TerminalLocation | vscode.TerminalEditorLocationOptions {
  return location === 'editor'
    ? { viewColumn: vscode.ViewColumn.Active, preserveFocus }
    : vscode.TerminalLocation.Panel;
}
