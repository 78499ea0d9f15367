// What a connection may do, checked by the daemon on every request. The token file's token gives
// full rights; a credential minted by `grant` gives what it names: read-only, and/or only a set of
// sessions (plus those started with it, whose environment carries it as HOLDFAST_TOKEN, so `holdfast`
// run inside them has the same scope). A credential is never wider than the connection that asked
// for it, and lives while a connection or a running session holds it.
import { createHash, randomBytes } from 'node:crypto';
import {
  type AttachParams,
  type DaemonEvent,
  ErrorCode,
  type GrantParams,
  type GrantResult,
  type Method,
  type Params,
} from '../../protocol/messages';
import { DaemonError } from '../daemonError';
import { tokensMatch } from './endpoint';
import type { Session } from '../sessions/session';

export enum GrantLimit {
  /** Live credentials of one daemon; each is held by a connection or a session, so real use stays far below. */
  MaxCredentials = 1024,
  /**
   * Live credentials one connection minted: `holdfast mcp` mints one per tool call, on a connection of its
   * own; a connection alone could otherwise take the daemon's whole 1,024 from every other client.
   */
  MaxPerConnection = 32,
}

/** What a request needs: nothing beyond a hello, to read its session, to act on it, or full rights. */
type Need = 'any' | 'read' | 'act' | 'full';

const NEEDS: { [M in Method]: Need } = {
  list: 'any', // answers only the sessions the connection may read
  subscribe: 'any', // likewise, and only their events
  status: 'any',
  detach: 'any',
  history: 'any', // on a channel, attached only after the attach was allowed
  view: 'any', // likewise
  grant: 'any', // checked against the asker's rights by mint
  show: 'read',
  read: 'read',
  wait: 'read',
  search: 'read', // without a session: the sessions the connection may read
  attach: 'read', // as input owner: act
  create: 'act',
  claim: 'act',
  resize: 'act',
  send: 'act',
  run: 'act',
  answer: 'act',
  kill: 'act',
  remove: 'act',
  update: 'act',
  notify: 'act',
  stop: 'full',
  handoff: 'full',
  relaunch: 'full', // a new run would need the credential in its environment: not offered to a scope yet
  resume: 'full',
  'recovery.list': 'full', // checkpoints hold every session's command line and screen
  'recovery.inspect': 'full',
  'recovery.restore': 'full',
  'recovery.forget': 'full',
  'recovery.checkpoint': 'full',
  'config.get': 'full',
  'config.set': 'full',
  'config.reload': 'full',
};

function forbidden(message: string): DaemonError {
  return new DaemonError(ErrorCode.Forbidden, message);
}

export class ConnectionRights {
  static readonly FULL = new ConnectionRights(false, undefined, undefined);
  /** Before the hello: nothing. */
  static readonly NONE = new ConnectionRights(true, new Set(), undefined);

  constructor(
    readonly readOnly: boolean,
    /** undefined: every session. Grows with the sessions started with these rights. */
    private readonly sessions: Set<string> | undefined,
    /** The credential these rights were granted as: the sessions they start get it in their environment. */
    readonly credential: string | undefined,
  ) {}

  get isFull(): boolean {
    return !this.readOnly && this.sessions === undefined;
  }

  get sessionIds(): string[] | undefined {
    return this.sessions && [...this.sessions];
  }

  mayRead(id: string): boolean {
    return this.sessions === undefined || this.sessions.has(id);
  }

  /** A session started with these rights is theirs from now on; a removed one is no one's (ids can recur). */
  add(id: string): void {
    this.sessions?.add(id);
  }

  forget(id: string): void {
    this.sessions?.delete(id);
  }

  describe(): string {
    const which = this.sessions === undefined ? 'every session' : `${this.sessions.size} sessions (list shows them)`;
    return `${this.readOnly ? 'read-only' : 'scoped'} rights: ${which}`;
  }

  /** The session `ref` names among those these rights reach: an exact id, else a unique name among them. */
  resolve(registry: { list(): Session[]; get(ref: string): Session }, ref: string): Session {
    if (this.sessions === undefined) return registry.get(ref);
    const mine = registry.list().filter((s) => this.mayRead(s.id));
    const byId = mine.find((s) => s.id === ref);
    if (byId) return byId;
    const named = mine.filter((s) => s.name === ref);
    if (named.length === 1) return named[0];
    if (named.length > 1)
      throw new DaemonError(ErrorCode.Ambiguous, `${named.length} sessions are named "${ref}"; use an id`);
    throw forbidden(`session "${ref}" is not one this connection may use (${this.describe()})`);
  }
}

/**
 * The request's params once its connection's rights allow it, with a session ref resolved among the
 * sessions it may use (so a name shared with a session outside them still works); `forbidden` else.
 */
export function checkRequest<M extends Method>(
  rights: ConnectionRights,
  method: M,
  params: Params<M>,
  registry: { list(): Session[]; get(ref: string): Session },
): Params<M> {
  if (rights.isFull) return params;
  const owner = method === 'attach' && (params as AttachParams).role === 'owner';
  const need = owner ? 'act' : NEEDS[method];
  if (need === 'full') throw forbidden(`${method} needs the full rights of the token file, not ${rights.describe()}`);
  if (need === 'act' && rights.readOnly)
    throw forbidden(`${owner ? 'attaching as input owner' : method}: this connection is read-only`);
  const ref = (params as { session?: unknown }).session;
  if (need === 'any' || typeof ref !== 'string') return params;
  return { ...params, session: rights.resolve(registry, ref).id };
}

interface Grant {
  readonly digest: string;
  readonly rights: ConnectionRights;
  /** The connection that minted it (none: taken over from a previous daemon). */
  readonly minter?: object;
  /** The connections that minted or use it, and the sessions started with it (by id, until they end). */
  readonly holders: Set<Holder>;
}
type Holder = object | string;

/** A credential as a successor daemon takes it over: its rights and the sessions that hold it. */
export interface HandedGrant {
  credential: string;
  readOnly: boolean;
  sessions?: string[];
  heldBy: string[];
}

const SESSION_HOLDER = 'session ';

function digestOf(credential: string): string {
  return createHash('sha256').update(credential).digest('hex');
}

/** The credentials of one daemon run (in memory only: they end with the daemon). */
export class Credentials {
  /** By digest: a lookup's timing says nothing about a credential. */
  private readonly grants = new Map<string, Grant>();
  private readonly held = new Map<Holder, Set<Grant>>();

  get size(): number {
    return this.grants.size;
  }

  /** The rights a hello's token gives: full for the daemon's token, a live credential's own, else none. */
  authenticate(daemonToken: string, given: unknown, connection: object): ConnectionRights | undefined {
    if (tokensMatch(daemonToken, given)) return ConnectionRights.FULL;
    if (typeof given !== 'string' || given.length > 256) return undefined;
    const grant = this.grants.get(digestOf(given));
    if (!grant) return undefined;
    this.hold(grant, connection);
    return grant.rights;
  }

  /** A credential within `parent`'s rights (what params omit is as the parent's); it lives while a holder does. */
  mint(
    parent: ConnectionRights,
    registry: { list(): Session[]; get(ref: string): Session },
    params: GrantParams,
    minter: object,
  ): GrantResult {
    const readOnly = params.readOnly ?? parent.readOnly;
    if (parent.readOnly && !readOnly) throw forbidden('a read-only connection can grant only read-only rights');
    // Omitted: the asker's own sessions (every one, for an asker without a set).
    const ids = params.sessions
      ? [...new Set(params.sessions.map((ref) => parent.resolve(registry, ref).id))]
      : parent.sessionIds;
    const mine = [...(this.held.get(minter) ?? [])].filter((grant) => grant.minter === minter).length;
    if (mine >= GrantLimit.MaxPerConnection)
      throw new DaemonError(
        ErrorCode.Limit,
        `this connection minted ${mine} live credentials, its limit: use them, or grant from another connection`,
      );
    if (this.grants.size >= GrantLimit.MaxCredentials)
      throw new DaemonError(
        ErrorCode.Limit,
        `this daemon holds ${this.grants.size} credentials, its limit: end the connections or sessions that hold them`,
      );
    const credential = randomBytes(32).toString('base64url');
    const grant: Grant = {
      digest: digestOf(credential),
      rights: new ConnectionRights(readOnly, ids && new Set(ids), credential),
      holders: new Set(),
      minter,
    };
    this.grants.set(grant.digest, grant);
    this.hold(grant, minter);
    return { credential, ...(ids ? { sessions: ids } : {}), readOnly };
  }

  /** A session started with `rights`: it is theirs, and holds their credential until it ends. */
  started(rights: ConnectionRights, sessionId: string): void {
    if (!rights.credential) return;
    rights.add(sessionId);
    const grant = this.grants.get(digestOf(rights.credential));
    if (grant) this.hold(grant, SESSION_HOLDER + sessionId);
  }

  /** A connection closed: the credentials it minted or used live on only if someone else holds them. */
  release(holder: Holder): void {
    for (const grant of this.held.get(holder) ?? []) {
      grant.holders.delete(holder);
      if (grant.holders.size === 0) this.grants.delete(grant.digest);
    }
    this.held.delete(holder);
  }

  /** A session that exits stops holding; one removed leaves every set (a later session could get its id). */
  noteEvent(event: DaemonEvent): void {
    if (event.type !== 'exit' && event.type !== 'removed') return;
    this.release(SESSION_HOLDER + event.id);
    if (event.type === 'removed') for (const grant of this.grants.values()) grant.rights.forget(event.id);
  }

  /** Every live credential, with the sessions that hold it (a succession hands them over). */
  handed(): HandedGrant[] {
    return [...this.grants.values()].map(({ rights, holders }) => ({
      credential: rights.credential!,
      readOnly: rights.readOnly,
      ...(rights.sessionIds ? { sessions: rights.sessionIds } : {}),
      heldBy: [...holders]
        .filter((h): h is string => typeof h === 'string' && h.startsWith(SESSION_HOLDER))
        .map((h) => h.slice(SESSION_HOLDER.length)),
    }));
  }

  /** A previous daemon's credentials: held by their sessions, and by `grace` while its clients reconnect. */
  takeOver(grants: HandedGrant[], grace: Holder): void {
    for (const handed of grants.slice(0, GrantLimit.MaxCredentials)) {
      const sessions = handed.sessions && new Set(handed.sessions);
      const rights = new ConnectionRights(handed.readOnly, sessions, handed.credential);
      const grant: Grant = { digest: digestOf(handed.credential), rights, holders: new Set() };
      this.grants.set(grant.digest, grant);
      for (const id of handed.heldBy) this.hold(grant, SESSION_HOLDER + id);
      this.hold(grant, grace);
    }
  }

  private hold(grant: Grant, holder: Holder): void {
    grant.holders.add(holder);
    let grants = this.held.get(holder);
    if (!grants) this.held.set(holder, (grants = new Set()));
    grants.add(grant);
  }
}
