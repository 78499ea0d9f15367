// One connection per window to an SSH host's daemon (holdfast.hosts), over its link (src/link/daemonLink.ts): kept
// open, and opened again after a drop (reconnect.ts's policy). A failure is the host's one line (sshFailure.ts) in
// its state, never a prompt; a host that refuses for good is tried again after a pause, never in a tight loop.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import type { HoldfastClient } from '../client/client';
import { DisposableStore, Emitter, type IDisposable, MutableDisposable, timeout } from '../base/disposable';
import type { DaemonLink } from '../link/daemonLink';
import { EventBudget } from '../link/eventBudget';
import { remoteEvent } from '../link/remoteSessions';
import type { DaemonEvent } from '../protocol/messages';
import { lossReason, mayPass, reconnect } from '../link/reconnect';
import { oneLine, printable } from '../text/printable';
import type { ConnectionEvents, DaemonState } from './daemonConnection';

/** After a failure that does not pass by itself (a host key, a login, no daemon there): the next try. */
export const HOST_RETRY_MS = 30_000;
/** A connection lost this soon after it was made, twice in a row, is not made again before HOST_RETRY_MS. */
export const SHORT_LIVED_MS = 10_000;

export class HostConnection implements ConnectionEvents, IDisposable {
  private readonly store = new DisposableStore();
  private readonly clientStore = this.store.add(new MutableDisposable<DisposableStore>());
  private readonly retrying = this.store.add(new MutableDisposable());
  /** The attempt in flight: a newer one (a start asked for) aborts it, as closing does. */
  private readonly attempt = this.store.add(new MutableDisposable());
  private starting: Promise<HoldfastClient> | undefined;
  private current: DaemonState = { kind: 'connecting' };
  private connectedAt = 0;
  /** Connections in a row that were lost within SHORT_LIVED_MS. */
  private shortLived = 0;

  private readonly onDidChangeStateEmitter = this.store.add(new Emitter<DaemonState>());
  readonly onDidChangeState = this.onDidChangeStateEmitter.event;
  private readonly onDidConnectEmitter = this.store.add(new Emitter<HoldfastClient>());
  readonly onDidConnect = this.onDidConnectEmitter.event;
  private readonly onDidLoseEmitter = this.store.add(new Emitter<{ daemonGone: boolean; expected: boolean }>());
  readonly onDidLose = this.onDidLoseEmitter.event;
  private readonly onDidDropEventsEmitter = this.store.add(new Emitter<number>());
  /** A flood of the host's events ended, this many dropped: what they said is to be read again (its list). */
  readonly onDidDropEvents = this.onDidDropEventsEmitter.event;
  private readonly budget: EventBudget;

  constructor(
    readonly link: DaemonLink,
    private readonly log: (line: string) => void,
  ) {
    this.budget = this.store.add(
      new EventBudget(`host ${link.name}`, { log, ended: (dropped) => this.onDidDropEventsEmitter.fire(dropped) }),
    );
    void this.open(false);
  }

  /** The host's name, as its section and its sessions' keys say it. */
  get name(): string {
    return this.link.name;
  }

  get state(): DaemonState {
    return this.current;
  }

  get client(): HoldfastClient | undefined {
    return this.current.kind === 'connected' ? this.current.client : undefined;
  }

  /** A session event from the host as the window may use it: within the host's budget, and checked. */
  intake(raw: unknown): DaemonEvent | undefined {
    // A channel's events (its tab's or preview's) go to the channel alone: they are not the list's to count.
    if (!raw || typeof raw !== 'object' || 'channel' in raw) return undefined;
    return this.budget.admit() ? remoteEvent(raw) : undefined;
  }

  /** The connected client, or the host's one line of why there is none. */
  async get(): Promise<HoldfastClient> {
    const client = this.client;
    if (client && !client.isClosed) return client;
    if (this.current.kind === 'failed') throw this.current.error;
    throw new Error(`${this.name} is not connected yet`);
  }

  /**
   * The connected client; when there is none, a connection that starts the host's on-demand daemon if none listens
   * there (`bridge --start`, as `holdfast new --host` does), for a session about to be started on it.
   */
  start(): Promise<HoldfastClient> {
    const client = this.client;
    if (client && !client.isClosed) return Promise.resolve(client);
    this.starting ??= this.connectStarting().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async connectStarting(): Promise<HoldfastClient> {
    const signal = this.newAttempt();
    try {
      const client = await this.link.connect({ start: true });
      if (signal.aborted) {
        client.close();
        throw signal.reason as Error;
      }
      this.adopt(client);
      return client;
    } catch (err) {
      if (signal.aborted) throw err;
      this.afterFailure(err as Error, true);
      throw this.current.kind === 'failed' ? this.current.error : err;
    }
  }

  /** After the host was fixed (Holdfast installed there): try now rather than at the next pause. */
  retryNow(): void {
    if (this.current.kind !== 'failed' || this.store.isDisposed) return;
    void this.open(true); // a new attempt clears the pause before the next
  }

  /** Connects (the first time, or again after a drop); each failure that may pass is shown and tried again. */
  private async open(again: boolean): Promise<void> {
    const signal = this.newAttempt();
    try {
      const client = again
        ? await reconnect(this.link, { signal, onRetry: (_, err) => this.failed(err, true) })
        : await this.link.connect();
      if (signal.aborted) return client.close();
      this.adopt(client);
    } catch (err) {
      if (signal.aborted) return;
      this.afterFailure(err as Error, !again);
    }
  }

  /** A new attempt replaces the one in flight (its result is dropped) and the pause before the next. */
  private newAttempt(): AbortSignal {
    const attempt = new AbortController();
    this.attempt.value = { dispose: () => attempt.abort(new Error('closed')) };
    this.retrying.clear();
    this.setState({ kind: 'connecting' });
    return attempt.signal;
  }

  /** The first failure that may pass is tried again with the policy's pauses; any other, after HOST_RETRY_MS. */
  private afterFailure(err: Error, first: boolean): void {
    const passes = first && mayPass(err);
    this.failed(err, passes);
    if (passes) return void this.open(true);
    this.retrying.value = timeout(HOST_RETRY_MS, () => void this.open(true));
  }

  private adopt(client: HoldfastClient): void {
    const owned = new DisposableStore();
    this.clientStore.value = owned;
    owned.add(client);
    owned.add(
      client.onClose((error) => {
        if (this.client !== client || this.store.isDisposed) return; // replaced, or the window let it go
        const why = printable(oneLine(lossReason(this.link, client, error).message));
        const lived = Date.now() - this.connectedAt;
        this.shortLived = lived < SHORT_LIVED_MS ? this.shortLived + 1 : 0;
        // A host that drops every connection soon after it is made (a far end that sends what no daemon would):
        // a connection per 30 s, not one per pause of the reconnect policy.
        if (this.shortLived >= 2) return this.drop(`lost ${lived} ms after it was made, again (${why})`);
        this.log(`host ${this.name}: the connection was lost (${why}); reconnecting`);
        this.setState({ kind: 'stopped' });
        this.onDidLoseEmitter.fire({ daemonGone: false, expected: false });
        void this.open(true);
      }),
    );
    this.connectedAt = Date.now();
    this.log(`host ${this.name}: connected (pid ${client.hello.pid}, ${printable(client.hello.version)})`);
    this.setState({ kind: 'connected', client });
    this.onDidConnectEmitter.fire(client);
  }

  /** The host answered its hello but not a request in time (SessionList): dropped, made again later. */
  unanswered(client: HoldfastClient, line: string): void {
    if (this.client === client && !this.store.isDisposed) this.drop(line);
  }

  /** Ends the current connection with the host's one line; the next is made after HOST_RETRY_MS. */
  private drop(why: string): void {
    this.failed(new Error(`${this.name}: ${why}`), true); // not connected any more: its close is not a loss
    this.onDidLoseEmitter.fire({ daemonGone: false, expected: false });
    this.clientStore.clear();
    this.retrying.value = timeout(HOST_RETRY_MS, () => void this.open(true));
  }

  private failed(err: Error, retrying: boolean): void {
    const error = new Error(printable(oneLine(err.message)), { cause: err }); // the cause: what an offer acts on
    this.log(`host ${this.name}: ${error.message}${retrying ? '; trying again' : ''}`);
    this.setState({ kind: 'failed', error });
  }

  private setState(state: DaemonState): void {
    this.current = state;
    this.onDidChangeStateEmitter.fire(state);
  }

  /** Closes the connection and its ssh; the host's sessions keep running. */
  dispose(): void {
    this.store.dispose();
  }
}
