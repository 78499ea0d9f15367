// A protocol client: one socket, JSON requests, attached channels. Used by the CLI, the extension and tests.
import type { Duplex } from 'node:stream';
import { Emitter, type IDisposable } from '../base/disposable';
import { askUntilDone, BusyRetry, type BusyRetryClient } from './busyRetry';
import { encodeJson, encodeRaw, FrameDecoder, FrameKind, parseJson, splitRaw } from '../protocol/frame';
import { NoDaemonError, openSocket } from './unixSocket';
// Where every client has always found them.
export { NoDaemonError, openSocket };
import type { ClientHello, DaemonHello } from '../protocol/hello';
import { readDaemonHello, refusedHello } from '../protocol/helloAnswer';
import { Attachment } from './attachment';
export { Attachment };
import {
  type AttachParams,
  type DaemonEvent,
  type ErrorBody,
  type Method,
  type Params,
  PROTOCOL_VERSION,
  type ResponseMessage,
  type Result,
} from '../protocol/messages';
import { trustedToken } from '../host/endpointTrust';

/** The daemon answered a request with an error. */
export class RequestError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ConnectOptions {
  socket: string;
  client: string;
  version: string;
  timeoutMs?: number;
  /** A scoped credential (HOLDFAST_TOKEN) sent instead of the token file's token. */
  credential?: string;
  /** How long a request refused `busy` by a handoff is asked again (busyRetry.ts); BusyRetry.DeadlineMs. */
  busyRetryMs?: number;
  /**
   * Another way to the daemon than its socket (src/link: ssh's stdio to the host's `holdfast bridge`), opened
   * instead; `socket` then only names it in messages. The far end proves its own daemon and puts its token in,
   * so no token file is read here and only `credential` (one that daemon granted) is sent.
   */
  transport?: () => Duplex;
}

/** Frames whose payload is JSON, after the hello (a kind unknown to this client is skipped unread). */
const JSON_KINDS = new Set<number>([FrameKind.Response, FrameKind.Event, FrameKind.Error]);

export type SnapshotReason = 'attach' | 'resync' | 'history';

export interface AttachHandlers {
  /**
   * VT bytes that rebuild the screen; the receiver resets its terminal before writing them.
   * `why`: attach, resync (the receiver fell behind), or history (after a screenFirst attach's screen).
   */
  onSnapshot(bytes: Buffer, why: SnapshotReason): void;
  onOutput(bytes: Buffer): void;
  onEvent?(event: DaemonEvent): void;
}

export class HoldfastClient implements IDisposable, BusyRetryClient {
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private readonly channels = new Map<number, { handlers: AttachHandlers; nextSnapshot: SnapshotReason }>();
  private nextId = 1;
  private nextChannel = 1;
  private ended = false;
  /** Closed by its owner (close()), not by the daemon: a request refused `busy` is not asked again. */
  closedOnPurpose = false;
  private readonly onEventEmitter = new Emitter<DaemonEvent>();
  private readonly onCloseEmitter = new Emitter<Error | undefined>();
  readonly onEvent = this.onEventEmitter.event;
  readonly onClose = this.onCloseEmitter.event;
  private closedNow: () => void = () => undefined;
  readonly closed = new Promise<void>((resolve) => (this.closedNow = resolve));

  private constructor(
    private readonly socket: Duplex,
    private readonly decoder: FrameDecoder,
    readonly hello: DaemonHello,
    private readonly options: ConnectOptions,
  ) {}

  static async connect(options: ConnectOptions): Promise<HoldfastClient> {
    // Nothing is sent to a path that is not provably this user's daemon (another user's fake would get it all).
    const token = options.transport
      ? options.credential
      : trustedToken(options.socket, () => new NoDaemonError(options.socket), undefined, options.credential);
    const socket = options.transport
      ? options.transport()
      : await openSocket(options.socket, options.timeoutMs ?? 5000);
    // A daemon that closes during the handshake (stopping, or its queue full) fails it through 'close'
    // below; without a listener, writing the hello to it would throw EPIPE into the caller's process.
    socket.on('error', () => undefined);
    const hello: ClientHello = {
      protocol: PROTOCOL_VERSION,
      client: options.client,
      version: options.version,
      token,
      capabilities: [],
    };
    socket.write(encodeJson(FrameKind.Hello, hello));
    const decoder = new FrameDecoder();
    const { daemonHello, rest } = await new Promise<{
      daemonHello: DaemonHello;
      rest: { kind: number; payload: Buffer }[];
    }>((resolve, reject) => {
      const timer = setTimeout(
        () => fail(new Error(`the daemon on ${options.socket} did not answer the handshake`)),
        options.timeoutMs ?? 5000,
      );
      const fail = (err: Error) => {
        clearTimeout(timer);
        socket.off('data', onData);
        socket.destroy();
        reject(err);
      };
      const onData = (chunk: Buffer) => {
        try {
          const frames = decoder.push(chunk);
          if (frames.length === 0) return;
          const [first, ...others] = frames;
          const body = parseJson(first.payload) as ErrorBody; // or the daemon's hello, read below
          if (first.kind === FrameKind.Error)
            return fail(refusedHello(body) ?? new RequestError(body.code, body.message));
          if (first.kind !== FrameKind.Hello) return fail(new Error('the daemon did not start with a hello frame'));
          const daemonHello = readDaemonHello(body); // throws for a malformed one: failed below
          clearTimeout(timer);
          socket.off('data', onData);
          socket.off('close', onClose);
          // Frames that came in the same chunk as the hello are replayed into the client.
          resolve({ daemonHello, rest: others });
        } catch (err) {
          fail(err as Error);
        }
      };
      const onClose = () =>
        fail(new Error(`the daemon on ${options.socket} closed the connection during the handshake`));
      socket.on('data', onData);
      socket.on('close', onClose);
    });
    // The decoder keeps any partial frame that arrived with the hello; whole ones are replayed.
    const client = new HoldfastClient(socket, decoder, daemonHello, options);
    client.listen();
    queueMicrotask(() => client.onFrames(rest));
    return client;
  }

  get isClosed(): boolean {
    return this.ended;
  }

  supports(capability: string): boolean {
    return this.hello.capabilities.includes(capability);
  }

  /** A request; refused `busy` by a handoff, it is asked again once the handoff is done (busyRetry.ts). */
  request<M extends Method>(method: M, params: Params<M>): Promise<Result<M>> {
    return askUntilDone(this, method, params);
  }

  get busyDeadlineMs(): number {
    return this.options.busyRetryMs ?? BusyRetry.DeadlineMs;
  }

  connectAgain(): Promise<HoldfastClient> {
    return HoldfastClient.connect(this.options);
  }

  /** A request as the daemon answers it, a `busy` refusal included. */
  requestOnce<M extends Method>(method: M, params: Params<M>): Promise<Result<M>> {
    if (this.isClosed) return Promise.reject(new Error('connection to the daemon is closed'));
    const id = this.nextId++;
    return new Promise<Result<M>>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve, reject });
      this.socket.write(encodeJson(FrameKind.Request, { id, method, params }));
    });
  }

  async attach(params: Omit<AttachParams, 'channel'>, handlers: AttachHandlers): Promise<Attachment> {
    const channel = this.nextChannel++;
    this.channels.set(channel, { handlers, nextSnapshot: 'attach' });
    try {
      const { session } = await this.request('attach', { ...params, channel });
      return new Attachment(this, channel, session, params.role);
    } catch (err) {
      this.channels.delete(channel);
      throw err;
    }
  }

  sendRaw(kind: FrameKind, channel: number, bytes: Uint8Array): void {
    if (!this.ended) this.socket.write(encodeRaw(kind, channel, bytes));
  }

  forgetChannel(channel: number): void {
    this.channels.delete(channel);
  }

  /** Sends raw bytes as they are: for tests that speak the wire directly. */
  writeWire(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  dispose(): void {
    this.close();
  }

  close(): void {
    this.closedOnPurpose = true;
    if (this.ended) return;
    this.socket.end();
    this.socket.destroy();
  }

  private listen(): void {
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => this.onSocketClose());
  }

  private onData(chunk: Buffer): void {
    let frames;
    try {
      frames = this.decoder.push(chunk);
    } catch (err) {
      this.onSocketClose(err as Error);
      return;
    }
    this.onFrames(frames);
  }

  private onFrames(frames: { kind: number; payload: Buffer }[]): void {
    for (const frame of frames) {
      if (this.ended) return;
      let json: unknown;
      try {
        json = JSON_KINDS.has(frame.kind) ? parseJson(frame.payload) : undefined;
      } catch (err) {
        // A frame we cannot read: the connection is no longer trustworthy. Never thrown into the
        // caller's event loop (the extension host).
        this.onSocketClose(new Error(`a bad frame from the daemon: ${(err as Error).message}`));
        return;
      }
      this.onFrame(frame.kind, frame.payload, json);
    }
  }

  /** `json`: the payload parsed, for the JSON kinds. */
  private onFrame(kind: number, payload: Buffer, json: unknown): void {
    switch (kind) {
      case FrameKind.Response: {
        const message = json as ResponseMessage;
        const waiter = this.pending.get(message.id);
        if (!waiter) return;
        this.pending.delete(message.id);
        if (message.ok) waiter.resolve(message.result);
        else waiter.reject(new RequestError(message.error.code, message.error.message));
        return;
      }
      case FrameKind.Event: {
        const event = json as DaemonEvent;
        if ('channel' in event) {
          const target = this.channels.get(event.channel);
          if ((event.type === 'resync' || event.type === 'history') && target) target.nextSnapshot = event.type;
          target?.handlers.onEvent?.(event);
        } else {
          for (const { handlers } of this.channels.values()) {
            if ('id' in event || event.type === 'session') handlers.onEvent?.(event);
          }
        }
        this.onEventEmitter.fire(event);
        return;
      }
      case FrameKind.Snapshot:
      case FrameKind.Output: {
        const { channel, bytes } = splitRaw(payload);
        const target = this.channels.get(channel);
        if (!target) return;
        if (kind === FrameKind.Snapshot) {
          const why = target.nextSnapshot;
          target.nextSnapshot = 'resync';
          target.handlers.onSnapshot(bytes, why);
        } else target.handlers.onOutput(bytes);
        return;
      }
      case FrameKind.Error: {
        const body = json as ErrorBody;
        this.onSocketClose(new RequestError(body.code, body.message));
        return;
      }
      default:
        return; // newer daemon, kind unknown to us: ignore
    }
  }

  private onSocketClose(err?: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.closedNow();
    this.socket.destroy();
    const reason = err ?? new Error('connection to the daemon closed');
    for (const waiter of this.pending.values()) waiter.reject(reason);
    this.pending.clear();
    this.onCloseEmitter.fire(err);
    this.onEventEmitter.dispose();
    this.onCloseEmitter.dispose();
  }
}
