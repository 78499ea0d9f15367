// One client connection: handshake, frames in and out (taken at a pace, requestPace.ts), its attached
// channels, and the bound on what may queue up for it. A client that falls behind stops receiving output
// and is resynced with a fresh snapshot once its socket drains: the program is never slowed down by it.
import type * as net from 'node:net';
import { DisposableStore, disposeErrorText, type IDisposable, toDisposable } from '../../base/disposable';
import {
  encodeJson,
  FrameDecoder,
  FrameError,
  FrameKind,
  isKnownKind,
  parseJson,
  rawHeader,
  splitRaw,
} from '../../protocol/frame';
import { clientHelloSchema, type DaemonHello } from '../../protocol/hello';
import { type DaemonEvent, ErrorCode, PROTOCOL_VERSION, type RequestMessage, type Role } from '../../protocol/messages';
import { InputLimit } from '../../protocol/limits';
import { OLDEST_CLIENT_PROTOCOL, VERSION } from '../../protocol/version';
import { Channel, detachAll } from './channel';
import { ConnectionRights } from './connectionRights';
import { OutputCork } from './outputCork';
import { RequestPace } from './requestPace';
import type { Session } from '../sessions/session';
import { DaemonError } from '../daemonError';

export enum ConnectionLimits {
  HandshakeTimeoutMs = 5000,
  /** Bytes queued in the socket beyond which output for this client is dropped until it drains. */
  MaxQueuedBytes = 8 * 1024 * 1024,
  /**
   * Bytes queued for a client that does not read its responses, snapshots and events (output stops
   * at MaxQueuedBytes): past this it is dropped, so it cannot make the daemon hold unbounded memory.
   */
  MaxQueuedControlBytes = 256 * 1024 * 1024,
  /** The largest hello: a client cannot make the daemon buffer a 32 MiB frame before it is authenticated. */
  MaxHelloBytes = 64 * 1024,
  MaxChannels = 1024,
}

const HELLO_TOO_LARGE = `the hello must be at most ${ConnectionLimits.MaxHelloBytes} bytes`;

export interface RequestHandler {
  handle(connection: ClientConnection, method: string, params: unknown): Promise<unknown>;
}

export class ClientConnection implements IDisposable {
  /** Bounds by kind, checked at the header: a frame over its bound is refused before it is held. */
  private readonly decoder = new FrameDecoder((kind) =>
    kind === FrameKind.Hello ? ConnectionLimits.MaxHelloBytes : InputLimit.RequestBytes,
  );
  private readonly disposables = new DisposableStore();
  readonly channels = new Map<number, Channel>();
  /** Channels by session: the events of a session go to each connection with a channel on it. */
  private readonly perSession = new Map<string, number>();
  private ready = false;
  private closed = false;
  private behind = false;
  /** Output gathered into few writes (outputCork.ts). */
  private readonly cork: OutputCork;
  private readonly pace: RequestPace;
  /** Receives every session's events (set by the 'subscribe' request). */
  subscribedToAll = false;
  clientName = '';
  /** Set by the hello: full for the token file's token, a credential's own (connectionRights.ts). */
  rights = ConnectionRights.NONE;

  constructor(
    readonly id: number,
    private readonly socket: net.Socket,
    private readonly authenticate: (token: unknown) => ConnectionRights | undefined,
    private readonly hello: () => DaemonHello,
    private readonly handler: RequestHandler,
    private readonly onClosed: (connection: ClientConnection) => void,
    private readonly log: (line: string) => void,
  ) {
    const handshakeTimer = setTimeout(
      () => this.fail(ErrorCode.Protocol, `no hello within ${ConnectionLimits.HandshakeTimeoutMs} ms`),
      ConnectionLimits.HandshakeTimeoutMs,
    );
    this.disposables.add(toDisposable(() => clearTimeout(handshakeTimer)));
    this.cork = this.disposables.add(new OutputCork(socket));
    this.pace = this.disposables.add(new RequestPace(socket, () => this.onData(Buffer.alloc(0), handshakeTimer)));
    socket.on('data', (chunk: Buffer) => this.onData(chunk, handshakeTimer));
    socket.on('drain', () => this.onDrain());
    socket.on('error', () => undefined); // 'close' follows
    socket.on('close', () => this.dispose());
  }

  /** Failed: its error frame is on its way, then the socket closes (see fail). */
  private ending = false;
  /** Input dropped is said in the log once: a client that goes on typing into a dead channel does not fill it. */
  private inputDropSaid = false;

  get isClosed(): boolean {
    return this.closed;
  }

  get isBehind(): boolean {
    return this.behind;
  }

  private onData(chunk: Buffer, handshakeTimer: NodeJS.Timeout): void {
    if (this.closed) return;
    try {
      this.decoder.append(chunk);
      // Frames past the pace wait in the decoder, the socket paused, until the pace lets them in.
      while (!this.ready || this.pace.mayTake()) {
        const frame = this.decoder.next();
        if (!frame || this.closed) break;
        if (!this.ready) {
          this.onHello(frame.kind, frame.payload);
          clearTimeout(handshakeTimer);
        } else {
          this.pace.took();
          this.onFrame(frame.kind, frame.payload);
        }
      }
      if (!this.ready && this.decoder.pendingBytes > ConnectionLimits.MaxHelloBytes) {
        throw new DaemonError(ErrorCode.Protocol, HELLO_TOO_LARGE);
      }
    } catch (err) {
      if (err instanceof FrameError) this.failFrame(err);
      else if (err instanceof DaemonError) this.fail(err.code, err.message);
      else {
        this.log(`connection ${this.id}: ${(err as Error).stack ?? String(err)}`);
        this.fail(ErrorCode.Internal, 'internal error');
      }
    }
  }

  private failFrame(err: FrameError): void {
    if (err.code !== 'oversized') return this.fail(ErrorCode.Protocol, err.message);
    if (!this.ready || err.kind === FrameKind.Hello) return this.fail(ErrorCode.Protocol, HELLO_TOO_LARGE);
    if (err.kind === FrameKind.Request)
      return this.fail(ErrorCode.Limit, `a request must be at most ${InputLimit.RequestBytes} bytes`);
    this.fail(ErrorCode.Protocol, err.message);
  }

  private onHello(kind: number, payload: Buffer): void {
    if (kind !== FrameKind.Hello) throw new DaemonError(ErrorCode.Protocol, 'the first frame must be a hello');
    const parsed = clientHelloSchema.safeParse(parseJson(payload));
    if (!parsed.success)
      throw new DaemonError(ErrorCode.Protocol, `malformed hello: ${parsed.error.issues[0].message}`);
    const hello = parsed.data;
    // The version after the token: a client with a wrong token is answered `auth`, whatever it speaks.
    const rights = this.authenticate(hello.token);
    if (!rights) throw new DaemonError(ErrorCode.Auth, 'wrong or missing token');
    if (hello.protocol < OLDEST_CLIENT_PROTOCOL)
      throw new DaemonError(ErrorCode.Protocol, `protocol ${hello.protocol} is older than this daemon serves`);
    this.rights = rights;
    this.clientName = hello.client;
    this.ready = true;
    this.send(encodeJson(FrameKind.Hello, this.hello()));
  }

  private onFrame(kind: number, payload: Buffer): void {
    switch (kind) {
      case FrameKind.Request: {
        const request = parseJson(payload) as Partial<RequestMessage> | null;
        if (
          !request ||
          typeof request !== 'object' ||
          typeof request.id !== 'number' ||
          typeof request.method !== 'string'
        ) {
          throw new DaemonError(ErrorCode.Protocol, 'malformed request');
        }
        this.dispatch(request.id, request.method, request.params ?? {});
        return;
      }
      case FrameKind.Input: {
        const { channel, bytes } = splitRaw(payload);
        const target = this.channels.get(channel);
        const dropped = target ? target.session.input(target, bytes) : 'the channel is not attached';
        if (dropped && !this.inputDropSaid)
          this.log(`connection ${this.id}: input on channel ${channel} dropped: ${dropped}`);
        this.inputDropSaid ||= dropped !== undefined;
        return;
      }
      default:
        // A newer client's kind we do not know: ignore it (forward compatible). Known kinds that
        // only the daemon sends are out of order.
        if (isKnownKind(kind)) throw new DaemonError(ErrorCode.Protocol, `unexpected frame kind ${kind} from a client`);
    }
  }

  private dispatch(id: number, method: string, params: unknown): void {
    this.pace.started();
    const settled = () => this.pace.settled();
    this.handler
      .handle(this, method, params)
      .finally(settled)
      .then(
        (result) => this.sendJson({ id, ok: true, result: result ?? {} }, `the answer to ${method}`, id),
        (err) => {
          const code = err instanceof DaemonError ? err.code : ErrorCode.Internal;
          if (code === ErrorCode.Internal) this.log(`request ${method} failed: ${(err as Error).stack ?? err}`);
          this.sendJson(
            { id, ok: false, error: { code, message: (err as Error).message } },
            `the error of ${method}`,
            id,
          );
        },
      );
  }

  /**
   * A JSON frame; one that cannot be encoded (too deep, a cycle, a BigInt) is logged and, for a
   * response, answered `internal` instead: the client is not left waiting and the daemon carries on.
   */
  private sendJson(message: object, what: string, responseTo?: number): void {
    try {
      this.send(encodeJson(responseTo === undefined ? FrameKind.Event : FrameKind.Response, message));
    } catch (err) {
      this.log(`connection ${this.id}: ${what} could not be encoded: ${(err as Error).message}`);
      if (responseTo !== undefined)
        this.send(
          encodeJson(FrameKind.Response, {
            id: responseTo,
            ok: false,
            error: { code: ErrorCode.Internal, message: `${what} could not be encoded (see the daemon log)` },
          }),
        );
    }
  }

  addChannel(channel: number, session: Session, role: Role): Channel {
    if (!Number.isInteger(channel) || channel < 0 || channel > 0xffffffff)
      throw new DaemonError(ErrorCode.BadRequest, 'channel must be a u32');
    if (this.channels.has(channel))
      throw new DaemonError(ErrorCode.BadRequest, `channel ${channel} is already attached`);
    if (this.channels.size >= ConnectionLimits.MaxChannels)
      throw new DaemonError(ErrorCode.Limit, `at most ${ConnectionLimits.MaxChannels} channels per connection`);
    const attached = new Channel(this, channel, session, role);
    this.channels.set(channel, attached);
    this.perSession.set(session.id, (this.perSession.get(session.id) ?? 0) + 1);
    return attached;
  }

  /** Whether it has a channel on the session (in constant time: a client may hold 1,024 channels). */
  watches(sessionId: string): boolean {
    return this.perSession.has(sessionId);
  }

  removeChannel(channel: number): Channel | undefined {
    const attached = this.channels.get(channel);
    if (!attached) return undefined;
    this.channels.delete(channel);
    const left = this.perSession.get(attached.session.id)! - 1;
    if (left > 0) this.perSession.set(attached.session.id, left);
    else this.perSession.delete(attached.session.id);
    attached.session.detach(attached);
    attached.phase = 'live'; // awaits no snapshot any more
    return attached;
  }

  sendRaw(kind: FrameKind, channel: number, bytes: Buffer): void {
    if (this.closed) return;
    this.cork.gather(bytes.length);
    this.socket.write(rawHeader(kind, channel, bytes.length));
    this.socket.write(bytes);
    if (!this.behind && this.socket.writableLength > ConnectionLimits.MaxQueuedBytes) this.behind = true;
    this.checkQueue();
  }

  sendEvent(event: DaemonEvent): void {
    this.sendJson(event, `a '${event.type}' event`);
  }

  private send(frame: Buffer): void {
    if (this.closed) return;
    this.socket.write(frame);
    this.checkQueue();
  }

  private checkQueue(): void {
    const queued = this.socket.writableLength;
    if (queued > ConnectionLimits.MaxQueuedControlBytes) {
      this.fail(
        ErrorCode.Limit,
        `${queued} bytes are queued for this client, over the ` +
          `${ConnectionLimits.MaxQueuedControlBytes}-byte limit: it does not read what it asked for`,
      );
      this.socket.destroy(); // the error frame would wait behind the queue: free it now
    }
  }

  /** A channel of this connection began (true) or ended (false) waiting for its snapshot. */
  snapshotAwaited(awaiting: boolean): void {
    if (awaiting) this.pace.started();
    else this.pace.settled();
  }

  private onDrain(): void {
    this.pace.drained();
    if (!this.behind) return;
    this.behind = false;
    for (const attached of this.channels.values()) {
      if (!attached.stale) continue;
      this.sendEvent({ type: 'resync', channel: attached.channel });
      attached.session.requestSnapshot(attached);
    }
  }

  /** Ends the connection after what is queued has been written (at most a second). */
  close(): Promise<void> {
    if (this.socket.destroyed) return Promise.resolve(this.dispose());
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.socket.destroy(), 1000);
      this.socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      this.socket.end();
    });
  }

  /** Sends an error frame and closes; the daemon and other clients carry on. */
  fail(code: string, message: string): void {
    if (this.closed) return;
    this.log(`connection ${this.id} (${this.clientName || 'no hello'}): ${code}: ${message}`);
    // A protocol refusal says what this daemon speaks, so a client too old for it can say so in its own words.
    const speaks = { protocol: PROTOCOL_VERSION, oldestClient: OLDEST_CLIENT_PROTOCOL, version: VERSION };
    this.socket.end(encodeJson(FrameKind.Error, { code, message, ...(code === ErrorCode.Protocol ? speaks : {}) }));
    this.closed = true;
    // Not destroyed at once: closing a socket whose peer's bytes are still unread makes the kernel send a
    // reset, which can discard the error frame before the client reads it. The socket keeps reading
    // (and dropping) until the client closes, a second at most.
    this.ending = true;
    setTimeout(() => this.socket.destroy(), 1000).unref();
    this.dispose();
  }

  dispose(): void {
    if (this.disposables.isDisposed) return;
    this.closed = true;
    try {
      detachAll(this.channels.values());
      this.channels.clear();
      this.perSession.clear();
      this.disposables.dispose();
    } catch (err) {
      // logged, not thrown: it runs on the socket's close, and the daemon must still drop the connection
      this.log(`connection ${this.id}: disposing it failed: ${disposeErrorText(err)}`);
    }
    if (!this.ending && !this.socket.destroyed && this.socket.writableLength === 0) this.socket.destroy();
    this.onClosed(this);
  }
}
