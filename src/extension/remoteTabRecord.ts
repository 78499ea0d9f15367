// Which SSH hosts' sessions this window shows in tabs, kept in the window's workspaceState so that Reload Window and
// an editor restart open them again. This machine's tabs are recorded in their sessions' metadata (protocol/tabLayout)
// because its daemon is this machine's; a host is not: other machines list it too, a workspace path there means
// nothing here, and a window that only looks at a host's session should leave nothing behind on it.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import { z } from 'zod';
import { parseKey } from './sessionKey';

export const REMOTE_TABS_KEY = 'holdfast.remoteTabs';
/** Far more than a user has tabs open; a record of more is cut to its newest. */
export const MAX_REMOTE_TABS = 100;

/** What workspaceState offers (vscode.Memento). */
export interface Memento {
  get(key: string): unknown;
  update(key: string, value: unknown): PromiseLike<void>;
}

/** The stored record, whatever is there: a key is kept only when it names a host's session. */
const recordSchema = z.array(z.unknown()).catch([]);

/** The host session keys in `value` (what workspaceState held), without duplicates, the newest MAX_REMOTE_TABS. */
export function readRemoteTabs(value: unknown): string[] {
  const keys = recordSchema
    .parse(value)
    .filter((key): key is string => typeof key === 'string' && key.length <= 1000 && isHostKey(key));
  return [...new Set(keys)].slice(-MAX_REMOTE_TABS);
}

function isHostKey(key: string): boolean {
  const { host, id } = parseKey(key);
  return !!host && !!id;
}

export class RemoteTabRecord {
  private keys: string[];

  constructor(private readonly state: Memento) {
    this.keys = readRemoteTabs(state.get(REMOTE_TABS_KEY));
  }

  /** The recorded keys of `host`'s sessions, in the order they were opened. */
  of(host: string): string[] {
    return this.keys.filter((key) => parseKey(key).host === host);
  }

  add(key: string): void {
    if (!isHostKey(key)) return;
    this.write([...this.keys.filter((k) => k !== key), key].slice(-MAX_REMOTE_TABS));
  }

  remove(key: string): void {
    if (this.keys.includes(key)) this.write(this.keys.filter((k) => k !== key));
  }

  private write(keys: string[]): void {
    this.keys = keys;
    // A failed write loses only what the next reload reopens.
    Promise.resolve(this.state.update(REMOTE_TABS_KEY, keys)).catch(() => undefined);
  }
}
