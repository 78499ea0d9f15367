// One connection to the daemon per window: adopt the running daemon, or start one on demand from
// the versioned copy; notice when it goes away and reconnect if it is still there.
// Pure Node (no vscode import): the extension wires its events to the UI.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import { HoldfastClient, NoDaemonError, openSocket } from '../client/client';
import { DisposableStore, Emitter, type IDisposable, MutableDisposable, timeout } from '../base/disposable';
import { connectOrStart } from '../client/launch';
import { VERSION } from '../protocol/version';

/** How long a handoff waits for this connection to reach the new daemon. */
const HANDOFF_RECONNECT_MS = 20_000;

export type DaemonState =
  | { kind: 'connecting' }
  | { kind: 'connected'; client: HoldfastClient }
  | { kind: 'stopped' } // no daemon listens (none started yet, or it exited)
  | { kind: 'failed'; error: Error }; // starting or connecting failed: shown to the user

/** What the session list, cards and previews follow: this machine's connection or a host's (hostConnection.ts). */
export interface ConnectionEvents {
  readonly state: DaemonState;
  readonly client: HoldfastClient | undefined;
  readonly onDidChangeState: (listener: (state: DaemonState) => void) => IDisposable;
  readonly onDidConnect: (listener: (client: HoldfastClient) => void) => IDisposable;
  readonly onDidLose: (listener: (lost: { daemonGone: boolean; expected: boolean }) => void) => IDisposable;
}

export interface DaemonConnectionOptions {
  socket: string;
  /** Resolves the daemon script to start (installs the versioned copy when needed). */
  daemonScript(): string;
  execPath: string;
  env: NodeJS.ProcessEnv;
  /** A command prefix for starting the daemon (systemd-run --user --scope), or none. */
  wrapper(): Promise<string[] | undefined>;
  /** Extra daemon arguments (e.g. --scrollback N). */
  args?(): string[];
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Retry delays after the connection drops: a daemon that is still there answers at once. */
const RECONNECT_DELAYS_MS = [100, 300, 1000, 2000];

export class DaemonConnection implements ConnectionEvents, IDisposable {
  private readonly store = new DisposableStore();
  /** Owns the current client and its listeners; replaced with each new client. */
  private readonly clientStore = this.store.add(new MutableDisposable<DisposableStore>());
  /** The next reconnect attempt's timer: one at a time, replaced by the next attempt. */
  private readonly reconnecting = this.store.add(new MutableDisposable());
  private disposed = false;
  private current: DaemonState = { kind: 'connecting' };
  private pending: Promise<HoldfastClient> | undefined;
  private expectingStop = false;

  private readonly onDidChangeStateEmitter = this.store.add(new Emitter<DaemonState>());
  /** Fires on every state change. */
  readonly onDidChangeState = this.onDidChangeStateEmitter.event;
  private readonly onDidConnectEmitter = this.store.add(new Emitter<HoldfastClient>());
  /** A new client is ready (first connection, reconnection or a new daemon). */
  readonly onDidConnect = this.onDidConnectEmitter.event;
  private readonly onDidLoseEmitter = this.store.add(new Emitter<{ daemonGone: boolean; expected: boolean }>());
  /** The connection dropped; daemonGone once reconnecting proved no daemon listens. */
  readonly onDidLose = this.onDidLoseEmitter.event;

  constructor(private readonly options: DaemonConnectionOptions) {}

  get state(): DaemonState {
    return this.current;
  }

  get client(): HoldfastClient | undefined {
    return this.current.kind === 'connected' ? this.current.client : undefined;
  }

  get socket(): string {
    return this.options.socket;
  }

  /** The connected client; starts a daemon when none listens. Errors are the user's to see. */
  get(): Promise<HoldfastClient> {
    const client = this.client;
    if (client && !client.isClosed) return Promise.resolve(client);
    this.pending ??= this.open(true).finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** Connects only if a daemon already listens; never starts one. */
  async adopt(): Promise<HoldfastClient | undefined> {
    const client = this.client;
    if (client && !client.isClosed) return client;
    if (this.pending) return this.pending;
    try {
      return await this.open(false);
    } catch (err) {
      if (err instanceof NoDaemonError) return undefined;
      throw err;
    }
  }

  /**
   * A new daemon (this extension's script: an update brings its version) takes over every session;
   * resolves with it once this connection has reconnected to it (tabs reattach as after any drop).
   */
  async handOffDaemon(): Promise<{ client: HoldfastClient; sessions: number }> {
    const client = this.client;
    if (!client) throw new Error('not connected to the daemon');
    const reconnected = new Promise<HoldfastClient>((resolve, reject) => {
      const timer = setTimeout(() => {
        listener.dispose();
        reject(new Error(`the new daemon did not answer within ${HANDOFF_RECONNECT_MS} ms`));
      }, HANDOFF_RECONNECT_MS);
      const listener = this.onDidConnect((next) => {
        if (next.hello.pid !== successor) return;
        clearTimeout(timer);
        listener.dispose();
        resolve(next);
      });
    });
    let successor = 0;
    const answer = await client.request('handoff', { script: this.options.daemonScript() });
    successor = answer.pid;
    if (this.client?.hello.pid === successor) return { client: this.client, sessions: answer.sessions };
    return { client: await reconnected, sessions: answer.sessions };
  }

  /** Stops the daemon (every session dies). Resolves once its connection closed. */
  async stopDaemon(): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.expectingStop = true;
    const closed = new Promise<void>((resolve) => {
      if (client.isClosed) resolve();
      else client.onClose(() => resolve());
    });
    // The daemon may close the connection before it answers: the close awaited next is what counts.
    // An answer is a refusal (`busy`: a handoff that did not end within the client's bound): nothing stopped.
    await client.request('stop', {}).catch((err: Error) => {
      if (client.isClosed) return;
      this.expectingStop = false;
      throw err;
    });
    await Promise.race([closed, delay(5000)]);
    client.close();
    // The daemon closes its connections before it has let go of the socket: wait until the
    // socket refuses, so the next start does not meet a daemon that is still stopping.
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await delay(100)) {
      try {
        (await openSocket(this.options.socket, 1000)).destroy();
      } catch (err) {
        if (err instanceof NoDaemonError) return;
        // Anything else (a timeout, a socket still closing): it is still stopping; ask again.
      }
    }
  }

  private async open(start: boolean): Promise<HoldfastClient> {
    this.setState({ kind: 'connecting' });
    const connect = { socket: this.options.socket, client: 'extension', version: VERSION };
    try {
      const client = start
        ? await connectOrStart(connect, {
            daemonScript: this.options.daemonScript(),
            execPath: this.options.execPath,
            env: this.options.env,
            wrapper: await this.options.wrapper(),
            args: this.options.args?.(),
          })
        : await HoldfastClient.connect(connect);
      this.adoptClient(client);
      return client;
    } catch (err) {
      if (err instanceof NoDaemonError) this.setState({ kind: 'stopped' });
      else this.setState({ kind: 'failed', error: err as Error });
      throw err;
    }
  }

  private adoptClient(client: HoldfastClient): void {
    const owned = new DisposableStore();
    this.clientStore.value = owned;
    this.reconnecting.clear();
    this.expectingStop = false;
    owned.add(client);
    owned.add(client.onClose(() => this.onClientClosed(client)));
    this.setState({ kind: 'connected', client });
    this.onDidConnectEmitter.fire(client);
  }

  private onClientClosed(client: HoldfastClient): void {
    if (this.client !== client || this.disposed) return;
    const expected = this.expectingStop;
    this.setState({ kind: 'stopped' });
    this.onDidLoseEmitter.fire({ daemonGone: false, expected });
    if (expected) {
      this.onDidLoseEmitter.fire({ daemonGone: true, expected });
      return;
    }
    this.retry(0);
  }

  private retry(attempt: number): void {
    this.reconnecting.value = timeout(RECONNECT_DELAYS_MS[attempt], () => {
      if (this.client || this.pending) return;
      const next = () => {
        if (attempt + 1 < RECONNECT_DELAYS_MS.length) this.retry(attempt + 1);
        else this.onDidLoseEmitter.fire({ daemonGone: true, expected: false });
      };
      // A failure other than "no daemon" is already shown: open() set the 'failed' state with it.
      this.adopt().then((client) => {
        if (!client) next();
      }, next);
    });
  }

  private setState(state: DaemonState): void {
    this.current = state;
    this.onDidChangeStateEmitter.fire(state);
  }

  /** Closes the connection (the daemon detaches our channels); never stops the daemon. */
  dispose(): void {
    this.disposed = true;
    this.store.dispose();
  }
}
