// This window's tabs on SSH hosts' sessions (holdfast.hosts): the same tab as this machine's (pseudoterminal.ts),
// keyed "@HOST/ID" (sessionKey.ts) and attached over the host's one connection (remoteHosts.ts) that its previews
// share. A tab hears when that connection drops and comes back (it says it is reconnecting, then resyncs from a
// snapshot), and the open ones are recorded (remoteTabRecord.ts) so a reload opens them again once their host connects.
import type * as vscode from 'vscode';
import type { HoldfastClient } from '../client/client';
import { DisposableStore, type IDisposable } from '../base/disposable';
import type { CreateParams, SessionInfo } from '../protocol/messages';
import { remoteSessionInfo } from '../link/remoteSessions';
import { oneLine, printable } from '../text/printable';
import { defaultSessionName } from './layout';
import type { TabLocation } from '../protocol/tabLayout';
import { SessionTab } from './pseudoterminal';
import type { HostConnection } from './hostConnection';
import type { RemoteHosts } from './remoteHosts';
import { type Memento, RemoteTabRecord } from './remoteTabRecord';
import { parseKey } from './sessionKey';
import type { TabHost, TabLink } from './tabHost';
import type { TabRegistry } from './tabRegistry';

export interface RemoteTabsDeps {
  registry: TabRegistry;
  hosts: RemoteHosts;
  /** Where the open tabs are recorded: the window's workspaceState. */
  state: Memento;
  /** The window's tabs (tabs.ts): what a tab needs from the window, for a host's tab as for any. */
  tabHost: TabHost;
  warn(line: string): void;
}

export class RemoteTabs implements IDisposable {
  private readonly store = new DisposableStore();
  /** Hosts whose recorded tabs are being opened: one pass at a time per host. */
  private readonly restoring = new Set<string>();
  private readonly record: RemoteTabRecord;
  /** Each host's connection as last seen: a host removed from the setting, or changed, drops its tabs' channels. */
  private readonly seen = new Map<string, HostConnection>();

  constructor(private readonly deps: RemoteTabsDeps) {
    const remotes = deps.hosts;
    this.record = new RemoteTabRecord(deps.state);
    this.store.add(remotes.onDidLose((host) => this.tabsOf(host).forEach((tab) => tab.connectionLost())));
    this.store.add(
      remotes.onDidConnect(({ host, client }) => {
        this.tabsOf(host).forEach((tab) => tab.reconnected(client));
        void this.reopen(host, client);
      }),
    );
    this.store.add(remotes.onDidChange(() => this.hostsChanged()));
    this.hostsChanged();
    for (const host of remotes.all) {
      const client = host.connection.client;
      if (client) void this.reopen(host.name, client);
    }
  }

  /** A tab whose host left the setting (or whose entry changed) reconnects once a host of its name connects. */
  private hostsChanged(): void {
    for (const tab of this.deps.registry.all()) {
      const name = tab.remoteHost;
      const was = name === undefined ? undefined : this.seen.get(name);
      if (was && was !== this.deps.hosts.get(name!)?.connection) tab.connectionLost();
    }
    this.seen.clear();
    for (const host of this.deps.hosts.all) this.seen.set(host.name, host.connection);
  }

  /** The connection a host's tabs attach over (none: the host left holdfast.hosts). */
  link(host: string): TabLink | undefined {
    return this.deps.hosts.get(host)?.connection;
  }

  /** Shows a host's session (by its key) in its tab here, or in a new tab attached over the host's connection. */
  async show(key: string, location: TabLocation): Promise<void> {
    const existing = this.deps.registry.tabForSession(key);
    const terminal = existing && this.deps.registry.terminalOf(existing);
    if (existing && terminal) {
      terminal.show();
      return existing.takeInput();
    }
    const { host, id } = parseKey(key);
    const remote = host ? this.deps.hosts.get(host) : undefined;
    if (!host || !remote) throw new Error(`${host || key} is not in holdfast.hosts`);
    const sessions = await remote.sessions.refresh(await remote.connection.get()); // checked (remoteSessions.ts)
    const session = sessions.find((s) => s.id === id);
    if (!session) throw new Error(`${host} has no session ${id} any more`);
    this.open(host, session, location, false).show();
  }

  /**
   * Starts a session on `host` (its on-demand daemon first if none listens there) and shows it in a new tab here,
   * recorded as a card's tab is. What the host refuses (a folder not there, a program not on its PATH) is thrown
   * as one line, and no tab opens.
   */
  async start(host: string, params: CreateParams & { nameBase?: string }, location: TabLocation): Promise<SessionInfo> {
    const remote = this.deps.hosts.get(host);
    if (!remote) throw new Error(`${host} is not in holdfast.hosts`);
    const client = await remote.connection.start();
    const { nameBase, ...create } = params;
    const known = await remote.sessions.refresh(client);
    const name = create.name?.trim() || defaultSessionName(known, nameBase);
    let raw: unknown;
    try {
      raw = (await client.request('create', { ...create, name })).session;
    } catch (err) {
      throw new Error(`${host}: ${printable(oneLine((err as Error).message))}`, { cause: err });
    }
    const session = remoteSessionInfo(raw); // the host's word
    if (!session) throw new Error(`${host} answered with a session that does not fit`);
    this.open(host, session, location, false).show();
    return session;
  }

  private open(host: string, session: SessionInfo, location: TabLocation, preserveFocus: boolean): vscode.Terminal {
    const { registry, tabHost } = this.deps;
    const tab = new SessionTab(tabHost, { kind: 'existing', session, host });
    const key = tab.sessionId!;
    registry.bind(key, tab);
    this.record.add(key);
    return registry.open(tab, tab.tabName(session.name), location, preserveFocus);
  }

  /** Opens the recorded tabs of a host that (re)connected and has none here yet; a session gone there is forgotten. */
  private async reopen(host: string, client: HoldfastClient): Promise<void> {
    const { registry, hosts } = this.deps;
    const record = this.record;
    const keys = record.of(host).filter((key) => !registry.tabForSession(key));
    const remote = hosts.get(host);
    if (keys.length === 0 || !remote || this.restoring.has(host)) return;
    this.restoring.add(host);
    try {
      const sessions = await remote.sessions.refresh(client);
      for (const key of keys) {
        const session = sessions.find((s) => s.id === parseKey(key).id);
        if (!session) record.remove(key);
        else if (!registry.tabForSession(key)) this.open(host, session, 'panel', true);
      }
    } catch (err) {
      this.deps.warn(`reopening the tabs of ${host}: ${(err as Error).message}`);
    } finally {
      this.restoring.delete(host);
    }
  }

  /** A host's session's tab was closed for good: it is not reopened after a reload. */
  forget(key: string): void {
    this.record.remove(key);
  }

  private tabsOf(host: string): SessionTab[] {
    return [...this.deps.registry.all()].filter((tab) => tab.remoteHost === host);
  }

  dispose(): void {
    this.store.dispose();
  }
}
