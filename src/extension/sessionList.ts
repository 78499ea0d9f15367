// The daemon's sessions as this window knows them: loaded by `subscribe`, kept current by its
// events, so the status bar and quick picks never poll. Pure Node (no vscode import).
import { HoldfastClient } from '../protocol/client';
import { DisposableStore, Emitter, IDisposable } from '../protocol/disposable';
import { Capability, DaemonEvent, SessionInfo } from '../protocol/messages';
import { DaemonConnection } from './daemonConnection';

export class SessionList implements IDisposable {
  private readonly store = new DisposableStore();
  private clientStore = new DisposableStore();
  private readonly sessions = new Map<string, SessionInfo>();
  private readonly onDidChangeEmitter = this.store.add(new Emitter<void>());
  readonly onDidChange = this.onDidChangeEmitter.event;

  constructor(private readonly connection: DaemonConnection) {
    this.store.add(connection.onDidConnect((client) => void this.follow(client)));
    this.store.add(
      connection.onDidChangeState((state) => {
        if (state.kind === 'connected' || this.sessions.size === 0) return;
        this.sessions.clear();
        this.onDidChangeEmitter.fire();
      }),
    );
  }

  get all(): SessionInfo[] {
    return [...this.sessions.values()].sort((a, b) => a.createdAt - b.createdAt);
  }

  get(id: string): SessionInfo | undefined {
    return this.sessions.get(id);
  }

  get running(): number {
    let n = 0;
    for (const s of this.sessions.values()) if (s.state === 'running') n++;
    return n;
  }

  /** A fresh list straight from the daemon (also refreshes ours). */
  async refresh(client: HoldfastClient): Promise<SessionInfo[]> {
    const { sessions } = await client.request('list', {});
    this.replace(sessions);
    return sessions;
  }

  private async follow(client: HoldfastClient): Promise<void> {
    this.clientStore.dispose();
    this.clientStore = new DisposableStore();
    this.clientStore.add(client.onEvent((event) => this.apply(event)));
    try {
      // An older daemon without subscribe still gets a list (refreshed when we ask again).
      const { sessions } = client.supports(Capability.Subscribe)
        ? await client.request('subscribe', {})
        : await client.request('list', {});
      this.replace(sessions);
    } catch {
      // the connection dropped meanwhile: the next connection follows again
    }
  }

  private replace(sessions: SessionInfo[]): void {
    this.sessions.clear();
    for (const s of sessions) this.sessions.set(s.id, s);
    this.onDidChangeEmitter.fire();
  }

  private apply(event: DaemonEvent): void {
    switch (event.type) {
      case 'session':
        this.sessions.set(event.session.id, event.session);
        break;
      case 'removed':
        if (!this.sessions.delete(event.id)) return;
        break;
      case 'exit': {
        const s = this.sessions.get(event.id);
        if (!s) return;
        this.sessions.set(event.id, { ...s, state: 'exited', exit: event.exit });
        break;
      }
      default:
        return;
    }
    this.onDidChangeEmitter.fire();
  }

  dispose(): void {
    this.clientStore.dispose();
    this.store.dispose();
  }
}
