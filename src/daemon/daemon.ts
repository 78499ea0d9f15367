// The daemon process: endpoint, connections, sessions, the request table, lifetime and stop.
import * as fs from 'node:fs';
import type * as net from 'node:net';
import { DisposableStore, toDisposable } from '../protocol/disposable';
import {
  ALL_CAPABILITIES,
  AttachParams,
  DaemonEvent,
  DaemonHello,
  DaemonStatus,
  ErrorCode,
  Method,
  Params,
  PROTOCOL_VERSION,
  StartMode,
} from '../protocol/messages';
import { conversationIdProblem } from '../protocol/agents';
import type { RecoveryMethods } from '../protocol/recovery';
import { defaultLogPath } from '../protocol/paths';
import { compilePattern } from '../protocol/textPattern';
import { VERSION } from '../protocol/version';
import { ClientConnection, RequestHandler } from './connection';
import { Endpoint } from './endpoint';
import { Log } from './log';
import { isSignalName } from './ptyProcess';
import { searchSessions } from './sessionSearch';
import { Recovery } from './recovery';
import { DaemonError } from './daemonError';
import { isMethod, parseParams } from './requestSchemas';
import { checkedSize, DEFAULT_LIMITS, limitsFromEnv, RegistryLimits, SessionRegistry } from './sessionRegistry';

export enum DaemonTiming {
  /** How long stop waits after SIGHUP before SIGKILL. */
  StopGraceMs = 2000,
  /** An on-demand daemon that never got a session exits after this long without clients. */
  UnusedExitMs = 30_000,
  MaxWaitMs = 24 * 60 * 60 * 1000,
}

export interface DaemonOptions {
  socket: string;
  startMode: StartMode;
  logFile?: string;
  /** Also write log lines here (the foreground `serve`). */
  logEcho?: (line: string) => void;
  limits?: Partial<RegistryLimits>;
}

export type DaemonStart = { kind: 'serving'; daemon: Daemon } | { kind: 'taken' };

/** Methods that change nothing: still answered while the daemon stops. */
const READ_ONLY_METHODS = new Set<Method>(['list', 'show', 'read', 'status', 'detach', 'search']);

type MethodTable = { [M in Method]: (params: Params<M>, connection: ClientConnection) => unknown };
type RecoveryMethod = keyof RecoveryMethods;

/** A size a client asked for: both or neither; within the bounds of limits.ts. */
function optionalSize(cols: number | undefined, rows: number | undefined): { cols: number; rows: number } | undefined {
  if (cols === undefined && rows === undefined) return undefined;
  if (cols === undefined || rows === undefined)
    throw new DaemonError(ErrorCode.BadRequest, 'cols and rows go together');
  return checkedSize(cols, rows);
}

export class Daemon implements RequestHandler {
  readonly startedAt = Date.now();
  private readonly disposables = new DisposableStore();
  private readonly connections = new Set<ClientConnection>();
  private readonly registry: SessionRegistry;
  private readonly recovery: Recovery;
  private readonly methods: MethodTable;
  private endpoint!: Endpoint;
  private nextConnectionId = 1;
  private stopping: Promise<void> | undefined;
  private unusedTimer: NodeJS.Timeout | undefined;
  private readonly stoppedCallbacks: (() => void)[] = [];

  private constructor(
    readonly options: DaemonOptions,
    readonly log: Log,
  ) {
    this.registry = this.disposables.add(
      new SessionRegistry(
        options.socket,
        { ...DEFAULT_LIMITS, ...limitsFromEnv(process.env), ...options.limits },
        (line) => log.write(line),
      ),
    );
    this.disposables.add(this.registry.onEvent((event) => this.route(event)));
    this.recovery = this.disposables.add(
      new Recovery(
        this.registry,
        options.socket,
        this.startedAt,
        (line) => log.write(line),
        (event) => this.route(event),
      ),
    );
    this.methods = { ...this.coreMethods(), ...this.recovery.methods };
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
    );
    if (claim.kind === 'taken') {
      daemon.disposables.dispose();
      return { kind: 'taken' };
    }
    daemon.endpoint = daemon.disposables.add(claim.endpoint);
    daemon.disposables.add(
      claim.endpoint.onLost((why) => log.write(`lost the endpoint: ${why}; existing clients are still served`)),
    );
    log.write(`daemon ${VERSION} started (${options.startMode}, pid ${process.pid}, node ${process.version})`);
    daemon.armUnusedTimer();
    return { kind: 'serving', daemon };
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
    const connection = new ClientConnection(
      this.nextConnectionId++,
      socket,
      this.endpoint.token,
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
      if (connection.subscribedToAll) connection.sendEvent(event);
      else if (sessionId && [...connection.channels.values()].some((c) => c.session.id === sessionId))
        connection.sendEvent(event);
    }
  }

  async handle(connection: ClientConnection, method: string, rawParams: unknown): Promise<unknown> {
    if (!isMethod(method)) throw new DaemonError(ErrorCode.Unsupported, `unsupported method "${method}"`);
    const params = parseParams(method, rawParams);
    if (this.stopping && !READ_ONLY_METHODS.has(method))
      throw new DaemonError(ErrorCode.Stopping, 'the daemon is stopping');
    return (this.methods[method] as (params: unknown, connection: ClientConnection) => unknown)(params, connection);
  }

  /** One handler per method; params are already checked against their schema (requestSchemas.ts). */
  private coreMethods(): Omit<MethodTable, RecoveryMethod> {
    return {
      list: () => ({ sessions: this.registry.list().map((s) => s.info()) }),
      show: (p) => ({ session: this.registry.get(p.session).info() }),
      create: (p) => {
        const session = this.registry.create(p);
        clearTimeout(this.unusedTimer);
        this.log.write(`session ${session.id} "${session.name}" started: pid ${session.pid}`);
        this.route({ type: 'session', session: session.info() });
        void session.hasExited.then(() =>
          this.log.write(`session ${session.id} ended: ${JSON.stringify(session.info().exit)}`),
        );
        return { session: session.info() };
      },
      attach: (p, connection) => this.attach(connection, p),
      detach: (p, connection) => {
        connection.removeChannel(p.channel);
        return {};
      },
      history: (p, connection) => {
        const channel = connection.channels.get(p.channel);
        if (!channel) throw new DaemonError(ErrorCode.BadRequest, `channel ${p.channel} is not attached`);
        channel.session.requestSnapshot(channel, 'history');
        return {};
      },
      claim: (p, connection) => {
        const channel = connection.channels.get(p.channel);
        if (!channel) throw new DaemonError(ErrorCode.BadRequest, `channel ${p.channel} is not attached`);
        channel.session.claim(channel, optionalSize(p.cols, p.rows));
        return { session: channel.session.info() };
      },
      resize: (p) => {
        const session = this.registry.get(p.session);
        const size = checkedSize(p.cols, p.rows);
        session.resize(size.cols, size.rows);
        return { session: session.info() };
      },
      send: (p) => {
        const session = this.registry.get(p.session);
        if (!session.isRunning) throw new DaemonError(ErrorCode.Exited, `session ${session.id} has exited`);
        session.send(p.data);
        return {};
      },
      read: (p) => this.registry.get(p.session).screen(p.scrollback ?? 0),
      wait: (p) => this.wait(p),
      search: (p) => searchSessions(this.registry, p),
      kill: async (p) => {
        const session = this.registry.get(p.session);
        const signal = p.signal ?? 'SIGHUP';
        const normalized = signal.startsWith('SIG') ? signal : `SIG${signal}`;
        if (!isSignalName(normalized)) throw new DaemonError(ErrorCode.BadRequest, `unknown signal ${signal}`);
        await session.kill(normalized, p.graceMs ?? 2000);
        const info = session.info();
        if (p.remove) await this.registry.remove(session);
        return { session: info };
      },
      remove: async (p) => {
        await this.registry.remove(this.registry.get(p.session));
        return {};
      },
      update: (p) => {
        const session = this.registry.get(p.session);
        if (p.name !== undefined) session.rename(p.name.trim());
        if (p.metadata !== undefined) session.setMetadata(p.metadata);
        return { session: session.info() };
      },
      notify: (p) => {
        const session = this.registry.get(p.session);
        const problem = p.conversationId === undefined ? undefined : conversationIdProblem(p.conversationId);
        if (problem) throw new DaemonError(ErrorCode.BadRequest, `not recorded: ${problem}`);
        session.report(p.state, p.conversationId);
        return { session: session.info() };
      },
      subscribe: (_p, connection) => {
        connection.subscribedToAll = true;
        return { sessions: this.registry.list().map((s) => s.info()) };
      },
      status: () => this.status(),
      stop: (_p, connection) => {
        setImmediate(() => void this.stop(`asked by a client (${connection.clientName})`));
        return {};
      },
    };
  }

  private attach(connection: ClientConnection, params: AttachParams): unknown {
    const session = this.registry.get(params.session);
    const size = params.role === 'owner' ? optionalSize(params.cols, params.rows) : undefined;
    const channel = connection.addChannel(params.channel, session, params.role);
    // The answer goes out first; the snapshot (and then the stream) follows it.
    setImmediate(() => {
      if (connection.channels.get(params.channel) === channel)
        session.attach(
          channel,
          size,
          params.screenFirst ? (params.historyLater ? 'screen-only' : 'screen-first') : 'full',
        );
    });
    return { session: { ...session.info(), ...(size ?? {}) } };
  }

  private async wait(params: Params<'wait'>): Promise<unknown> {
    const session = this.registry.get(params.session);
    const { condition } = params;
    if (condition.kind === 'text') {
      try {
        compilePattern(condition.pattern, condition.flags ?? '');
      } catch (err) {
        throw new DaemonError(ErrorCode.BadRequest, (err as Error).message);
      }
    }
    const met = await session.wait(
      condition,
      Math.min(params.timeoutMs ?? DaemonTiming.MaxWaitMs, DaemonTiming.MaxWaitMs),
    );
    return { met, session: session.info() };
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
    this.log.write(`stopping: ${reason}`);
    clearTimeout(this.unusedTimer);
    this.stopping = (async () => {
      for (const connection of this.connections) connection.sendEvent({ type: 'stopping' });
      await this.recovery.beforeStop();
      await Promise.all(
        this.registry.list().map((s) => s.kill('SIGHUP', DaemonTiming.StopGraceMs).catch(() => undefined)),
      );
      await Promise.all([...this.connections].map((connection) => connection.close()));
      this.disposables.dispose();
      this.log.write('stopped');
      for (const callback of this.stoppedCallbacks) callback();
    })();
    return this.stopping;
  }
}

/** Runs a daemon in this process until it stops; resolves 'taken' if another daemon serves the socket. */
export async function runDaemon(
  options: DaemonOptions & { onReady?: (daemon: Daemon) => void },
): Promise<'stopped' | 'taken'> {
  const started = await Daemon.start(options);
  if (started.kind === 'taken') return 'taken';
  const { daemon } = started;
  const disposables = new DisposableStore();
  const onSignal = (signal: string) => void daemon.stop(`received ${signal}`);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, onSignal);
    disposables.add(toDisposable(() => process.off(signal, onSignal)));
  }
  const ignoreHup = () => daemon.log.write('ignored SIGHUP');
  process.on('SIGHUP', ignoreHup);
  disposables.add(toDisposable(() => process.off('SIGHUP', ignoreHup)));
  const onCrash = (err: unknown) => daemon.log.write(`uncaught: ${(err as Error)?.stack ?? String(err)}`);
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  disposables.add(
    toDisposable(() => {
      process.off('uncaughtException', onCrash);
      process.off('unhandledRejection', onCrash);
    }),
  );
  options.onReady?.(daemon);
  await new Promise<void>((resolve) => daemon.onStopped(resolve));
  disposables.dispose();
  return 'stopped';
}

export function writeReadiness(fd: number | undefined, message: object): void {
  if (fd === undefined) return;
  try {
    fs.writeSync(fd, JSON.stringify(message) + '\n');
    fs.closeSync(fd);
  } catch {
    // the spawner went away; nothing to tell
  }
}
