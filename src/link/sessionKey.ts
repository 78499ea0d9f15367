// What names a session across hosts, in a window and in `holdfast mcp`: this machine's by its id, a host's by its
// host and id together ("@HOST/ID"), so a host's session can never be taken for one of this machine's (nor of
// another host) whatever id it claims.

/** A host's session: "@HOST/ID", the host's name encoded (it may hold "/"); this machine's ids never start with "@". */
export function remoteKey(host: string, id: string): string {
  return `@${encodeURIComponent(host)}/${id}`;
}

/** The host (none: this machine) and the daemon's id of a session key. */
export function parseKey(key: string): { host?: string; id: string } {
  if (!key.startsWith('@')) return { id: key };
  const slash = key.indexOf('/');
  if (slash < 0) return { host: '', id: '' }; // no session of any host
  try {
    return { host: decodeURIComponent(key.slice(1, slash)), id: key.slice(slash + 1) };
  } catch {
    return { host: '', id: '' };
  }
}

/** Picks the session keys of one host (undefined: this machine). */
export function onHost(host: string | undefined): (key: string) => boolean {
  return (key) => parseKey(key).host === host;
}
