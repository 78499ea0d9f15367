// The SSH hosts of holdfast.hosts as this window follows them: per host one connection (hostConnection.ts), its
// session list and states checked as a host's word (src/link/remoteSessions.ts), and its section of the cards.
// Rebuilt when the setting changes: a host whose entry stayed the same keeps its connection.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import type { HoldfastClient } from '../client/client';
import { DisposableStore, Emitter, type IDisposable } from '../base/disposable';
import type { DaemonLink } from '../link/daemonLink';
import { DEFAULT_HOST_TIMEOUT_MS, type HostEntry, hostName } from '../link/hosts';
import { remoteSessionList } from '../link/remoteSessions';
import { programText } from '../text/programText';
import { HostConnection } from './hostConnection';
import type { Log } from './log';
import { SessionList } from './sessionList';
import { type HostSection, hostCards, SessionStateTracker } from './sessionState';

/** One host: its connection, its sessions and their states. */
export class RemoteHost implements IDisposable {
  private readonly store = new DisposableStore();
  readonly connection: HostConnection;
  readonly sessions: SessionList;
  private readonly tracker = new SessionStateTracker();

  constructor(
    readonly entry: HostEntry,
    link: DaemonLink,
    log: Log,
    changed: () => void,
  ) {
    this.connection = this.store.add(new HostConnection(link, (line) => log.info(line)));
    this.sessions = this.store.add(
      new SessionList(this.connection, log, {
        list: remoteSessionList,
        event: (raw) => this.connection.intake(raw),
        answerWithinMs: entry.timeoutMs ?? DEFAULT_HOST_TIMEOUT_MS,
        unanswered: (client, line) => this.connection.unanswered(client, line),
      }),
    );
    this.store.add(this.connection.onDidDropEvents(() => this.resync()));
    this.store.add(this.connection.onDidConnect(() => this.tracker.reset([])));
    this.store.add(this.sessions.onEvent((event) => this.tracker.apply(event) && changed()));
    this.store.add(this.sessions.onDidChange(changed));
    this.store.add(this.connection.onDidChangeState(changed));
  }

  get name(): string {
    return hostName(this.entry);
  }

  /** Events were dropped (a flood): the list read again says what they did. */
  private resync(): void {
    const client = this.connection.client;
    if (client) this.sessions.refresh(client).catch(() => undefined); // a lost connection lists anew on connect
  }

  section(now: number): HostSection {
    const state = this.connection.state;
    return {
      name: this.name,
      state: state.kind === 'connected' ? 'connected' : state.kind === 'failed' ? 'failed' : 'connecting',
      ...(state.kind === 'failed' ? { error: programText(state.error.message) } : {}),
      cards: state.kind === 'connected' ? hostCards(this.name, this.sessions.all, this.tracker, now) : [],
    };
  }

  dispose(): void {
    this.store.dispose();
  }
}

export interface RemoteHostsDeps {
  /** The link to a host (src/link/daemonLink.ts's sshLink in the window; anything that connects in tests). */
  link(entry: HostEntry): DaemonLink;
  log: Log;
}

export class RemoteHosts implements IDisposable {
  private readonly hosts = new Map<string, RemoteHost>();
  private readonly store = new DisposableStore();
  private readonly onDidChangeEmitter = this.store.add(new Emitter<void>());
  /** A host's sessions, states or connection changed, or the hosts themselves. */
  readonly onDidChange = this.onDidChangeEmitter.event;
  private readonly onDidConnectEmitter = this.store.add(new Emitter<{ host: string; client: HoldfastClient }>());
  /** A host connected (the first time or again): its previews and tabs attach again. */
  readonly onDidConnect = this.onDidConnectEmitter.event;
  private readonly onDidLoseEmitter = this.store.add(new Emitter<string>());
  /** A host's connection dropped: its previews' and tabs' channels are gone. */
  readonly onDidLose = this.onDidLoseEmitter.event;

  constructor(private readonly deps: RemoteHostsDeps) {
    this.store.add({ dispose: () => this.update([]) });
  }

  /** The hosts in the setting's order. */
  get all(): RemoteHost[] {
    return [...this.hosts.values()];
  }

  get(name: string): RemoteHost | undefined {
    return this.hosts.get(name);
  }

  /** Follows `entries` (the setting's): new hosts connect, removed ones disconnect, unchanged ones stay as they are. */
  update(entries: readonly HostEntry[]): void {
    const next = new Map<string, RemoteHost>();
    for (const entry of entries) {
      const name = hostName(entry);
      const kept = this.hosts.get(name);
      if (kept && JSON.stringify(kept.entry) === JSON.stringify(entry)) {
        next.set(name, kept);
        this.hosts.delete(name);
        continue;
      }
      next.set(name, this.start(entry));
    }
    for (const gone of this.hosts.values()) gone.dispose();
    this.hosts.clear();
    for (const [name, host] of next) this.hosts.set(name, host);
    this.onDidChangeEmitter.fire();
  }

  sections(now: number): HostSection[] {
    return this.all.map((host) => host.section(now));
  }

  private start(entry: HostEntry): RemoteHost {
    const changed = () => this.onDidChangeEmitter.fire();
    const host = new RemoteHost(entry, this.deps.link(entry), this.deps.log, changed);
    host.connection.onDidConnect((client) => this.onDidConnectEmitter.fire({ host: host.name, client }));
    host.connection.onDidLose(() => this.onDidLoseEmitter.fire(host.name));
    return host;
  }

  dispose(): void {
    this.store.dispose();
  }
}
