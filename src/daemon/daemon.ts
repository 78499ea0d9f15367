// The daemon process: endpoint, connections, sessions, the request table, lifetime and stop.
import * as fs from 'node:fs';
import type * as net from 'node:net';
import { DisposableStore, toDisposable } from '../protocol/disposable';
import {
  ALL_CAPABILITIES,
  AttachParams,
  CreateParams,
  DaemonEvent,
  DaemonHello,
  DaemonStatus,
  ErrorCode,
  PROTOCOL_VERSION,
  StartMode,
  WaitCondition,
} from '../protocol/messages';
import { defaultLogPath } from '../protocol/paths';
import { compilePattern } from '../protocol/textPattern';
import { VERSION } from '../protocol/version';
import { ClientConnection, RequestHandler } from './connection';
import { Endpoint } from './endpoint';
import { Log } from './log';
import { isSignalName } from './ptyProcess';
import { Recovery } from './recovery';
import { DaemonError, DEFAULT_LIMITS, limitsFromEnv, RegistryLimits, SessionRegistry, terminalSize } from './sessionRegistry';

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

function object(params: unknown): Record<string, unknown> {
  if (!params || typeof params !== 'object' || Array.isArray(params)) throw new DaemonError(ErrorCode.BadRequest, 'params must be an object');
  return params as Record<string, unknown>;
}

export class Daemon implements RequestHandler {
  readonly startedAt = Date.now();
  private readonly disposables = new DisposableStore();
  private readonly connections = new Set<ClientConnection>();
  private readonly registry: SessionRegistry;
  private readonly recovery: Recovery;
  private endpoint!: Endpoint;
  private nextConnectionId = 1;
  private stopping: Promise<void> | undefined;
  private unusedTimer: NodeJS.Timeout | undefined;
  private readonly stoppedCallbacks: (() => void)[] = [];

  private constructor(
    readonly options: DaemonOptions,
    readonly log: Log,
  ) {
    this.registry = this.disposables.add(new SessionRegistry(options.socket, { ...DEFAULT_LIMITS, ...limitsFromEnv(process.env), ...options.limits }, (line) => log.write(line)));
    this.disposables.add(this.registry.onEvent((event) => this.route(event)));
    this.recovery = this.disposables.add(new Recovery(this.registry, options.socket, this.startedAt, (line) => log.write(line), (event) => this.route(event)));
    if (options.startMode === 'on-demand') {
      // After the current turn, so the request that removed the last session is answered first.
      this.disposables.add(this.registry.onEmpty(() => setImmediate(() => void this.stop('the last session was removed'))));
    }
  }

  /** Claims the endpoint and serves, or reports that a live daemon already holds it. */
  static async start(options: DaemonOptions): Promise<DaemonStart> {
    const log = new Log(options.logFile ?? defaultLogPath(), undefined, options.logEcho);
    const daemon = new Daemon(options, log);
    const claim = await Endpoint.claim(options.socket, (socket) => daemon.accept(socket), (line) => log.write(line));
    if (claim.kind === 'taken') {
      daemon.disposables.dispose();
      return { kind: 'taken' };
    }
    daemon.endpoint = daemon.disposables.add(claim.endpoint);
    daemon.disposables.add(claim.endpoint.onLost((why) => log.write(`lost the endpoint: ${why}; existing clients are still served`)));
    log.write(`daemon ${VERSION} started (${options.startMode}, pid ${process.pid}, node ${process.version})`);
    daemon.armUnusedTimer();
    return { kind: 'serving', daemon };
  }

  onStopped(callback: () => void): void {
    this.stoppedCallbacks.push(callback);
  }

  hello(): DaemonHello {
    return { protocol: PROTOCOL_VERSION, version: VERSION, pid: process.pid, startedAt: this.startedAt, startMode: this.options.startMode, capabilities: ALL_CAPABILITIES };
  }

  private accept(socket: net.Socket): void {
    if (this.stopping) return void socket.destroy();
    const connection = new ClientConnection(this.nextConnectionId++, socket, this.endpoint.token, () => this.hello(), this, (c) => this.onConnectionClosed(c), (line) => this.log.write(line));
    this.connections.add(connection);
    clearTimeout(this.unusedTimer);
  }

  private onConnectionClosed(connection: ClientConnection): void {
    this.connections.delete(connection);
    this.armUnusedTimer();
  }

  /** An on-demand daemon nobody uses (no session, no client) goes away instead of lingering. */
  private armUnusedTimer(): void {
    if (this.options.startMode !== 'on-demand' || this.registry.size > 0 || this.connections.size > 0 || this.stopping) return;
    clearTimeout(this.unusedTimer);
    this.unusedTimer = setTimeout(() => void this.stop('unused'), DaemonTiming.UnusedExitMs);
  }

  private route(event: DaemonEvent): void {
    this.recovery.noteEvent(event);
    const sessionId = event.type === 'session' ? event.session.id : 'id' in event ? event.id : undefined;
    for (const connection of this.connections) {
      if (connection.subscribedToAll) connection.sendEvent(event);
      else if (sessionId && [...connection.channels.values()].some((c) => c.session.id === sessionId)) connection.sendEvent(event);
    }
  }

  async handle(connection: ClientConnection, method: string, rawParams: unknown): Promise<unknown> {
    const params = object(rawParams);
    const mutating = method !== 'list' && method !== 'show' && method !== 'read' && method !== 'status' && method !== 'detach';
    if (this.stopping && mutating) throw new DaemonError(ErrorCode.Stopping, 'the daemon is stopping');
    switch (method) {
      case 'list':
        return { sessions: this.registry.list().map((s) => s.info()) };
      case 'show':
        return { session: this.registry.get(params.session as string).info() };
      case 'create': {
        const session = this.registry.create(params as CreateParams);
        clearTimeout(this.unusedTimer);
        this.log.write(`session ${session.id} "${session.name}" started: pid ${session.pid}`);
        this.route({ type: 'session', session: session.info() });
        session.hasExited.then(() => this.log.write(`session ${session.id} ended: ${JSON.stringify(session.info().exit)}`));
        return { session: session.info() };
      }
      case 'attach':
        return this.attach(connection, params as unknown as AttachParams);
      case 'detach':
        connection.removeChannel(params.channel as number);
        return {};
      case 'claim': {
        const channel = connection.channels.get(params.channel as number);
        if (!channel) throw new DaemonError(ErrorCode.BadRequest, `channel ${String(params.channel)} is not attached`);
        const size = params.cols === undefined ? undefined : { cols: terminalSize(params.cols, 'cols'), rows: terminalSize(params.rows, 'rows') };
        channel.session.claim(channel, size);
        return { session: channel.session.info() };
      }
      case 'resize': {
        const session = this.registry.get(params.session as string);
        session.resize(terminalSize(params.cols, 'cols'), terminalSize(params.rows, 'rows'));
        return { session: session.info() };
      }
      case 'send': {
        const session = this.registry.get(params.session as string);
        if (typeof params.data !== 'string') throw new DaemonError(ErrorCode.BadRequest, 'data must be a string');
        if (!session.isRunning) throw new DaemonError(ErrorCode.Exited, `session ${session.id} has exited`);
        session.send(params.data);
        return {};
      }
      case 'read': {
        const scrollback = params.scrollback === undefined ? 0 : Number(params.scrollback);
        if (!Number.isInteger(scrollback) || scrollback < 0) throw new DaemonError(ErrorCode.BadRequest, 'scrollback must be a non-negative integer');
        return this.registry.get(params.session as string).screen(scrollback);
      }
      case 'wait':
        return this.wait(params);
      case 'kill': {
        const session = this.registry.get(params.session as string);
        const signal = (params.signal as string | undefined) ?? 'SIGHUP';
        const normalized = signal.startsWith('SIG') ? signal : `SIG${signal}`;
        if (!isSignalName(normalized)) throw new DaemonError(ErrorCode.BadRequest, `unknown signal ${signal}`);
        const grace = params.graceMs === undefined ? 2000 : Number(params.graceMs);
        if (!Number.isFinite(grace) || grace < 0) throw new DaemonError(ErrorCode.BadRequest, 'graceMs must be a non-negative number');
        await session.kill(normalized, grace);
        const info = session.info();
        if (params.remove) await this.registry.remove(session);
        return { session: info };
      }
      case 'remove':
        await this.registry.remove(this.registry.get(params.session as string));
        return {};
      case 'update': {
        const session = this.registry.get(params.session as string);
        if (params.name !== undefined) {
          if (typeof params.name !== 'string' || !params.name.trim()) throw new DaemonError(ErrorCode.BadRequest, 'name must be a non-empty string');
          session.rename(params.name.trim());
        }
        if (params.metadata !== undefined) {
          if (!params.metadata || typeof params.metadata !== 'object' || Array.isArray(params.metadata)) throw new DaemonError(ErrorCode.BadRequest, 'metadata must be an object');
          session.setMetadata(params.metadata as Record<string, unknown>);
        }
        return { session: session.info() };
      }
      case 'subscribe':
        connection.subscribedToAll = true;
        return { sessions: this.registry.list().map((s) => s.info()) };
      case 'status':
        return this.status();
      case 'stop':
        setImmediate(() => void this.stop(`asked by a client (${connection.clientName})`));
        return {};
      default:
        if (this.recovery.handles(method)) return this.recovery.handle(method, params);
        throw new DaemonError(ErrorCode.Unsupported, `unsupported method "${method}"`);
    }
  }

  private attach(connection: ClientConnection, params: AttachParams): unknown {
    const session = this.registry.get(params.session);
    if (params.role !== 'owner' && params.role !== 'watcher') throw new DaemonError(ErrorCode.BadRequest, 'role must be "owner" or "watcher"');
    const size = params.role === 'owner' && params.cols !== undefined ? { cols: terminalSize(params.cols, 'cols'), rows: terminalSize(params.rows, 'rows') } : undefined;
    const channel = connection.addChannel(params.channel, session, params.role);
    // The answer goes out first; the snapshot (and then the stream) follows it.
    setImmediate(() => {
      if (connection.channels.get(params.channel) === channel) session.attach(channel, size);
    });
    return { session: { ...session.info(), ...(size ?? {}) } };
  }

  private async wait(params: Record<string, unknown>): Promise<unknown> {
    const session = this.registry.get(params.session as string);
    const condition = params.condition as WaitCondition | undefined;
    if (!condition || !['exit', 'idle', 'text'].includes(condition.kind)) throw new DaemonError(ErrorCode.BadRequest, 'condition must be exit, idle or text');
    if (condition.kind === 'idle' && !(Number.isFinite(condition.ms) && condition.ms >= 0)) throw new DaemonError(ErrorCode.BadRequest, 'idle needs a duration in ms');
    if (condition.kind === 'text') {
      try {
        compilePattern(condition.pattern, condition.flags ?? '');
      } catch (err) {
        throw new DaemonError(ErrorCode.BadRequest, (err as Error).message);
      }
    }
    const timeoutMs = params.timeoutMs === undefined ? DaemonTiming.MaxWaitMs : Math.min(Number(params.timeoutMs), DaemonTiming.MaxWaitMs);
    if (!Number.isFinite(timeoutMs) || timeoutMs < 0) throw new DaemonError(ErrorCode.BadRequest, 'timeoutMs must be a non-negative number');
    const met = await session.wait(condition, timeoutMs);
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
      await Promise.all(this.registry.list().map((s) => s.kill('SIGHUP', DaemonTiming.StopGraceMs).catch(() => undefined)));
      await Promise.all([...this.connections].map((connection) => connection.close()));
      this.disposables.dispose();
      this.log.write('stopped');
      for (const callback of this.stoppedCallbacks) callback();
    })();
    return this.stopping;
  }
}

/** Runs a daemon in this process until it stops; resolves 'taken' if another daemon serves the socket. */
export async function runDaemon(options: DaemonOptions & { onReady?: (daemon: Daemon) => void }): Promise<'stopped' | 'taken'> {
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
  disposables.add(toDisposable(() => {
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
  }));
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
