// How a client reaches one daemon: this machine's, over its socket, or a host's, over one ssh process to that host's
// `holdfast bridge`. Every connection of a CLI command, of `holdfast mcp` and of a reconnect goes through a link.
import { HoldfastClient, NoDaemonError, RequestError } from '../client/client';
import { connectOptions } from '../client/clientOptions';
import { daemonScriptPath } from '../host/bundles';
import { connectOrStart } from '../client/launch';
import { oneLine, printable } from '../text/printable';
import { ProtocolMismatchError, VERSION } from '../protocol/version';
import { NO_DAEMON_CODE } from './bridge';
import { DEFAULT_HOST_TIMEOUT_MS, type HostEntry, hostName, LOCAL_HOST } from './hosts';
import { SshFailure } from './sshFailure';
import { SshStream } from './sshStream';

export interface LinkConnectOptions {
  /** Start an on-demand daemon when none listens (new, recovery restore, start_session). */
  start?: boolean;
  /** A credential the daemon granted (`grant`) instead of the link's own rights. */
  credential?: string;
  timeoutMs?: number;
}

export interface DaemonLink {
  /** What the HOST column and messages call it: "local", or the host's name. */
  readonly name: string;
  /** The SSH host, for a remote link. */
  readonly host?: HostEntry;
  connect(options?: LinkConnectOptions): Promise<HoldfastClient>;
  /** Why `client`'s connection ended, when the link knows better than the client (ssh's own words). */
  lossOf(client: HoldfastClient): Error | undefined;
}

/** No daemon listens on a host (its bridge said so): exit 6, as for this machine. */
export class NoHostDaemonError extends NoDaemonError {
  constructor(readonly hostName: string) {
    super(`${hostName} (over ssh)`);
    this.message =
      `no Holdfast daemon is listening on ${hostName} ` + `(start one there: \`holdfast new --host ${hostName}\`)`;
  }
}

/** What to do about a daemon of a protocol this client does not share: `host` names a remote one. */
export function mismatchFix(err: ProtocolMismatchError, host?: string): string {
  if (err.side === 'daemon-too-new') return 'update Holdfast on this machine';
  return host ? `\`holdfast host upgrade ${host}\` hands its sessions to this one` : '`holdfast upgrade`';
}

/** This machine's daemon on `socket`; a scoped credential in `env` (HOLDFAST_TOKEN) is used over the token file. */
export function localLink(socket: string, env: NodeJS.ProcessEnv): DaemonLink {
  return {
    name: LOCAL_HOST,
    async connect(options = {}) {
      const connect = { ...connectOptions(socket, env), timeoutMs: options.timeoutMs };
      if (options.credential) connect.credential = options.credential;
      const connecting = options.start
        ? connectOrStart(connect, { daemonScript: daemonScriptPath(), env })
        : HoldfastClient.connect(connect);
      return connecting.catch((err: unknown) => {
        if (err instanceof ProtocolMismatchError) throw err.about(`the daemon on ${socket}`, mismatchFix(err));
        throw err;
      });
    },
    lossOf: () => undefined,
  };
}

/**
 * A host's daemon, through one ssh process per connection. This machine's HOLDFAST_TOKEN is never sent: it is a
 * credential of the daemon here. What failed is said in one line: ssh's (host key, login, network), the bridge's
 * (no daemon there), or the handshake's (a remote that does not answer).
 */
export function sshLink(host: HostEntry, env: NodeJS.ProcessEnv, client = 'cli'): DaemonLink {
  const name = hostName(host);
  const streams = new WeakMap<HoldfastClient, SshStream>();
  return {
    name,
    host,
    async connect(options = {}) {
      let stream: SshStream | undefined;
      const timeoutMs = options.timeoutMs ?? host.timeoutMs ?? DEFAULT_HOST_TIMEOUT_MS;
      try {
        const connected = await HoldfastClient.connect({
          socket: `${name} (over ssh)`,
          client,
          version: VERSION,
          credential: options.credential,
          timeoutMs,
          transport: () => (stream = new SshStream(host, env, { start: options.start })),
        });
        streams.set(connected, stream!);
        return connected;
      } catch (err) {
        throw hostError(name, err, stream, timeoutMs);
      }
    },
    lossOf: (connected) => streams.get(connected)?.failure,
  };
}

/** The one line a failed connection to a host ends with. */
function hostError(name: string, err: unknown, stream: SshStream | undefined, timeoutMs: number): Error {
  stream?.destroy();
  if (err instanceof ProtocolMismatchError) return err.about(`the daemon on ${name}`, mismatchFix(err, name));
  // The bridge spoke the protocol (an Error frame): its own words, or "no daemon there".
  if (err instanceof RequestError)
    return err.code === NO_DAEMON_CODE
      ? new NoHostDaemonError(name)
      : new RequestError(err.code, `${name}: ${printable(oneLine(err.message))}`);
  if (stream?.failure) return stream.failure;
  // ssh still ran: the far end said nothing in time, or something that is not a daemon's hello.
  const why = printable(oneLine(err instanceof Error ? err.message : String(err)));
  return new SshFailure(
    why.endsWith('did not answer the handshake') ? `${why} within ${timeoutMs} ms` : why,
    'transient',
  );
}
