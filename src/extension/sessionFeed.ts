// The card model of every session, for the sidebar, the wall, the status bar and the notifications: one per window;
// this machine's daemon's pushed events → session states → cards, and each SSH host's section (remoteHosts.ts).
import * as os from 'node:os';
import * as vscode from 'vscode';
import type { HoldfastClient } from '../client/client';
import { DisposableStore, Emitter, type IDisposable, MutableDisposable, timeout } from '../base/disposable';
import type { DaemonEvent } from '../protocol/messages';
import type { DaemonConnection } from './daemonConnection';
import type { RemoteHosts } from './remoteHosts';
import { parseKey } from './sessionKey';
import type { SessionList } from './sessionList';
import { buildModel, SessionStateTracker, type SidebarModel } from './sessionState';
import type { WindowTyping } from './windowTyping';

/** Model changes closer together than this are sent once. */
const MODEL_DEBOUNCE_MS = 80;

export interface PreviewDeps {
  connection: DaemonConnection;
  sessions: SessionList;
  workspace: string;
  log: vscode.LogOutputChannel;
  /** Where the user types (windowTyping.ts): previews wait meanwhile. */
  typing?: WindowTyping;
  /** The SSH hosts of holdfast.hosts: a section each, after this machine's sessions. */
  remotes?: RemoteHosts;
}

/** The card model of every session, kept current from the daemon's events (no polling). */
export class SessionFeed implements IDisposable {
  private readonly store = new DisposableStore();
  /** The current client's event subscription; replaced with each new client. */
  private readonly clientEvents = this.store.add(new MutableDisposable());
  private readonly tracker = new SessionStateTracker();
  private readonly onDidChangeEmitter = this.store.add(new Emitter<void>());
  /** Fires (debounced) when the model may have changed. */
  readonly onDidChange = this.onDidChangeEmitter.event;
  private pending: IDisposable | undefined;
  private hasArchivedAgents: boolean | undefined;

  constructor(private readonly deps: PreviewDeps) {
    this.store.add(deps.sessions.onDidChange(() => this.changed()));
    this.store.add(deps.connection.onDidChangeState(() => this.changed()));
    this.store.add(deps.connection.onDidConnect((client) => this.follow(client)));
    if (deps.remotes) this.store.add(deps.remotes.onDidChange(() => this.changed()));
    const client = deps.connection.client;
    if (client) this.follow(client);
    this.store.add({ dispose: () => this.pending?.dispose() });
    this.updateContext(this.model());
  }

  model(): SidebarModel {
    const connected = this.deps.connection.state.kind === 'connected';
    const now = Date.now();
    const model = buildModel(this.deps.sessions.all, this.tracker, this.deps.workspace, now, connected, os.homedir());
    return { ...model, hosts: this.deps.remotes?.sections(now) ?? [] };
  }

  /** The client a session key's requests go to (this machine's daemon or its host's), and the daemon's id there. */
  async clientFor(key: string): Promise<{ client: HoldfastClient; id: string }> {
    const { host, id } = parseKey(key);
    if (host === undefined) return { client: await this.deps.connection.get(), id };
    const remote = this.deps.remotes?.get(host);
    if (!remote) throw new Error(`${host} is no longer in holdfast.hosts`);
    return { client: await remote.connection.get(), id };
  }

  private follow(client: HoldfastClient): void {
    this.tracker.reset([]);
    this.clientEvents.value = client.onEvent((event: DaemonEvent) => {
      if (this.tracker.apply(event)) this.changed();
    });
    this.changed();
  }

  private changed(): void {
    if (this.pending) return;
    this.pending = timeout(MODEL_DEBOUNCE_MS, () => {
      this.pending = undefined;
      const model = this.model();
      this.updateContext(model);
      this.onDidChangeEmitter.fire();
    });
  }

  private updateContext(model: SidebarModel): void {
    if (this.hasArchivedAgents === model.hasArchivedAgents) return;
    this.hasArchivedAgents = model.hasArchivedAgents;
    void vscode.commands.executeCommand('setContext', 'holdfast.hasArchivedAgents', model.hasArchivedAgents);
  }

  dispose(): void {
    this.store.dispose();
  }
}
