// What an MCP client may see and do: all sessions, or only those named with --sessions (ids,
// names, and "workspace": sessions started under the server's directory or recorded by a VS Code window
// of that workspace), plus the ones it started. A host's sessions are named "@HOST/ID" or "@HOST/NAME"
// (src/link/sessionKey.ts): each host gets Rights of its own, of its entries alone (`forHost`), and this machine's
// never reach a host's session, nor a host's this machine's ("workspace" is this machine's directory only).
// A session outside the set is never listed, read or acted on, and is refused with the same
// words as one that does not exist, so a refusal tells nothing about it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WORKSPACE_KEYWORD } from '../host/bundles';
import type { SessionInfo } from '../protocol/messages';
import { readLayout } from '../protocol/tabLayout';
import { parseKey, remoteKey } from '../link/sessionKey';

export class RefusedError extends Error {}

export interface RightsOptions {
  readOnly: boolean;
  /** undefined: every session; else the --sessions entries (ids, names, "workspace"). */
  sessions: string[] | undefined;
  /** The server's directory: the root of "workspace". */
  cwd: string;
  /** $HOLDFAST_SESSION: the session the agent itself runs in, if it runs in one. */
  self?: string;
}

/** Whether `dir` is `root` or inside it (paths compared as resolved, no symlinks followed). */
export function isUnder(dir: string, root: string): boolean {
  const d = path.resolve(dir);
  const r = path.resolve(root);
  return d === r || d.startsWith(r.endsWith(path.sep) ? r : r + path.sep);
}

/** The workspace a VS Code window recorded in the session (a file: URI), as a path. */
function workspacePath(info: SessionInfo): string | undefined {
  const key = readLayout(info.metadata).workspace;
  if (!key?.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(key);
  } catch {
    return undefined; // not a local file URI (a remote window's): not this machine's directory
  }
}

export class Rights {
  readonly readOnly: boolean;
  private readonly named: Set<string> | undefined;
  private readonly roots: string[] = [];
  private readonly started = new Set<string>();
  private readonly self: string | undefined;
  /** The --sessions entries that name other hosts' sessions ("@HOST/REF"), for `describe`. */
  private readonly elsewhere: string[];

  /** This machine's rights; with `host`, that host's: its "@HOST/REF" entries, no workspace, no self. */
  constructor(
    private readonly options: RightsOptions,
    private readonly host?: string,
  ) {
    this.readOnly = options.readOnly;
    const entries = options.sessions;
    this.elsewhere = host === undefined ? (entries ?? []).filter((s) => parseKey(s).host !== undefined) : [];
    if (host !== undefined) {
      this.named = entries && new Set(entries.map(parseKey).flatMap((k) => (k.host === host && k.id ? [k.id] : [])));
      return;
    }
    this.self = options.self || undefined;
    if (entries === undefined) return;
    this.named = new Set(entries.filter((s) => s !== WORKSPACE_KEYWORD && parseKey(s).host === undefined));
    if (entries.includes(WORKSPACE_KEYWORD)) {
      this.roots.push(path.resolve(options.cwd));
      // The same directory through its symlinks (e.g. /tmp vs /private/tmp) counts too.
      const real = fs.realpathSync.native(options.cwd);
      if (real !== this.roots[0]) this.roots.push(real);
    }
  }

  /** Limited to a set of sessions (--sessions). */
  get restricted(): boolean {
    return this.named !== undefined;
  }

  /** The rights of the same command line on `host`'s sessions. */
  forHost(host: string): Rights {
    return new Rights(this.options, host);
  }

  /** Restricted to a set that names nothing and started nothing: a host of it need not be asked. */
  get reachesNothing(): boolean {
    return this.named?.size === 0 && this.roots.length === 0 && this.started.size === 0;
  }

  /** Says what the set is, for the server's instructions. */
  describe(): string {
    if (!this.named) return 'every session of the daemon';
    const parts = [...this.named, ...this.elsewhere].map((s) => JSON.stringify(s));
    if (this.roots.length > 0) parts.push(`sessions under ${this.roots[0]}`);
    parts.push('the sessions you start');
    return parts.join(', ');
  }

  /** A session started through this server: it is in the set from now on. */
  addStarted(id: string): void {
    this.started.add(id);
  }

  /**
   * The ids a credential of this server names: the visible sessions; for what start_session starts, not
   * the one the agent runs in, so `holdfast send` run there cannot type into the agent itself.
   */
  credentialSessions(sessions: readonly SessionInfo[], forStarted: boolean): string[] {
    return sessions.filter((s) => this.visible(s) && !(forStarted && s.id === this.self)).map((s) => s.id);
  }

  /** Typing into or killing the session the agent runs in would feed or end the agent itself. */
  assertMayAct(info: SessionInfo): void {
    if (info.id === this.self)
      throw new RefusedError(`session ${info.id} is the one you run in: it can be read, not typed into or killed`);
  }

  visible(info: SessionInfo): boolean {
    if (!this.named || this.started.has(info.id)) return true;
    if (this.named.has(info.id) || this.named.has(info.name)) return true;
    // Where its client started it and the workspace a window recorded, never `cwd`: a program moves that
    // with an OSC 7. An older daemon tells no start directory: only the recorded workspace counts then.
    const workspace = workspacePath(info);
    const started = info.startCwd;
    return this.roots.some(
      (root) =>
        (started !== undefined && isUnder(started, root)) || (workspace !== undefined && isUnder(workspace, root)),
    );
  }

  /**
   * The visible session `ref` names: an exact id, else a unique name among the visible ones.
   * Resolved here, not by the daemon, so a name shared with a hidden session still works and an
   * invisible one cannot be reached.
   */
  resolve(sessions: readonly SessionInfo[], ref: string): SessionInfo {
    const visible = sessions.filter((s) => this.visible(s));
    const byId = visible.find((s) => s.id === ref);
    if (byId) return byId;
    const byName = visible.filter((s) => s.name === ref);
    if (byName.length === 1) return byName[0];
    const key = (id: string) => (this.host === undefined ? id : remoteKey(this.host, id));
    if (byName.length > 1)
      throw new RefusedError(
        `the name "${key(ref)}" is shared by sessions ${byName.map((s) => key(s.id)).join(', ')}: give an id`,
      );
    throw new RefusedError(`no session "${key(ref)}" (list_sessions shows the sessions you can use)`);
  }
}
