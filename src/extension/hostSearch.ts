// *Search Sessions…* over this machine's daemon and every SSH host the window follows (remoteHosts.ts), each over
// the connection the window already keeps: one answer per place, each as soon as it is in, a host's checked
// (src/link/remoteSearch.ts) and bounded by its timeout, so a slow or mute host never holds this machine's matches.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import type { HoldfastClient } from '../client/client';
import { askWithin, type HostAnswer } from '../link/hostFanout';
import { DEFAULT_HOST_TIMEOUT_MS, LOCAL_HOST } from '../link/hosts';
import { remoteSearchResult } from '../link/remoteSearch';
import { SearchLimit } from '../protocol/limits';
import type { SearchParams, SearchResult } from '../protocol/messages';
import { oneLine, printable } from '../text/printable';
import type { RemoteHost } from './remoteHosts';

const NONE: SearchResult = { matches: [], truncated: false };

/** The search here (host "local") and on each host, in that order, each its own promise that never rejects. */
export function searchEveryHost(
  local: () => Promise<HoldfastClient>,
  hosts: readonly RemoteHost[],
  params: SearchParams,
): Promise<HostAnswer<SearchResult>>[] {
  const limit = params.limit ?? SearchLimit.DefaultMatches;
  const here = (async (): Promise<HostAnswer<SearchResult>> => {
    try {
      return { host: LOCAL_HOST, value: await (await local()).request('search', params) };
    } catch (err) {
      return { host: LOCAL_HOST, error: printable(oneLine((err as Error).message)) };
    }
  })();
  const there = hosts.map((host) =>
    askWithin(host.name, host.entry.timeoutMs ?? DEFAULT_HOST_TIMEOUT_MS, NONE, async () => {
      // The window's connection to the host: a host that is not connected says why, in its section's words.
      const client = await host.connection.get();
      return remoteSearchResult(await client.request('search', params), limit);
    }),
  );
  return [here, ...there];
}
