// The private parts of node-pty the daemon relies on, in one place: the PTY's socket and file
// descriptor, so that the last output of a program that exits right after writing is read before
// node-pty destroys the socket (it can drop it; test/daemon-stream.test.ts checks we do not). Read from the pinned
// version below; checkNodePtyInternals() runs when the daemon starts and stops it with a message
// naming what moved. Succession needs three more: its native resize on a bare fd, its write queue
// (to hand over input the program has not taken), and Node's own read handle under the socket
// (to stop reading at an exact byte: pausing the stream alone still reads one more chunk).
import type * as net from 'node:net';
import * as pty from 'node-pty';

/** The version these internals were read from; package.json pins it exactly. */
export const NODE_PTY_VERSION = '1.1.0';

export interface PtyInternals {
  _socket: {
    destroy(err?: Error): void;
    pause(): unknown;
    resume(): unknown;
    read(): Buffer | null;
    readableLength: number;
    /** Destroyed: the master fd is closed (its number may be another file's now). */
    destroyed: boolean;
    emit(event: 'data', chunk: Buffer): boolean;
  };
  _fd: number;
  /** What node-pty still has to write to the program (it writes as the kernel takes it). */
  _writeStream: {
    _writeQueue: { buffer: Buffer; offset: number }[];
    /** Set while a write waits for the kernel to take more (EAGAIN); unset with the queue non-empty: one in flight. */
    _writeImmediate: NodeJS.Immediate | undefined;
    /** Drops the pending retry (the queue stays). */
    dispose(): void;
  };
}

/** The libuv handle under a net.Socket (a tty.ReadStream here): Node's internals, not node-pty's. */
interface ReadHandle {
  reading: boolean;
  readStop(): number;
}

interface SocketInternals {
  _handle: ReadHandle | null;
  _read: (size: number) => void;
}

/**
 * Stops reading `socket` now: no byte is read from the fd after this returns (libuv reads only on
 * this thread, between callbacks). What the stream buffered is left for `socket.read()`, which
 * then cannot start reading again.
 */
export function stopReadingNow(socket: net.Socket | PtyInternals['_socket']): void {
  const internals = socket as unknown as SocketInternals;
  socket.pause();
  internals._read = () => undefined;
  const handle = internals._handle;
  if (handle?.reading) {
    handle.reading = false;
    handle.readStop();
  }
}

/** Undoes stopReadingNow: the stream reads (and flows) again. */
export function restartReading(socket: net.Socket | PtyInternals['_socket']): void {
  const internals = socket as unknown as SocketInternals;
  delete (internals as Partial<SocketInternals>)._read;
  // The stream may think a read is still pending (a read() while stopped): start the handle itself.
  internals._read(0);
  socket.resume();
}

/** Input waiting in node-pty's queue: none in flight (empty, or waiting for the kernel to take more). */
export function inputSettled(internals: PtyInternals): boolean {
  const stream = internals._writeStream;
  return stream._writeQueue.length === 0 || stream._writeImmediate !== undefined;
}

/** Takes the input node-pty has not written yet (call once settled): it will not be written here. */
export function takeQueuedInput(internals: PtyInternals): Buffer {
  const stream = internals._writeStream;
  stream.dispose();
  const rest = Buffer.concat(stream._writeQueue.map((task) => task.buffer.subarray(task.offset)));
  stream._writeQueue.length = 0;
  return rest;
}

interface NativePty {
  resize(fd: number, cols: number, rows: number): void;
  open(cols: number, rows: number): { master: number; slave: number; pty: string };
}

let nativeModule: NativePty | undefined;

/** node-pty's native module, loaded the way its lib/unixTerminal.js does. */
function nativePty(): NativePty {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- node-pty is external: its own loader
  const utils = require('node-pty/lib/utils') as { loadNativeModule(name: string): { module: NativePty } };
  nativeModule ??= utils.loadNativeModule('pty').module;
  return nativeModule;
}

/** Sets the size of the terminal whose master is `fd` (TIOCSWINSZ: its foreground group gets SIGWINCH). */
export function resizeFd(fd: number, cols: number, rows: number): void {
  nativePty().resize(fd, cols, rows);
}

/** node-pty's error when the master was closed between the terminal's end and a resize (as VS Code's own). */
const CLOSED_TERMINAL = 'ioctl(2) failed, EBADF';

/** Runs a terminal's resize: the one race it expects, the terminal closed meanwhile, is no error; others throw. */
export function resizeUnlessClosed(resize: () => void): void {
  try {
    resize();
  } catch (err) {
    if ((err as Error).message !== CLOSED_TERMINAL) throw err;
  }
}

/** Bytes of input written to node-pty that the program has not taken yet. */
export function queuedInputBytes(internals: PtyInternals): number {
  let bytes = 0;
  for (const task of internals._writeStream._writeQueue) bytes += task.buffer.length - task.offset;
  return bytes;
}

export function internalsOf(term: pty.IPty): PtyInternals {
  return term as unknown as PtyInternals;
}

/** Throws, naming what is missing, when the node-pty loaded is not the one these were read from. */
export function checkNodePtyInternals(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- node-pty is external: its own package.json
  const version = (require('node-pty/package.json') as { version: string }).version;
  // A program that ends by itself: never signalled, so no reused pid can be hit.
  const internals = internalsOf(pty.spawn('/bin/sh', ['-c', 'exit 0'], { cols: 2, rows: 1, encoding: null }));
  const missing = [
    typeof internals._socket?.destroy !== 'function' && '_socket.destroy',
    typeof internals._socket?.read !== 'function' && '_socket.read',
    typeof internals._fd !== 'number' && '_fd',
    !Array.isArray(internals._writeStream?._writeQueue) && '_writeStream._writeQueue',
    typeof internals._writeStream?.dispose !== 'function' && '_writeStream.dispose',
    typeof (internals._socket as unknown as SocketInternals)?._handle?.readStop !== 'function' &&
      '_socket._handle.readStop',
    typeof nativePty().resize !== 'function' && 'native resize',
  ].filter((name): name is string => typeof name === 'string');
  if (version !== NODE_PTY_VERSION || missing.length > 0) {
    const missingNote = missing.length > 0 ? `; missing: ${missing.join(', ')}` : '';
    throw new Error(
      `node-pty ${version} is not the ${NODE_PTY_VERSION} whose internals Holdfast reads ` +
        `(src/daemon/pty/nodePtyInternals.ts)${missingNote}`,
    );
  }
}

/** A new terminal's two sides, as node-pty's UnixTerminal.open makes them (tests start programs on the slave). */
export function openPty(cols: number, rows: number): { master: number; slave: number } {
  const { master, slave } = nativePty().open(cols, rows);
  return { master, slave };
}
