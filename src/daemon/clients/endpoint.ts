// Socket ownership: who may bind, replace or remove the canonical socket path. All of it is here.
// Rules (each learned from a daemon that lost its socket to a racing starter or a stale file):
//  - only a connected answer proves the endpoint is taken; refused or missing proves it free;
//    a timeout or EPERM proves nothing: fail rather than guess;
//  - publish by binding a private name and renaming it onto the canonical path in one step;
//  - never unlink the canonical path, not even on shutdown;
//  - takeovers are serialized by a lock directory, so two starters never both replace a stale path.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { DisposableStore, disposeAll, Emitter, type IDisposable, toDisposable } from '../../base/disposable';
import { ensureSocketDir, readTokenFile, UntrustedEndpointError } from '../../host/endpointTrust';
import { tokenPathFor } from '../../host/paths';

export type Probe = { state: 'connected' } | { state: 'free'; reason: string } | { state: 'unknown'; reason: string };

export function probeEndpoint(socketPath: string, timeoutMs = 2000): Promise<Probe> {
  return new Promise((resolve) => {
    const socket = net.createConnection(socketPath);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ state: 'unknown', reason: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ state: 'connected' });
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED') resolve({ state: 'free', reason: err.code });
      else resolve({ state: 'unknown', reason: err.code ?? err.message });
    });
  });
}

export class EndpointError extends Error {}

/** The shared secret clients present in their hello: created once per socket path, 0600, kept across daemons. */
export function ensureToken(socketPath: string): string {
  const tokenPath = tokenPathFor(socketPath);
  const existing = readToken(socketPath);
  if (existing) return existing;
  const temp = `${tokenPath}.${randomBytes(6).toString('hex')}`;
  fs.writeFileSync(temp, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  try {
    fs.linkSync(temp, tokenPath); // exclusive: racing starters end up sharing one token
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.unlinkSync(temp);
  }
  const token = readToken(socketPath);
  if (!token) throw new EndpointError(`cannot read the token file ${tokenPath}`);
  return token;
}

function readToken(socketPath: string): string | undefined {
  const check = readTokenFile(socketPath);
  if (check.state === 'unsafe') throw new EndpointError(new UntrustedEndpointError(check).message);
  return check.token;
}

export function tokensMatch(expected: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

const LOCK_STALE_MS = 10_000;
const LOCK_WAIT_MS = 15_000;

/** A lock directory next to the socket; mkdir is atomic, so one holder at a time. */
async function withTakeoverLock<T>(socketPath: string, fn: () => Promise<T>): Promise<T> {
  const lock = `${socketPath}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
    try {
      fs.mkdirSync(lock, { mode: 0o700 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > LOCK_STALE_MS) {
      // Left by a starter that died mid-takeover: move it aside (atomic; one breaker wins) and retry.
      const aside = `${lock}.stale-${randomBytes(4).toString('hex')}`;
      try {
        fs.renameSync(lock, aside);
        fs.rmdirSync(aside);
      } catch {
        // someone else broke it first
      }
      continue;
    }
    if (Date.now() > deadline)
      throw new EndpointError(`timed out waiting for ${lock} (remove it if no Holdfast daemon is starting)`);
    await new Promise((r) => setTimeout(r, delay));
  }
  try {
    return await fn();
  } finally {
    fs.rmdirSync(lock);
  }
}

function listen(server: net.Server, socketPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export type ClaimResult = { kind: 'owner'; endpoint: Endpoint } | { kind: 'taken' };

/** Owns the canonical socket path while this daemon serves it. */
export class Endpoint implements IDisposable {
  private readonly disposables = new DisposableStore();
  private readonly servers = new Set<net.Server>();
  private inode = 0;
  private republishing = false;
  private readonly onLostEmitter = new Emitter<string>();
  /** The canonical path no longer leads to us (another daemon took it, or it was removed and could not be re-taken). */
  readonly onLost = this.onLostEmitter.event;

  private constructor(
    readonly socketPath: string,
    readonly token: string,
    private readonly onConnection: (socket: net.Socket) => void,
    private readonly log: (line: string) => void,
  ) {}

  /** `from`: the pid of the daemon this one succeeds, whose socket it takes over (the same way, by a rename). */
  static async claim(
    socketPath: string,
    onConnection: (socket: net.Socket) => void,
    log: (line: string) => void,
    from?: number,
  ): Promise<ClaimResult> {
    ensureSocketDir(socketPath);
    const token = ensureToken(socketPath);
    const endpoint = new Endpoint(socketPath, token, onConnection, log);
    const published = await endpoint.publish(from);
    if (!published) {
      endpoint.dispose();
      return { kind: 'taken' };
    }
    endpoint.watch();
    return { kind: 'owner', endpoint };
  }

  /**
   * Binds a private name and renames it onto the canonical path, unless a live daemon holds it (one
   * this daemon succeeds, `predecessor`, is replaced: it hands over and exits).
   */
  private async publish(predecessor?: number): Promise<boolean> {
    const dir = path.dirname(this.socketPath);
    const privatePath = path.join(dir, `.${path.basename(this.socketPath)}.p${randomBytes(6).toString('hex')}`);
    const server = net.createServer({ allowHalfOpen: false, pauseOnConnect: false }, this.onConnection);
    await listen(server, privatePath);
    fs.chmodSync(privatePath, 0o600);
    const published = await withTakeoverLock(this.socketPath, async () => {
      const probe = predecessor === undefined ? await probeEndpoint(this.socketPath) : undefined;
      if (probe === undefined) this.log(`taking over ${this.socketPath} from daemon ${predecessor}`);
      else if (probe.state === 'connected') return false;
      else if (probe.state === 'unknown')
        throw new EndpointError(
          `cannot tell whether a daemon owns ${this.socketPath} (${probe.reason}); refusing to replace it`,
        );
      fs.renameSync(privatePath, this.socketPath);
      this.inode = fs.statSync(this.socketPath).ino;
      return true;
    }).catch((err) => {
      server.close();
      throw err;
    });
    if (!published) {
      server.close(); // unlinks only the private name
      return false;
    }
    this.servers.add(server);
    this.disposables.add(toDisposable(() => server.close()));
    this.log(`serving ${this.socketPath}`);
    return true;
  }

  /**
   * Notices when the canonical path stops leading here; inotify, so no periodic wakeups. Only in a
   * private directory: in a shared one (a --socket under /tmp) every other file would wake us.
   */
  private watch(): void {
    const dir = path.dirname(this.socketPath);
    if (((fs.statSync(dir).mode ?? 0) & 0o077) !== 0) return;
    let watcher: fs.FSWatcher;
    try {
      watcher = fs.watch(dir, { persistent: false }, (_event, file) => {
        if (file === null || file === path.basename(this.socketPath)) this.check();
      });
    } catch (err) {
      this.log(`cannot watch ${dir}: ${(err as Error).message}`);
      return;
    }
    watcher.on('error', () => undefined);
    this.disposables.add(toDisposable(() => watcher.close()));
  }

  get ownsPath(): boolean {
    return fs.statSync(this.socketPath, { throwIfNoEntry: false })?.ino === this.inode;
  }

  private check(): void {
    if (this.disposables.isDisposed || this.republishing || this.ownsPath) return;
    this.republishing = true;
    this.log(`the socket path ${this.socketPath} no longer leads to this daemon`);
    this.publish()
      .then((ok) => {
        if (ok) this.log('re-published the socket path');
        else this.onLostEmitter.fire('another daemon serves the socket path now');
      })
      .catch((err) => this.onLostEmitter.fire((err as Error).message))
      .finally(() => (this.republishing = false));
  }

  dispose(): void {
    disposeAll([this.disposables, this.onLostEmitter]);
  }
}
