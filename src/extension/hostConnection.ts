// One connection per window to an SSH host's daemon (holdfast.hosts), over its link (src/link/daemonLink.ts): kept
// open, and opened again after a drop (reconnect.ts's policy). A failure is the host's one line (sshFailure.ts) in
// its state, never a prompt; a host that refuses for good is tried again after a pause, never in a tight loop.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import type { HoldfastClient } from '../client/client';
import { DisposableStore, Emitter, type IDisposable, MutableDisposable, timeout } from '../base/disposable';
import type { DaemonLink } from '../link/daemonLink';
import { lossReason, mayPass, reconnect } from '../link/reconnect';
import { oneLine, printable } from '../text/printable';
import type { ConnectionEvents, DaemonState } from './daemonConnection';

/** After a failure that does not pass by itself (a host key, a login, no daemon there): the next try. */
export const HOST_RETRY_MS = 30_000;

export class HostConnection implements ConnectionEvents, IDisposable {
  private readonly store = new DisposableStore();
  private readonly clientStore = this.store.add(new MutableDisposable<DisposableStore>());
  private readonly retrying = this.store.add(new MutableDisposable());
  private readonly abort = new AbortController();
  private current: DaemonState = { kind: 'connecting' };

  private readonly onDidChangeStateEmitter = this.store.add(new Emitter<DaemonState>());
  readonly onDidChangeState = this.onDidChangeStateEmitter.event;
  private readonly onDidConnectEmitter = this.store.add(new Emitter<HoldfastClient>());
  readonly onDidConnect = this.onDidConnectEmitter.event;
  private readonly onDidLoseEmitter = this.store.add(new Emitter<{ daemonGone: boolean; expected: boolean }>());
  readonly onDidLose = this.onDidLoseEmitter.event;

  constructor(
    readonly link: DaemonLink,
    private readonly log: (line: string) => void,
  ) {
    this.store.add({ dispose: () => this.abort.abort(new Error('closed')) });
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

  /** The connected client, or the host's one line of why there is none. */
  async get(): Promise<HoldfastClient> {
    const client = this.client;
    if (client && !client.isClosed) return client;
    if (this.current.kind === 'failed') throw this.current.error;
    throw new Error(`${this.name} is not connected yet`);
  }

  /** Connects (the first time, or again after a drop); each failure that may pass is shown and tried again. */
  /** After the host was fixed (Holdfast installed there): try now rather than at the next pause. */
  retryNow(): void {
    if (this.current.kind !== 'failed' || this.abort.signal.aborted) return;
    this.retrying.clear();
    void this.open(true);
  }

  private async open(again: boolean): Promise<void> {
    this.setState({ kind: 'connecting' });
    const signal = this.abort.signal;
    try {
      const client = again
        ? await reconnect(this.link, { signal, onRetry: (_, err) => this.failed(err, true) })
        : await this.link.connect();
      if (signal.aborted) return client.close();
      this.adopt(client);
    } catch (err) {
      if (signal.aborted) return;
      const passes = !again && mayPass(err);
      this.failed(err as Error, passes);
      if (passes) return void this.open(true); // the first failure: the policy's pauses from here
      this.retrying.value = timeout(HOST_RETRY_MS, () => void this.open(true));
    }
  }

  private adopt(client: HoldfastClient): void {
    const owned = new DisposableStore();
    this.clientStore.value = owned;
    owned.add(client);
    owned.add(
      client.onClose((error) => {
        if (this.client !== client || this.abort.signal.aborted) return;
        const why = lossReason(this.link, client, error);
        this.log(`host ${this.name}: the connection was lost (${oneLine(why.message)}); reconnecting`);
        this.setState({ kind: 'stopped' });
        this.onDidLoseEmitter.fire({ daemonGone: false, expected: false });
        void this.open(true);
      }),
    );
    this.log(`host ${this.name}: connected (pid ${client.hello.pid}, ${printable(client.hello.version)})`);
    this.setState({ kind: 'connected', client });
    this.onDidConnectEmitter.fire(client);
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
