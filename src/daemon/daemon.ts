// The daemon process: endpoint, connections, sessions, lifetime and stop; requests are dispatched
// to the method table (daemonMethods.ts, recovery.ts).
import type * as net from 'node:net';
import { DisposableStore, disposeErrorText, toDisposable } from '../base/disposable';
import {
  ALL_CAPABILITIES,
  type DaemonEvent,
  type DaemonStatus,
  ErrorCode,
  type Method,
  PROTOCOL_VERSION,
  type StartMode,
} from '../protocol/messages';
import { defaultLogPath } from '../host/paths';
import type { DaemonHello } from '../protocol/hello';
import { VERSION } from '../protocol/version';
import { ClientConnection, type RequestHandler } from './clients/connection';
import { checkRequest, type ConnectionRights, Credentials } from './clients/connectionRights';
import { coreMethods, type MethodHost, type MethodTable } from './daemonMethods';
import { Endpoint } from './clients/endpoint';
import {
  crashIfTestAsks,
  duringHandoff,
  handoffUnderWay,
  handOffSessions,
  successorScript,
  type OwnState,
  predecessorState,
  resumeSessions,
} from './succession/daemonSuccession';
import type { Received } from './succession/handoffReceive';
import { Log } from './log';
import { Recovery } from './sessions/recovery';
import { TextWorkers } from './textWorkers';
import { AttentionExplainer } from './sessions/attentionExplainer';
import { DaemonError } from './daemonError';
import { isMethod, parseParams } from './clients/requestSchemas';
import type { Session } from './sessions/session';
import { DEFAULT_LIMITS, limitsFromEnv, type RegistryLimits, SessionRegistry } from './sessions/sessionRegistry';

export enum DaemonTiming {
  /** How long stop waits after SIGHUP before SIGKILL. */
  StopGraceMs = 2000,
  /** An on-demand daemon that never got a session exits after this long without clients. */
  UnusedExitMs = 30_000,
  /** How long a successor keeps its predecessor's credentials for clients that reconnect with one. */
  CredentialGraceMs = 60_000,
  /** How long a daemon that handed over waits for its successor to take the socket before letting clients go. */
  SocketTakenMs = 10_000,
}

export interface DaemonOptions {
  socket: string;
  startMode: StartMode;
  logFile?: string;
  /** Also write log lines here (the foreground `serve`). */
  logEcho?: (line: string) => void;
  limits?: Partial<RegistryLimits>;
  /** What a previous daemon handed over (this one is its successor). */
  succession?: Received;
}
export type DaemonStart = { kind: 'serving'; daemon: Daemon } | { kind: 'taken' };

/** Methods that change nothing: still answered while the daemon stops. */
const READ_ONLY_METHODS = new Set<Method>(['list', 'show', 'read', 'status', 'detach', 'search']);

export class Daemon implements RequestHandler, MethodHost {
  readonly startedAt = Date.now();
  private readonly disposables = new DisposableStore();
  private readonly connections = new Set<ClientConnection>();
  readonly registry: SessionRegistry;
  readonly textWorkers: TextWorkers;
  readonly credentials = new Credentials();
  private readonly recovery: Recovery;
  private readonly methods: MethodTable;
  private endpoint!: Endpoint;
  private nextConnectionId = 1;
  private stopping: Promise<void> | undefined;
  private unusedTimer: NodeJS.Timeout | undefined;
  private readonly stoppedCallbacks: (() => void)[] = [];
  /** A handoff under way: settles once it is done (taken: this daemon is retiring; else it serves on). */
  private handoff: Promise<void> | undefined;
  private readonly predecessor: OwnState | undefined;

  private constructor(
    readonly options: DaemonOptions,
    readonly log: Log,
  ) {
    const own = (this.predecessor = options.succession && predecessorState(options.succession));
    this.registry = this.disposables.add(
      new SessionRegistry(
        options.socket,
        { ...DEFAULT_LIMITS, ...limitsFromEnv(process.env), ...options.limits },
        (line) => log.write(line),
        own && Buffer.from(own.notifySecret, 'hex'),
        own?.shellScripts,
      ),
    );
    if (options.succession) this.resume(options.succession, own!);
    this.disposables.add(this.registry.onEvent((event) => this.route(event)));
    this.textWorkers = this.disposables.add(
      new TextWorkers(
        () => this.recovery.config.config.search.budgetMs,
        (line) => this.log.write(line),
      ),
    );
    this.recovery = this.disposables.add(
      new Recovery(
        this.registry,
        options.socket,
        this.startedAt,
        (line) => log.write(line),
        (event) => this.route(event),
        this.textWorkers,
      ),
    );
    this.disposables.add(
      new AttentionExplainer(
        (listener) => this.registry.onEvent(listener),
        (id) => this.registry.list().find((s) => s.id === id),
        this.textWorkers,
        (line) => log.write(line),
      ),
    );
    this.methods = { ...coreMethods(this), ...this.recovery.methods };
    // The predecessor removes its checkpoint: recorded here at once, the sessions still archive after a SIGKILL.
    for (const session of options.succession ? this.registry.list() : [])
      this.recovery.noteEvent({ type: 'session', session: session.info() });
    if (options.startMode === 'on-demand') {
      // After the current turn, so the request that removed the last session is answered first.
      this.disposables.add(
        this.registry.onEmpty(() => setImmediate(() => void this.stop('the last session was removed'))),
      );
    }
  }

  /** Claims the endpoint and serves, or reports that a live daemon already holds it. */
  static async start(options: DaemonOptions): Promise<DaemonStart> {
    const log = new Log(options.logFile ?? defaultLogPath(), undefined, options.logEcho);
    const daemon = new Daemon(options, log);
    const claim = await Endpoint.claim(
      options.socket,
      (socket) => daemon.accept(socket),
      (line) => log.write(line),
      daemon.predecessor?.predecessor,
    );
    if (claim.kind === 'taken') {
      daemon.disposeOwned();
      return { kind: 'taken' };
    }
    daemon.endpoint = daemon.disposables.add(claim.endpoint);
    daemon.disposables.add(
      claim.endpoint.onLost((why) => log.write(`lost the endpoint: ${why}; existing clients are still served`)),
    );
    log.write(`daemon ${VERSION} started (${options.startMode}, pid ${process.pid}, node ${process.version})`);
    if (daemon.predecessor)
      log.write(`took over ${daemon.registry.size} sessions from daemon ${daemon.predecessor.predecessor}`);
    daemon.armUnusedTimer();
    return { kind: 'serving', daemon };
  }

  /** Disposes what it owns; a failing disposer is logged and the stop carries on (its callbacks still run). */
  private disposeOwned(): void {
    try {
      this.disposables.dispose();
    } catch (err) {
      this.log.write(`disposing the daemon's resources failed: ${disposeErrorText(err)}`);
    }
  }

  /** The sessions a previous daemon handed over, in this turn; its credentials held a while for its clients. */
  private resume(succession: Received, own: OwnState): void {
    const host = { registry: this.registry, credentials: this.credentials, logFile: this.log.file };
    resumeSessions(succession, own, { ...host, log: (line) => this.log.write(line) }, this);
    const grace = setTimeout(() => this.credentials.release(this), DaemonTiming.CredentialGraceMs);
    this.disposables.add(toDisposable(() => clearTimeout(grace)));
  }

  /** Hands every session to a successor, then retires; refused (the sessions carry on here) if it failed. */
  async handOff(script: string | undefined, reason: string): Promise<{ pid: number; sessions: number }> {
    if (this.stopping) throw new DaemonError(ErrorCode.Stopping, 'the daemon is stopping');
    if (this.handoff) throw handoffUnderWay('another handoff');
    if (script !== undefined) script = successorScript(script);
    let done!: () => void;
    this.handoff = new Promise<void>((resolve) => (done = resolve));
    this.log.write(`handing off every session to a successor (${reason})`);
    const host = { registry: this.registry, credentials: this.credentials, logFile: this.log.file };
    try {
      await this.log.flush(); // the successor writes to the same file: this daemon's lines come first
      const result = await handOffSessions({ ...host, log: (line) => this.log.write(line) }, script);
      const pid = result.successor.pid!;
      this.log.write(`handed ${result.sessions} sessions to daemon ${pid}`);
      // Retiring from now on (a stop waiting for the handoff gets this); after this turn, which answers.
      this.stopping = new Promise((resolve) => setImmediate(() => resolve(this.retire(pid))));
      return { pid, sessions: result.sessions };
    } catch (err) {
      const why = (err as Error).message;
      this.log.write(`handoff failed, the sessions carry on here: ${(err as Error).stack ?? why}`);
      throw new DaemonError(ErrorCode.Internal, `the handoff failed (${why}); the sessions carry on in this daemon`);
    } finally {
      this.handoff = undefined;
      done();
    }
  }

  /** After a handoff: lets go of clients, sessions (their programs untouched) and the socket, and stops. */
  private async retire(successor: number): Promise<void> {
    clearTimeout(this.unusedTimer);
    await this.recovery.checkpoints.handedOver();
    // Clients reconnect as soon as they are let go: by then the socket must lead to the successor.
    for (const deadline = Date.now() + DaemonTiming.SocketTakenMs; this.endpoint.ownsPath && Date.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await Promise.all([...this.connections].map((connection) => connection.close()));
    this.disposeOwned();
    this.log.write(`retired: daemon ${successor} serves the sessions now`);
    for (const callback of this.stoppedCallbacks) callback();
  }

  onStopped(callback: () => void): void {
    this.stoppedCallbacks.push(callback);
  }

  hello(): DaemonHello {
    return {
      protocol: PROTOCOL_VERSION,
      version: VERSION,
      pid: process.pid,
      startedAt: this.startedAt,
      startMode: this.options.startMode,
      capabilities: ALL_CAPABILITIES,
    };
  }

  private accept(socket: net.Socket): void {
    if (this.stopping) return void socket.destroy();
    const connection: ClientConnection = new ClientConnection(
      this.nextConnectionId++,
      socket,
      (token) => this.credentials.authenticate(this.endpoint.token, token, connection),
      () => this.hello(),
      this,
      (c) => this.onConnectionClosed(c),
      (line) => this.log.write(line),
    );
    this.connections.add(connection);
    clearTimeout(this.unusedTimer);
  }

  private onConnectionClosed(connection: ClientConnection): void {
    this.connections.delete(connection);
    this.credentials.release(connection);
    this.armUnusedTimer();
  }

  /** An on-demand daemon nobody uses (no session, no client) goes away instead of lingering. */
  private armUnusedTimer(): void {
    if (this.options.startMode !== 'on-demand' || this.registry.size > 0 || this.connections.size > 0 || this.stopping)
      return;
    clearTimeout(this.unusedTimer);
    this.unusedTimer = setTimeout(() => void this.stop('unused'), DaemonTiming.UnusedExitMs);
  }

  private route(event: DaemonEvent): void {
    this.recovery.noteEvent(event);
    const sessionId = event.type === 'session' ? event.session.id : 'id' in event ? event.id : undefined;
    for (const connection of this.connections) {
      if (connection.subscribedToAll) {
        if (!sessionId || connection.rights.mayRead(sessionId)) connection.sendEvent(event);
      } else if (sessionId && connection.watches(sessionId)) connection.sendEvent(event);
    }
    this.credentials.noteEvent(event); // after: a scoped subscriber hears of the removal of its own session
  }

  async handle(connection: ClientConnection, method: string, rawParams: unknown): Promise<unknown> {
    if (!isMethod(method)) throw new DaemonError(ErrorCode.Unsupported, `unsupported method "${method}"`);
    let params = checkRequest(connection.rights, method, parseParams(method, rawParams), this.registry);
    if (this.stopping && !READ_ONLY_METHODS.has(method))
      throw new DaemonError(ErrorCode.Stopping, 'the daemon is stopping');
    if (this.handoff)
      try {
        params = duringHandoff(method, params);
      } catch (err) {
        // Asked again once the handoff is done (busyRetry.ts): the log says who waited for it.
        this.log.write(`${connection.clientName}: ${(err as Error).message}`);
        throw err;
      }
    return (this.methods[method] as (params: unknown, connection: ClientConnection) => unknown)(params, connection);
  }

  created(session: Session, rights: ConnectionRights): void {
    clearTimeout(this.unusedTimer);
    this.credentials.started(rights, session.id);
    this.log.write(`session ${session.id} "${session.name}" started: pid ${session.pid}`);
    this.route({ type: 'session', session: session.info() });
    crashIfTestAsks(session.name);
    void session.hasExited.then(() =>
      this.log.write(`session ${session.id} ended: ${JSON.stringify(session.info().exit)}`),
    );
  }

  status(): DaemonStatus {
    return {
      pid: process.pid,
      version: VERSION,
      protocol: PROTOCOL_VERSION,
      startMode: this.options.startMode,
      startedAt: this.startedAt,
      socket: this.options.socket,
      logFile: this.log.file,
      sessions: this.registry.size,
      clients: this.connections.size,
      execPath: process.execPath,
      nodeVersion: process.version,
    };
  }

  /** Stops taking changes, SIGHUPs every session's group, SIGKILLs what is left after 2 s, reaps, closes. */
  stop(reason: string): Promise<void> {
    if (this.stopping) return this.stopping;
    if (this.handoff) {
      // Not in the middle of it: then this daemon retires (the programs live on) or, failed, stops.
      this.log.write(`${reason}: deferred until the handoff under way is done`);
      return this.handoff.then(() => this.stop(reason));
    }
    this.log.write(`stopping: ${reason}`);
    clearTimeout(this.unusedTimer);
    this.stopping = (async () => {
      for (const connection of this.connections) connection.sendEvent({ type: 'stopping' });
      await this.recovery.beforeStop();
      await Promise.all(
        this.registry
          .list()
          .map((s) =>
            s
              .kill('SIGHUP', DaemonTiming.StopGraceMs)
              .catch((err: Error) => this.log.write(`stop: session ${s.id} not killed: ${err.stack ?? err.message}`)),
          ),
      );
      await Promise.all([...this.connections].map((connection) => connection.close()));
      this.disposeOwned();
      this.log.write('stopped');
      for (const callback of this.stoppedCallbacks) callback();
    })();
    return this.stopping;
  }
}
