// Connecting again after a connection dropped: across a handoff (`holdfast upgrade`: the old daemon lets its clients
// go once the successor serves the same socket), a lost ssh connection or a network that comes back. One policy for
// every client that outlives its connection (attach, wait, `holdfast mcp`).
import { type HoldfastClient, NoDaemonError, RequestError } from '../client/client';
import { ErrorCode } from '../protocol/messages';
import { UntrustedEndpointError } from '../host/endpointTrust';
import type { DaemonLink, LinkConnectOptions } from './daemonLink';
import { SshFailure } from './sshFailure';
import { ProtocolMismatchError } from '../protocol/version';
import { oneLine, printable } from '../text/printable';

/** The pauses between attempts: a daemon that is there answers the first; the last repeats. */
export const RECONNECT_DELAYS_MS = [50, 100, 250, 500, 1000, 2000, 5000];

/**
 * No daemon on the socket this long after the drop: it is gone, and its sessions with it (a successor takes the
 * socket before the old daemon lets go of its clients, so a handoff never leaves it empty).
 */
export const DAEMON_GONE_AFTER_MS = 10_000;

export interface ReconnectOptions {
  /** Stops trying (the user detached, the call was cancelled): rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Each failed attempt, with why (the first is the drop itself, said before any attempt). */
  onRetry?(attempt: number, error: Error): void;
  /** Give up after this long, whatever the failures (a wait's own timeout); default: never while they may pass. */
  deadline?: number;
  connect?: LinkConnectOptions;
}

/** Whether an attempt's failure can pass by itself: a host key, a login, a token or a trust refusal stays. */
export function mayPass(err: unknown): boolean {
  if (err instanceof SshFailure) return err.kind === 'transient';
  if (err instanceof UntrustedEndpointError || err instanceof ProtocolMismatchError) return false;
  if (err instanceof RequestError)
    return err.code !== ErrorCode.Auth && err.code !== ErrorCode.Protocol && err.code !== ErrorCode.Forbidden;
  return true;
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A new connection through `link`, tried until one is made; rejects with the last failure when it cannot pass, when
 * no daemon has answered for DAEMON_GONE_AFTER_MS, or at the deadline.
 */
export async function reconnect(link: DaemonLink, options: ReconnectOptions = {}): Promise<HoldfastClient> {
  const { signal, deadline = Infinity } = options;
  let noDaemonSince: number | undefined;
  for (let attempt = 1; ; attempt++) {
    await pause(RECONNECT_DELAYS_MS[Math.min(attempt - 1, RECONNECT_DELAYS_MS.length - 1)], signal);
    try {
      const client = await link.connect(options.connect);
      if (!signal?.aborted) return client;
      client.close();
      throw signal.reason as Error;
    } catch (err) {
      if (signal?.aborted) throw signal.reason as Error;
      const now = Date.now();
      if (err instanceof NoDaemonError) noDaemonSince ??= now;
      else noDaemonSince = undefined;
      const gone = noDaemonSince !== undefined && now - noDaemonSince >= DAEMON_GONE_AFTER_MS;
      if (gone || !mayPass(err) || now >= deadline) throw err;
      options.onRetry?.(attempt, err as Error);
    }
  }
}

/** Why a connection ended, as the link knows it (ssh's own words) or the client does. */
export function lossReason(link: DaemonLink, client: HoldfastClient, error: Error | undefined): Error {
  return (
    link.lossOf(client) ??
    error ??
    new Error(`the connection to ${link.name === 'local' ? 'the daemon' : link.name} closed`)
  );
}

/** The one line a client says when its connection is lost, before it reconnects. */
export function lostLine(link: DaemonLink, reason: Error): string {
  const where = link.host ? link.name : 'the daemon';
  return `the connection to ${where} was lost (${printable(oneLine(reason.message))}); reconnecting…`;
}

export interface RidingOptions {
  /** Says the loss, once per drop, before reconnecting. */
  say(line: string): void;
  signal?: AbortSignal;
  /** No reconnect after this (the caller's own timeout). */
  deadline?: number;
}

/**
 * Runs `fn` on a connection through `link` and, when the connection is lost under it (a handoff, ssh gone), says so,
 * reconnects and runs it again: for requests that may be asked twice (a wait, a read). A refusal is thrown as it is.
 */
export async function riding<T>(
  link: DaemonLink,
  fn: (client: HoldfastClient) => Promise<T>,
  options: RidingOptions,
): Promise<T> {
  let client = await link.connect();
  try {
    for (;;) {
      let lost: Error | undefined;
      const closed = client.onClose((error) => (lost = lossReason(link, client, error)));
      try {
        return await fn(client);
      } catch (err) {
        if (!client.isClosed || err instanceof RequestError) throw err;
        options.say(lostLine(link, lost ?? (err as Error)));
      } finally {
        closed.dispose();
      }
      client = await reconnect(link, { signal: options.signal, deadline: options.deadline });
    }
  } finally {
    client.close();
  }
}
