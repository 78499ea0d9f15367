// `holdfast list --all-hosts`: this machine's sessions and every configured host's, asked at once, each host bounded
// by its own timeout, so one that hangs or refuses costs its line and never the others'.
import { SCOPE_TOKEN_ENV } from '../host/endpointTrust';
import { type HoldfastClient, NoDaemonError } from '../client/client';
import type { SessionInfo } from '../protocol/messages';
import { type DaemonLink, localLink, sshLink } from '../link/daemonLink';
import { DEFAULT_HOST_TIMEOUT_MS, hostName, readHosts } from '../link/hosts';
import { oneLine, printable } from '../text/printable';
import type { CommandResult, Context } from './command';
import { ExitCode } from './errors';
import { SESSION_COLUMNS, sessionRow, table } from './output';

export interface HostListing {
  host: string;
  sessions: SessionInfo[];
  /** Why this host's sessions are not listed: ssh's line, the bridge's, or the timeout. */
  error?: string;
}

/** The list of one daemon, within `timeoutMs` from the start of the connection to the answer. */
async function listOne(link: DaemonLink, timeoutMs: number): Promise<HostListing> {
  let client: HoldfastClient | undefined;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${link.name} did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  const asked = (async () => {
    client = await link.connect({ timeoutMs });
    return (await client.request('list', {})).sessions;
  })();
  asked.catch(() => undefined); // a late failure, after the timeout said why
  try {
    return { host: link.name, sessions: await Promise.race([asked, late]) };
  } catch (err) {
    // No daemon there is a host with no sessions, not a failure: the on-demand daemon leaves with its last one.
    if (err instanceof NoDaemonError) return { host: link.name, sessions: [] };
    return { host: link.name, sessions: [], error: printable(oneLine((err as Error).message)) };
  } finally {
    clearTimeout(timer);
    // A connection still waiting is ended with its ssh; one that connects after the timeout is closed then.
    client?.close();
    void asked.then(
      () => client?.close(),
      () => undefined,
    );
  }
}

export async function listAllHosts(ctx: Context): Promise<CommandResult> {
  const hosts = readHosts(ctx.env);
  const scoped = Boolean(ctx.env[SCOPE_TOKEN_ENV]);
  const listings = await Promise.all([
    listOne(localLink(ctx.socket, ctx.env), DEFAULT_HOST_TIMEOUT_MS),
    ...hosts.map((host) =>
      scoped
        ? Promise.resolve<HostListing>({
            host: hostName(host),
            sessions: [],
            error: `this shell has a scoped credential (${SCOPE_TOKEN_ENV}): it reaches no other host`,
          })
        : listOne(sshLink(host, ctx.env), host.timeoutMs ?? DEFAULT_HOST_TIMEOUT_MS),
    ),
  ]);
  const now = Date.now();
  const rows = listings.flatMap((l) => l.sessions.map((s) => [l.host, ...sessionRow(s, now)]));
  const failed = listings.filter((l) => l.error !== undefined);
  const text =
    (rows.length > 0 ? table(['HOST', ...SESSION_COLUMNS], rows) : '') +
    failed.map((l) => `${l.host}: ${l.error}\n`).join('');
  return {
    data: { hosts: listings },
    text,
    note: failed.length > 0 ? `${failed.length} of ${listings.length} hosts failed` : undefined,
    exitCode: failed.length > 0 ? ExitCode.Failed : undefined,
  };
}
