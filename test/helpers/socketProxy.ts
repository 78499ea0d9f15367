// Test helper: a Unix socket that forwards every connection to a daemon's, so a test can cut the
// connection (or hold the daemon's answers) at a chosen moment while the daemon and its sessions live.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { tokenPathFor } from '../../src/host/paths';

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
  held: Buffer[];
  holding: boolean;
}

export class SocketProxy {
  private readonly pairs = new Set<Pair>();
  private holdAfter: string | undefined;
  private refusing = 0;
  private watchers: { text: string; resolve: () => void }[] = [];
  /** Connections cut at once on arrival (see refuseNext). */
  refused = 0;
  /** Connections forwarded so far. */
  accepted = 0;

  private constructor(
    private readonly server: net.Server,
    readonly socket: string,
  ) {}

  /** Listens on `dir`/proxy.sock (a private directory is made), with the daemon's token beside it. */
  static async start(target: string, dir: string): Promise<SocketProxy> {
    const home = path.join(dir, 'proxy');
    fs.mkdirSync(home, { mode: 0o700 });
    const socket = path.join(home, 'proxy.sock');
    fs.copyFileSync(tokenPathFor(target), tokenPathFor(socket));
    fs.chmodSync(tokenPathFor(socket), 0o600);
    const server = net.createServer();
    const proxy = new SocketProxy(server, socket);
    server.on('connection', (client) => proxy.accept(client, target));
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    return proxy;
  }

  /**
   * Once a client sends bytes holding `text` (e.g. a request's method), what the daemon sends it is
   * kept back, from then until release() (then sent in order).
   */
  holdAnswerTo(text: string): void {
    this.holdAfter = text;
  }

  release(): void {
    this.holdAfter = undefined;
    for (const pair of this.pairs) pair.holding = false;
    for (const pair of this.pairs)
      for (const chunk of pair.held.splice(0)) if (!pair.client.destroyed) pair.client.write(chunk);
  }

  /** Cuts every connection (what was held is lost with it). */
  drop(): void {
    for (const pair of this.pairs) {
      pair.client.destroy();
      pair.upstream.destroy();
    }
    this.pairs.clear();
  }

  /** The next `count` connections are cut as soon as they arrive. */
  refuseNext(count: number): void {
    this.refusing += count;
  }

  /** Resolves when a client sends bytes holding `text` (e.g. a request's method). */
  sent(text: string): Promise<void> {
    return new Promise((resolve) => this.watchers.push({ text, resolve }));
  }

  close(): Promise<void> {
    this.drop();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket, target: string): void {
    if (this.refusing > 0) {
      this.refusing--;
      this.refused++;
      client.destroy();
      return;
    }
    this.accepted++;
    const upstream = net.createConnection(target);
    const pair: Pair = { client, upstream, held: [], holding: false };
    this.pairs.add(pair);
    const end = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk: Buffer) => {
      if (!upstream.destroyed) upstream.write(chunk);
      const text = chunk.toString('latin1');
      if (this.holdAfter && text.includes(this.holdAfter)) pair.holding = true;
      const met = this.watchers.filter((w) => text.includes(w.text));
      this.watchers = this.watchers.filter((w) => !met.includes(w));
      for (const w of met) w.resolve();
    });
    upstream.on('data', (chunk: Buffer) => {
      if (pair.holding) pair.held.push(chunk);
      else if (!client.destroyed) client.write(chunk);
    });
    for (const s of [client, upstream]) {
      s.on('error', () => undefined); // 'close' follows
      s.on('close', end);
    }
  }
}
