// The daemon's Unix socket from a client's side: connecting, and what "no daemon there" is.
import * as net from 'node:net';

/** No daemon listens on the socket: the path is missing or the connection was refused. */
export class NoDaemonError extends Error {
  constructor(readonly socketPath: string) {
    super(`no Holdfast daemon is listening on ${socketPath}`);
  }
}

/** Connects to a Unix socket. Missing or refused means no daemon; a timeout proves nothing and is its own error. */
export function openSocket(socketPath: string, timeoutMs: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`connecting to ${socketPath} timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED' || err.code === 'ENOTSOCK')
        reject(new NoDaemonError(socketPath));
      else reject(new Error(`cannot connect to ${socketPath}: ${err.code ?? err.message}`));
    });
  });
}
