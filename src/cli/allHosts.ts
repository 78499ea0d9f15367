// `--all-hosts` of `list` and `grep`: this machine's daemon and every configured host's, asked at once, each host
// bounded by its own timeout (src/link/hostFanout.ts), so one that hangs or refuses costs its line and never the
// others'. What a host answers is checked before it is printed (src/link/remoteSessions.ts, remoteSearch.ts).
import type { HoldfastClient } from '../client/client';
import type { SessionInfo } from '../protocol/messages';
import { type DaemonLink, localLink, sshLink } from '../link/daemonLink';
import { askWithin, type HostAnswer, onLink, SCOPED_NO_HOST, scopedEnv } from '../link/hostFanout';
import { DEFAULT_HOST_TIMEOUT_MS, hostName, readHosts } from '../link/hosts';
import { remoteSessionList } from '../link/remoteSessions';
import type { CommandResult, Context } from './command';
import { ExitCode } from './errors';
import { SESSION_COLUMNS, sessionRow, table } from './output';

export interface HostListing {
  host: string;
  sessions: SessionInfo[];
  /** Why this host's sessions are not listed: ssh's line, the bridge's, or the timeout. */
  error?: string;
}

/**
 * `ask` on this machine's daemon and on every host of config.json, in parallel, in that order. A shell with a scoped
 * credential asks no host: each is its one line.
 */
export function askAllHosts<T>(
  ctx: Context,
  none: T,
  ask: (client: HoldfastClient, link: DaemonLink) => Promise<T>,
): Promise<HostAnswer<T>[]> {
  const hosts = readHosts(ctx.env);
  const scoped = scopedEnv(ctx.env);
  const one = (link: DaemonLink, timeoutMs: number) =>
    askWithin(link.name, timeoutMs, none, (signal) => onLink(link, timeoutMs, signal, (c) => ask(c, link)));
  return Promise.all([
    one(localLink(ctx.socket, ctx.env), DEFAULT_HOST_TIMEOUT_MS),
    ...hosts.map((host) =>
      scoped
        ? Promise.resolve<HostAnswer<T>>({ host: hostName(host), error: SCOPED_NO_HOST })
        : one(sshLink(host, ctx.env), host.timeoutMs ?? DEFAULT_HOST_TIMEOUT_MS),
    ),
  ]);
}

/** The hosts that failed, one `NAME: LINE` each, as every --all-hosts output ends. */
export function failedLines(answers: readonly HostAnswer<unknown>[]): string {
  return answers
    .filter((a) => a.error !== undefined)
    .map((a) => `${a.host}: ${a.error}\n`)
    .join('');
}

/** "2 of 3 hosts failed", or nothing. */
export function failedNote(answers: readonly HostAnswer<unknown>[]): string | undefined {
  const failed = answers.filter((a) => a.error !== undefined).length;
  return failed > 0 ? `${failed} of ${answers.length} hosts failed` : undefined;
}

export async function listAllHosts(ctx: Context): Promise<CommandResult> {
  const answers = await askAllHosts(ctx, [] as SessionInfo[], async (client, link) => {
    const { sessions } = await client.request('list', {});
    return link.host ? remoteSessionList(sessions) : sessions;
  });
  const listings: HostListing[] = answers.map(({ host, value, error }) =>
    error === undefined ? { host, sessions: value ?? [] } : { host, sessions: [], error },
  );
  const now = Date.now();
  const rows = listings.flatMap((l) => l.sessions.map((s) => [l.host, ...sessionRow(s, now)]));
  const note = failedNote(answers);
  return {
    data: { hosts: listings },
    text: (rows.length > 0 ? table(['HOST', ...SESSION_COLUMNS], rows) : '') + failedLines(answers),
    note,
    exitCode: note ? ExitCode.Failed : undefined,
  };
}
