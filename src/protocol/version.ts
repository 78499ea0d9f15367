// This build's version, and which protocols its two ends speak: a client speaks to a daemon whose hello says a
// protocol from OLDEST_DAEMON_PROTOCOL up; a daemon serves clients from OLDEST_CLIENT_PROTOCOL up. Anything outside
// is one line naming both versions (ProtocolMismatchError), never a schema error about a field.
import { oneLine, printable } from '../text/printable';
import { PROTOCOL_VERSION } from './messages';

// Filled in by the bundler from package.json; "dev" when run unbundled (tests compiled by tsc).
declare const HOLDFAST_VERSION: string | undefined;
export const VERSION: string = typeof HOLDFAST_VERSION === 'string' ? HOLDFAST_VERSION : 'dev';

/** The oldest daemon protocol this client speaks to. */
export const OLDEST_DAEMON_PROTOCOL = 1;
/** The oldest client protocol this daemon serves. */
export const OLDEST_CLIENT_PROTOCOL = 1;

/** Which end is out of range: the daemon is older than this client speaks to, or newer than it can serve us. */
export type MismatchSide = 'daemon-too-old' | 'daemon-too-new';

/** The daemon and this client share no protocol: the line says both versions; callers add the fix. */
export class ProtocolMismatchError extends Error {
  constructor(
    readonly side: MismatchSide,
    /** The daemon's protocol and its version, as its hello or Error frame said (its text: made printable here). */
    readonly daemonProtocol: number,
    readonly daemonVersion: string,
    where = 'the daemon',
  ) {
    super(mismatchLine(side, daemonProtocol, daemonVersion, where));
  }

  /** The same mismatch, said of `where` ("the daemon on H") and ending with `fix`. */
  about(where: string, fix: string): ProtocolMismatchError {
    const named = new ProtocolMismatchError(this.side, this.daemonProtocol, this.daemonVersion, where);
    named.message = `${named.message}: ${fix}`;
    return named;
  }
}

function mismatchLine(side: MismatchSide, protocol: number, version: string, where: string): string {
  const named = printable(oneLine(version)).slice(0, 64) || '(of no version it says)';
  const theirs = `${where} is holdfast ${named} (protocol ${protocol})`;
  return side === 'daemon-too-old'
    ? `${theirs}, older than this holdfast ${VERSION} speaks to ` +
        `(protocol ${OLDEST_DAEMON_PROTOCOL} to ${PROTOCOL_VERSION})`
    : `${theirs}, too new to serve this holdfast ${VERSION} (protocol ${PROTOCOL_VERSION})`;
}

/**
 * Dotted versions compared numerically (0.10.0 after 0.9.1): negative when `a` is older; undefined when either is
 * not one (a dev build), so no one is told to upgrade on a guess.
 */
export function compareVersions(a: string, b: string): number | undefined {
  const parse = (v: string) => /^(\d+)\.(\d+)\.(\d+)/.exec(v)?.slice(1, 4).map(Number);
  const [x, y] = [parse(a), parse(b)];
  if (!x || !y) return undefined;
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
}
