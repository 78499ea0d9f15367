// Other hosts' sessions in `holdfast mcp` run on this machine: list_sessions and search_history ask this machine and
// every host of config.json the rights reach, at once, each host within its timeout; a tool given "@HOST/ID" (or
// "@HOST/NAME", src/link/sessionKey.ts) acts on that host's session. The scope is this server's command line: on a
// host, whose bridge gives the server the host user's full rights, the server asks that host's daemon for a
// credential of the host's sessions in the scope and makes its requests with it, as it does here (mcpTool.ts).
import { NoDaemonError } from '../client/client';
import { sshLink } from '../link/daemonLink';
import { askWithin, type HostAnswer } from '../link/hostFanout';
import { DEFAULT_HOST_TIMEOUT_MS, type HostEntry, hostName, LOCAL_HOST } from '../link/hosts';
import { parseKey, remoteKey } from '../link/sessionKey';
import { oneLine, printable } from '../text/printable';
import { RefusedError } from './mcpRights';
import type { ToolContext } from './mcpTool';

/** Where a tool's session is: this machine's daemon (or the one of `--host`), or a configured host's. */
export interface SessionPlace {
  ctx: ToolContext;
  /** The configured host's name; undefined for the server's own daemon. */
  host?: string;
}

/** One context per configured host, made once (its rights keep what the server started there). */
export function hostContexts(hosts: readonly HostEntry[], ctx: ToolContext): Map<string, ToolContext> {
  return new Map(
    hosts.map((host) => {
      const name = hostName(host);
      return [
        name,
        { link: sshLink(host, ctx.env, 'mcp'), env: ctx.env, cwd: ctx.cwd, rights: ctx.rights.forHost(name) },
      ];
    }),
  );
}

/** The session a tool names: "@HOST/REF" on that host, anything else here; an unknown host as an unknown session. */
export function placeOf(ctx: ToolContext, ref: string): { place: SessionPlace; ref: string } {
  const { host, id } = parseKey(ref);
  if (host === undefined) return { place: { ctx }, ref };
  const there = host === LOCAL_HOST ? undefined : ctx.hosts?.get(host);
  // A host the scope names nothing of is not asked: its sessions are as unknown as a missing one.
  if (!there || !id || there.rights.reachesNothing)
    throw new RefusedError(`no session "${ref}" (list_sessions shows the sessions you can use)`);
  return { place: { ctx: { ...there, signal: ctx.signal, askAgain: ctx.askAgain }, host }, ref: id };
}

/** The id a tool reports for a session of `place`: "@HOST/ID" for a host's. */
export function keyOf(place: SessionPlace, id: string): string {
  return place.host === undefined ? id : remoteKey(place.host, id);
}

export interface Spread<T> {
  answers: { place: SessionPlace; value: T }[];
  /** Hosts that did not answer, each with its one line. */
  failed: { host: string; error: string }[];
}

/**
 * `fn` here and on every host whose sessions the rights may reach, at once. Here as before (a failure is the tool's);
 * with hosts, here is waited for as long as it takes and each host within its timeout, and a failure is a line.
 */
export async function acrossHosts<T>(
  ctx: ToolContext,
  none: T,
  fn: (place: SessionPlace) => Promise<T>,
): Promise<Spread<T>> {
  const hosts = [...(ctx.hosts ?? [])].filter(([, there]) => !there.rights.reachesNothing);
  if (hosts.length === 0) return { answers: [{ place: { ctx }, value: await fn({ ctx }) }], failed: [] };
  const here = fn({ ctx }).then(
    (value): HostAnswer<T> => ({ host: LOCAL_HOST, value }),
    (err: unknown): HostAnswer<T> =>
      err instanceof NoDaemonError
        ? { host: LOCAL_HOST, value: none }
        : { host: LOCAL_HOST, error: printable(oneLine(err instanceof Error ? err.message : String(err))) },
  );
  const places = new Map<string, SessionPlace>([[LOCAL_HOST, { ctx }]]);
  const asked = hosts.map(([host, there]) => {
    const timeoutMs = there.link.host?.timeoutMs ?? DEFAULT_HOST_TIMEOUT_MS;
    return askWithin(host, timeoutMs, none, (done) => {
      const signal = ctx.signal ? AbortSignal.any([done, ctx.signal]) : done;
      const place = { ctx: { ...there, signal, askAgain: ctx.askAgain }, host };
      places.set(host, place);
      return fn(place);
    });
  });
  const all = await Promise.all([here, ...asked]);
  return {
    answers: all.flatMap((a) => (a.error === undefined ? [{ place: places.get(a.host)!, value: a.value as T }] : [])),
    failed: all.flatMap((a) => (a.error === undefined ? [] : [{ host: a.host, error: a.error }])),
  };
}

/** The failed hosts' lines for a tool's text. */
export function failedText(failed: Spread<unknown>['failed']): string {
  return failed.map((f) => `\nhost ${f.host}: ${f.error}`).join('');
}
