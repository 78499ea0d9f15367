// The daemon's sessions as this window knows them: loaded by `subscribe`, kept current by its
// events, so the status bar and quick picks never poll. Pure Node (no vscode import).
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import type { HoldfastClient } from '../client/client';
import { DisposableStore, Emitter, type IDisposable, MutableDisposable, timeout } from '../base/disposable';
import { Capability, type DaemonEvent, type SessionInfo } from '../protocol/messages';
import { MAX_REMOTE_SESSIONS } from '../link/remoteSessions';
import type { ConnectionEvents } from './daemonConnection';
import type { Log } from './log';

/** How a host's word is checked before it is used (src/link/remoteSessions.ts); this machine's daemon is trusted. */
export interface SessionCheck {
  list(raw: unknown): SessionInfo[];
  event(raw: unknown): DaemonEvent | undefined;
  /** A host that has not answered the list this long after connecting is told to `unanswered` (one line). */
  answerWithinMs?: number;
  unanswered?: (client: HoldfastClient, line: string) => void;
}

export class SessionList implements IDisposable {
  private readonly store = new DisposableStore();
  /** The current client's event subscription; replaced with each new client. */
  private readonly clientEvents = this.store.add(new MutableDisposable());
  private readonly sessions = new Map<string, SessionInfo>();
  private readonly onDidChangeEmitter = this.store.add(new Emitter<void>());
  readonly onDidChange = this.onDidChangeEmitter.event;
  private readonly onEventEmitter = this.store.add(new Emitter<DaemonEvent>());
  /** The current connection's session events, checked when they come from a host. */
  readonly onEvent = this.onEventEmitter.event;

  constructor(
    private readonly connection: ConnectionEvents,
    private readonly log: Log,
    private readonly check?: SessionCheck,
  ) {
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
    return this.replace(sessions);
  }

  private async follow(client: HoldfastClient): Promise<void> {
    this.clientEvents.value = client.onEvent((raw) => {
      const event = this.check ? this.check.event(raw) : raw;
      if (!event) return;
      this.apply(event);
      this.onEventEmitter.fire(event);
    });
    const how = client.supports(Capability.Subscribe) ? 'subscribe' : 'list';
    const { answerWithinMs, unanswered } = this.check ?? {};
    const mute =
      answerWithinMs && unanswered
        ? timeout(answerWithinMs, () => unanswered(client, `${how} was not answered within ${answerWithinMs} ms`))
        : undefined;
    try {
      // An older daemon without subscribe still gets a list (refreshed when we ask again).
      const { sessions } = await client.request(how, {});
      // A newer connection follows on its own: this answer is stale.
      if (this.connection.client === client) this.replace(sessions);
    } catch (err) {
      const why = (err as Error).message;
      if (client.isClosed) this.log.info(`sessions: the connection closed before ${how} answered (${why})`);
      else this.log.warn(`sessions: ${how} failed (${why}); the list loads again with the next connection or list`);
    } finally {
      mute?.dispose();
    }
  }

  private replace(raw: SessionInfo[]): SessionInfo[] {
    const sessions = this.check ? this.check.list(raw) : raw;
    this.sessions.clear();
    for (const s of sessions) this.sessions.set(s.id, s);
    this.onDidChangeEmitter.fire();
    return sessions;
  }

  private apply(event: DaemonEvent): void {
    switch (event.type) {
      case 'session':
        // A host's new sessions past its bound are not shown (a forged flood); this machine's are all shown.
        if (this.check && !this.sessions.has(event.session.id) && this.sessions.size >= MAX_REMOTE_SESSIONS) return;
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
    this.store.dispose();
  }
}
