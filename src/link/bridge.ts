// The far end of a host link: `holdfast bridge`, run by sshd for a client on another machine. It checks its own
// daemon's endpoint as any client does (endpointTrust.ts), puts this machine's token into the client's hello (the
// client sends none: the token never crosses the wire) and then moves bytes both ways, the frames untouched.
import type * as net from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { NoDaemonError, openSocket } from '../client/client';
import { encodeFrame, encodeJson, FrameDecoder, FrameKind, HEADER_BYTES } from '../protocol/frame';
import { SCOPE_TOKEN_ENV, trustedToken } from '../host/endpointTrust';
import { startDaemon } from '../client/launch';

/** The daemon refuses a larger hello; the bridge holds no more than that before it has one. */
const MAX_HELLO_BYTES = 64 * 1024;
/** A client that says nothing this long after ssh connected it is not coming. */
const HELLO_WAIT_MS = 10_000;

/** The error code a bridge sends (in an Error frame) when no daemon listens on its socket. */
export const NO_DAEMON_CODE = 'no-daemon';

export enum BridgeExit {
  Ok = 0,
  Failed = 1,
  NoDaemon = 6,
}

export interface BridgeOptions {
  socket: string;
  env: NodeJS.ProcessEnv;
  /** Start an on-demand daemon when none listens (as `holdfast new` does), from this script. */
  start?: { daemonScript: string };
  input: Readable;
  output: Writable;
}

class BridgeError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exit: BridgeExit,
  ) {
    super(message);
  }
}

/** This machine's credential for its daemon: a scoped one from the environment, else the token file's. */
function ownToken(socket: string, env: NodeJS.ProcessEnv): string {
  return trustedToken(socket, () => new NoDaemonError(socket), env, env[SCOPE_TOKEN_ENV] || undefined);
}

/** The client's hello with `token` put in when it has none; any other frame, or no JSON, goes on as it came. */
export function withToken(hello: { kind: number; payload: Buffer }, token: () => string): Buffer {
  let body: unknown;
  try {
    body = JSON.parse(hello.payload.toString('utf8'));
  } catch {
    body = undefined; // the daemon refuses it with its own words
  }
  if (hello.kind !== FrameKind.Hello || !body || typeof body !== 'object' || Array.isArray(body))
    return encodeFrame(hello.kind, hello.payload);
  const fields = body as Record<string, unknown>;
  // A credential the daemon granted this client through this bridge goes on; none means this machine's own.
  if (typeof fields.token === 'string' && fields.token !== '') return encodeFrame(hello.kind, hello.payload);
  return encodeJson(FrameKind.Hello, { ...fields, token: token() });
}

/** Reads the client's first frame (its hello), and whatever came after it in the same chunks. */
function readHello(input: Readable): Promise<{ hello: { kind: number; payload: Buffer }; rest: Buffer[] }> {
  return new Promise((resolve, reject) => {
    const decoder = new FrameDecoder(() => MAX_HELLO_BYTES);
    const seen: Buffer[] = [];
    const wait = setTimeout(
      () => done(new BridgeError('protocol', `no hello from the client in ${HELLO_WAIT_MS} ms`, BridgeExit.Failed)),
      HELLO_WAIT_MS,
    );
    const done = (result: Error | { hello: { kind: number; payload: Buffer }; rest: Buffer[] }) => {
      clearTimeout(wait);
      input.off('data', onData);
      input.off('end', onEnd);
      input.pause();
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const onData = (chunk: Buffer) => {
      seen.push(chunk);
      let frames;
      try {
        frames = decoder.push(chunk);
      } catch (err) {
        return done(new BridgeError('protocol', (err as Error).message, BridgeExit.Failed));
      }
      if (frames.length === 0) return;
      const all = Buffer.concat(seen);
      done({ hello: frames[0], rest: [all.subarray(HEADER_BYTES + frames[0].payload.length)] });
    };
    const onEnd = () => done(new BridgeError('protocol', 'the client left before its hello', BridgeExit.Failed));
    input.on('data', onData);
    input.on('end', onEnd);
  });
}

/** The daemon's socket, opened once its endpoint is proved this user's (started first if asked and none listens). */
async function openDaemon(options: BridgeOptions): Promise<net.Socket> {
  const { socket, env, start } = options;
  try {
    ownToken(socket, env); // the directory, socket and token file checks, before a byte goes anywhere
    return await openSocket(socket, 5000);
  } catch (err) {
    if (!(err instanceof NoDaemonError)) throw new BridgeError('untrusted', (err as Error).message, BridgeExit.Failed);
    if (!start)
      throw new BridgeError(NO_DAEMON_CODE, `no Holdfast daemon is listening on ${socket}`, BridgeExit.NoDaemon);
  }
  await startDaemon({ socket, daemonScript: start.daemonScript, env });
  ownToken(socket, env);
  return openSocket(socket, 5000);
}

/** Bridges until either side ends; resolves with the exit status (an Error frame has told the client why). */
export async function runBridge(options: BridgeOptions): Promise<BridgeExit> {
  const { input, output } = options;
  let daemon: net.Socket;
  let first: Buffer;
  let rest: Buffer[];
  try {
    daemon = await openDaemon(options);
    const read = await readHello(input).catch((err: Error) => {
      daemon.destroy();
      throw err;
    });
    first = withToken(read.hello, () => ownToken(options.socket, options.env));
    rest = read.rest;
  } catch (err) {
    const failure =
      err instanceof BridgeError ? err : new BridgeError('failed', (err as Error).message, BridgeExit.Failed);
    output.write(encodeJson(FrameKind.Error, { code: failure.code, message: failure.message }));
    return failure.exit;
  }
  return new Promise<BridgeExit>((resolve) => {
    daemon.on('error', () => undefined); // its close ends the bridge
    output.on('error', () => daemon.destroy()); // sshd gone
    daemon.write(first);
    for (const chunk of rest) if (chunk.length > 0) daemon.write(chunk);
    input.pipe(daemon);
    daemon.pipe(output);
    input.resume();
    daemon.on('close', () => resolve(BridgeExit.Ok));
  });
}
