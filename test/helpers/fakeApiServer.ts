// The HTTP side the local stand-ins of the agents' APIs share (fakeAnthropicApi.ts, fakeResponsesApi.ts,
// fakeGeminiApi.ts): a server on 127.0.0.1 that keeps each request's method and path, in order, for a
// failure's message, and hands each whole request to the stand-in.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeApiServer {
  readonly port: number;
  /** The requests' methods and paths, in order. */
  readonly paths: string[];
  close(): Promise<void>;
}

/** Starts the server; `handle` gets each request once its body is read, with its path without the query. */
export async function startFakeApiServer(
  handle: (req: http.IncomingMessage, path: string, body: string, res: http.ServerResponse) => void,
): Promise<FakeApiServer> {
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      paths.push(`${req.method} ${path}`);
      handle(req, path, Buffer.concat(chunks).toString('utf8'), res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    paths,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(res: http.ServerResponse, status: number, body: object): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
