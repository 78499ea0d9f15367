// Asking this machine's daemon and every host's at once (`list --all-hosts`, `grep --all-hosts`, MCP's list_sessions
// and search_history): each host within its own timeout, from the start of its connection to its answer, so one
// that hangs or refuses costs its one line and never the others' answers, nor more than its timeout.
import { type HoldfastClient, NoDaemonError } from '../client/client';
import { SCOPE_TOKEN_ENV } from '../host/endpointTrust';
import { oneLine, printable } from '../text/printable';
import type { DaemonLink } from './daemonLink';

/** What one host answered, or why it did not: ssh's line, the bridge's, or the timeout. */
export interface HostAnswer<T> {
  host: string;
  value?: T;
  error?: string;
}

/** Why a shell with a scoped credential asks no host: the credential is this machine's daemon's, not your keys. */
export const SCOPED_NO_HOST = `this shell has a scoped credential (${SCOPE_TOKEN_ENV}): it reaches no other host`;

/** Whether `env` holds a scoped credential (HOLDFAST_TOKEN): then no host is asked. */
export function scopedEnv(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env[SCOPE_TOKEN_ENV]);
}

/**
 * `ask`'s answer within `timeoutMs`, or the one line of why not. `signal` is aborted when the answer is in or the time
 * is up: `ask` closes what it opened then. No daemon there is a host with nothing (`none`), not a failure: the
 * on-demand daemon leaves with its last session.
 */
export async function askWithin<T>(
  host: string,
  timeoutMs: number,
  none: T,
  ask: (signal: AbortSignal) => Promise<T>,
): Promise<HostAnswer<T>> {
  const done = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  const asked = ask(done.signal);
  asked.catch(() => undefined); // a late failure, after the timeout said why
  try {
    return { host, value: await Promise.race([asked, late]) };
  } catch (err) {
    if (err instanceof NoDaemonError) return { host, value: none };
    return { host, error: printable(oneLine(err instanceof Error ? err.message : String(err))) };
  } finally {
    clearTimeout(timer);
    done.abort();
  }
}

/** `fn` on a connection of `link`, closed when `fn` is done or `signal` aborts (one that connects late included). */
export async function onLink<T>(
  link: DaemonLink,
  timeoutMs: number,
  signal: AbortSignal,
  fn: (client: HoldfastClient) => Promise<T>,
): Promise<T> {
  const client = await link.connect({ timeoutMs });
  const close = () => client.close();
  signal.addEventListener('abort', close, { once: true });
  try {
    if (signal.aborted) throw new Error(`${link.name}: connected after its time was up`);
    return await fn(client);
  } finally {
    signal.removeEventListener('abort', close);
    close();
  }
}
