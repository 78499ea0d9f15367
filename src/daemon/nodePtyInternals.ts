// The private parts of node-pty the daemon relies on, in one place: the PTY's socket and file
// descriptor, so that the last output of a program that exits right after writing is read before
// node-pty destroys the socket (it can drop it; test/daemon-stream.test.ts checks we do not). Read from the pinned
// version below; checkNodePtyInternals() runs when the daemon starts and stops it with a message
// naming what moved.
import * as pty from 'node-pty';

/** The version these internals were read from; package.json pins it exactly. */
export const NODE_PTY_VERSION = '1.1.0';

export interface PtyInternals {
  _socket: {
    destroy(err?: Error): void;
    read(): Buffer | null;
    readableLength: number;
    emit(event: 'data', chunk: Buffer): boolean;
  };
  _fd: number;
  /** What node-pty still has to write to the program (it writes as the kernel takes it). */
  _writeStream: { _writeQueue: { buffer: Buffer; offset: number }[] };
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
  const internals = internalsOf(
    pty.spawn('/bin/sh', ['-c', 'exit 0'], { cols: 2, rows: 1, encoding: null } as pty.IPtyForkOptions),
  );
  const missing = [
    typeof internals._socket?.destroy !== 'function' && '_socket.destroy',
    typeof internals._socket?.read !== 'function' && '_socket.read',
    typeof internals._fd !== 'number' && '_fd',
    !Array.isArray(internals._writeStream?._writeQueue) && '_writeStream._writeQueue',
  ].filter((name): name is string => typeof name === 'string');
  if (version !== NODE_PTY_VERSION || missing.length > 0) {
    const missingNote = missing.length > 0 ? `; missing: ${missing.join(', ')}` : '';
    throw new Error(
      `node-pty ${version} is not the ${NODE_PTY_VERSION} whose internals Holdfast reads ` +
        `(src/daemon/nodePtyInternals.ts)${missingNote}`,
    );
  }
}
