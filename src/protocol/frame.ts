// Wire framing: u32 big-endian payload length, u8 kind, payload.
// Control kinds carry UTF-8 JSON; terminal kinds carry a u32 channel then raw bytes.

export enum FrameKind {
  Hello = 1, // JSON, first frame each way
  Request = 2, // JSON {id, method, params}
  Response = 3, // JSON {id, ok, result | error}
  Event = 4, // JSON pushed by the daemon
  Error = 5, // JSON {code, message}; the daemon closes the connection after it
  Snapshot = 6, // raw: u32 channel + VT bytes that rebuild the screen (receiver resets first)
  Output = 7, // raw: u32 channel + program output
  Input = 8, // raw: u32 channel + keys from the input owner
}

export const HEADER_BYTES = 5;
export const CHANNEL_BYTES = 4;
/** The largest payload either side accepts; larger lengths are a protocol error. */
export const MAX_FRAME_PAYLOAD = 32 * 1024 * 1024;

export function isKnownKind(kind: number): boolean {
  return kind >= FrameKind.Hello && kind <= FrameKind.Input;
}

export function isRawKind(kind: number): boolean {
  return kind === FrameKind.Snapshot || kind === FrameKind.Output || kind === FrameKind.Input;
}

export function encodeFrame(kind: FrameKind, payload: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(HEADER_BYTES + payload.length);
  frame.writeUInt32BE(payload.length, 0);
  frame[4] = kind;
  frame.set(payload, HEADER_BYTES);
  return frame;
}

export function encodeJson(kind: FrameKind, message: unknown): Buffer {
  return encodeFrame(kind, Buffer.from(JSON.stringify(message), 'utf8'));
}

/** Header of a raw frame; send it followed by the bytes, so the bytes are never copied. */
export function rawHeader(kind: FrameKind, channel: number, byteLength: number): Buffer {
  const header = Buffer.allocUnsafe(HEADER_BYTES + CHANNEL_BYTES);
  header.writeUInt32BE(byteLength + CHANNEL_BYTES, 0);
  header[4] = kind;
  header.writeUInt32BE(channel, HEADER_BYTES);
  return header;
}

export function encodeRaw(kind: FrameKind, channel: number, bytes: Uint8Array): Buffer {
  return Buffer.concat([rawHeader(kind, channel, bytes.length), bytes]);
}

export interface Frame {
  kind: number;
  payload: Buffer;
}

export class FrameError extends Error {
  constructor(
    readonly code: 'oversized' | 'malformed',
    message: string,
    /** The kind of the frame refused, when its header was read. */
    readonly kind?: number,
  ) {
    super(message);
  }
}

/**
 * Incremental decoder: feed socket chunks, get whole frames. Throws FrameError on a length over the
 * bound of the frame's kind, as soon as the header is in: an oversized frame is never buffered.
 */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly maxPayload: (kind: number) => number = () => MAX_FRAME_PAYLOAD) {}

  push(chunk: Buffer): Frame[] {
    return [...this.decode(chunk)];
  }

  /**
   * The whole frames `chunk` completes, one at a time: the frames before an oversized one are
   * handled before it throws (a hello and a request over the bound arriving in one chunk).
   */
  *decode(chunk: Buffer): Generator<Frame> {
    this.append(chunk);
    for (let frame = this.next(); frame; frame = this.next()) yield frame;
  }

  /** Bytes to decode; next() takes the frames out, when the reader is ready for them. */
  append(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
  }

  /** The next whole frame, or undefined until more bytes come; throws on a frame over its bound. */
  next(): Frame | undefined {
    if (this.buffered < HEADER_BYTES) return undefined;
    const head = this.peek(HEADER_BYTES);
    const length = head.readUInt32BE(0);
    const kind = head[4];
    const max = this.maxPayload(kind);
    if (length > max) throw new FrameError('oversized', `frame of ${length} bytes exceeds the ${max}-byte limit`, kind);
    if (this.buffered < HEADER_BYTES + length) return undefined;
    const whole = this.take(HEADER_BYTES + length);
    return { kind: whole[4], payload: whole.subarray(HEADER_BYTES) };
  }

  /** Bytes held for a frame not yet complete. */
  get pendingBytes(): number {
    return this.buffered;
  }

  private peek(n: number): Buffer {
    if (this.chunks[0].length >= n) return this.chunks[0];
    const joined = Buffer.concat(this.chunks);
    this.chunks = [joined];
    return joined;
  }

  private take(n: number): Buffer {
    const first = this.chunks[0].length >= n ? this.chunks[0] : this.peek(n);
    const out = first.subarray(0, n);
    const rest = first.subarray(n);
    if (rest.length > 0) this.chunks[0] = rest;
    else this.chunks.shift();
    this.buffered -= n;
    return out;
  }
}

export function parseJson(payload: Buffer): unknown {
  try {
    return JSON.parse(payload.toString('utf8'));
  } catch {
    throw new FrameError('malformed', 'control frame is not valid JSON');
  }
}

export function splitRaw(payload: Buffer): { channel: number; bytes: Buffer } {
  if (payload.length < CHANNEL_BYTES) throw new FrameError('malformed', 'terminal frame shorter than its channel');
  return { channel: payload.readUInt32BE(0), bytes: payload.subarray(CHANNEL_BYTES) };
}
