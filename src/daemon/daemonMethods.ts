// The daemon's request table: one handler per method of the protocol, over the session registry.
// Params are already checked against their schema (requestSchemas.ts); the daemon's lifetime
// (endpoint, clients, stop) is daemon.ts's, and recovery's methods are recovery.ts's.
import {
  type AttachParams,
  type ChannelView,
  type DaemonStatus,
  ErrorCode,
  type Method,
  type Params,
  type Role,
  type WaitCondition,
} from '../protocol/messages';
import { conversationIdProblem } from '../agents/agents';
import type { RecoveryMethods } from '../protocol/recovery';
import type { Channel } from './clients/channel';
import type { ClientConnection } from './clients/connection';
import type { ConnectionRights, Credentials } from './clients/connectionRights';
import { DaemonError } from './daemonError';
import { NOTIFY_TOKEN_ENV } from './clients/notifyCredentials';
import { isSignalName } from './pty/ptyProcess';
import type { Session } from './sessions/session';
import { answerPrompt } from './sessions/promptAnswer';
import { checkedSize, type SessionRegistry } from './sessions/sessionRegistry';
import { searchSessions } from './sessions/sessionSearch';
import type { WaitFor } from './sessions/sessionWaits';
import type { TextWorkers } from './textWorkers';

export type MethodTable = { [M in Method]: (params: Params<M>, connection: ClientConnection) => unknown };
export type CoreMethods = Omit<MethodTable, keyof RecoveryMethods>;

/** The longest a `wait` request may wait. */
const MAX_WAIT_MS = 24 * 60 * 60 * 1000;
/** How long a kill waits after its signal before SIGKILL, unless the request says. */
const KILL_GRACE_MS = 2000;

/** What the handlers need of the daemon around them. */
export interface MethodHost {
  readonly registry: SessionRegistry;
  /** The threads that run search and text waits with a budget. */
  readonly textWorkers: TextWorkers;
  readonly credentials: Credentials;
  /** A session was just created with these rights: the daemon logs it and tells its subscribers. */
  created(session: Session, rights: ConnectionRights): void;
  status(): DaemonStatus;
  stop(reason: string): Promise<void>;
  /** Hands every session to a successor (`script`: a newer daemon's), then retires. */
  handOff(script: string | undefined, reason: string): Promise<{ pid: number; sessions: number }>;
}

/** A size a client asked for: both or neither; within the bounds of limits.ts. */
function optionalSize(cols: number | undefined, rows: number | undefined): { cols: number; rows: number } | undefined {
  if (cols === undefined && rows === undefined) return undefined;
  if (cols === undefined || rows === undefined)
    throw new DaemonError(ErrorCode.BadRequest, 'cols and rows go together');
  return checkedSize(cols, rows);
}

/** `send`: text for a running program, refused with `limit` while its input queue is at its bound. */
function sendText(session: Session, data: string): Record<string, never> {
  if (!session.isRunning) throw new DaemonError(ErrorCode.Exited, `session ${session.id} has exited`);
  const refused = session.send(data);
  if (refused) throw new DaemonError(ErrorCode.Limit, `session ${session.id}: ${refused}`);
  return {};
}

/** `run`: a command typed at the shell's prompt, answered with its end (sessionShell.ts). */
async function runCommand(session: Session, p: Params<'run'>): Promise<unknown> {
  const result = await session.shell.run(p.command, Math.min(p.timeoutMs ?? MAX_WAIT_MS, MAX_WAIT_MS));
  return { ...result, session: session.info() };
}

/**
 * The condition as the session waits for it: a text pattern is compiled and matched in a worker
 * (a bad one is the client's bad request, a too costly one a `limit`, both on its first check).
 */
function waitFor(condition: WaitCondition, workers: TextWorkers, cancelled: () => boolean): WaitFor {
  if (condition.kind !== 'text') return condition;
  const { pattern, flags = '' } = condition;
  return {
    kind: 'text',
    history: !!condition.history,
    matches: (text) => workers.run({ kind: 'test', pattern, flags, text }, 'text wait', cancelled),
  };
}

function attachedChannel(connection: ClientConnection, channel: number) {
  const attached = connection.channels.get(channel);
  if (!attached) throw new DaemonError(ErrorCode.BadRequest, `channel ${channel} is not attached`);
  return attached;
}

/** A request on an attached channel that answers nothing. */
function onChannel(connection: ClientConnection, channel: number, act: (c: Channel) => void): Record<string, never> {
  act(attachedChannel(connection, channel));
  return {};
}

/** How an attach's first snapshots go (Session.attach). */
function deliveryOf(params: AttachParams): Parameters<Session['attach']>[2] {
  if (params.view === 'hidden' || params.view === 'screens') return params.view;
  return params.screenFirst ? (params.historyLater ? 'screen-only' : 'screen-first') : 'full';
}

/** Screens only is for watchers: an owner's terminal needs every byte, its program's queries too. */
function checkView(role: Role, view: ChannelView | undefined): void {
  if (view === 'screens' && role === 'owner')
    throw new DaemonError(ErrorCode.BadRequest, "view 'screens' is for watchers: an input owner is sent every byte");
}

function setView(channel: Channel, view: ChannelView): void {
  checkView(channel.role, view);
  channel.session.view(channel, view);
}

function attach(registry: SessionRegistry, connection: ClientConnection, params: AttachParams): unknown {
  checkView(params.role, params.view);
  const session = registry.get(params.session);
  const size = params.role === 'owner' ? optionalSize(params.cols, params.rows) : undefined;
  const channel = connection.addChannel(params.channel, session, params.role);
  // The answer goes out first; the snapshot (and then the stream) follows it.
  setImmediate(() => {
    if (connection.channels.get(params.channel) === channel) session.attach(channel, size, deliveryOf(params));
  });
  return { session: { ...session.info(), ...(size ?? {}) } };
}

async function kill(registry: SessionRegistry, p: Params<'kill'>): Promise<unknown> {
  const session = registry.get(p.session);
  const signal = p.signal ?? 'SIGHUP';
  const normalized = signal.startsWith('SIG') ? signal : `SIG${signal}`;
  if (!isSignalName(normalized)) throw new DaemonError(ErrorCode.BadRequest, `unknown signal ${signal}`);
  await session.kill(normalized, p.graceMs ?? KILL_GRACE_MS);
  const info = session.info();
  if (p.remove) await registry.remove(session);
  return { session: info };
}

/** The sessions a connection may read (every one, for the token file's rights). */
function readable(registry: SessionRegistry, connection: ClientConnection): Session[] {
  return registry.list().filter((s) => connection.rights.mayRead(s.id));
}

export function coreMethods(host: MethodHost): CoreMethods {
  const registry = host.registry;
  return {
    list: (_p, connection) => ({ sessions: readable(registry, connection).map((s) => s.info()) }),
    show: (p) => ({ session: registry.get(p.session).info() }),
    create: (p, connection) => {
      // A scoped connection's session gets its credential, so what runs in it has the same scope.
      const session = registry.create(p, connection.rights.credential);
      host.created(session, connection.rights);
      return { session: session.info() };
    },
    attach: (p, connection) => attach(registry, connection, p),
    detach: (p, connection) => {
      connection.removeChannel(p.channel);
      return {};
    },
    history: (p, connection) => onChannel(connection, p.channel, (c) => c.session.requestSnapshot(c, 'history')),
    view: (p, connection) => onChannel(connection, p.channel, (c) => setView(c, p.view)),
    claim: (p, connection) => {
      const channel = attachedChannel(connection, p.channel);
      channel.session.claim(channel, optionalSize(p.cols, p.rows));
      return { session: channel.session.info() };
    },
    resize: (p) => {
      const session = registry.get(p.session);
      const size = checkedSize(p.cols, p.rows);
      session.resize(size.cols, size.rows);
      return { session: session.info() };
    },
    send: (p) => sendText(registry.get(p.session), p.data),
    answer: (p) => answerPrompt(registry.get(p.session), p.choice, p.shown),
    run: (p) => runCommand(registry.get(p.session), p),
    read: (p) => registry.get(p.session).screen(p.scrollback ?? 0),
    wait: async (p, connection) => {
      const session = registry.get(p.session);
      const condition = waitFor(p.condition, host.textWorkers, () => connection.isClosed);
      const met = await session.wait(condition, Math.min(p.timeoutMs ?? MAX_WAIT_MS, MAX_WAIT_MS));
      return { met, session: session.info() };
    },
    search: (p, connection) => {
      const scope = { list: () => readable(registry, connection), get: (ref: string) => registry.get(ref) };
      return searchSessions(scope, host.textWorkers, p, () => connection.isClosed);
    },
    kill: (p) => kill(registry, p),
    remove: (p) => registry.remove(registry.get(p.session)).then(() => ({})),
    update: (p) => {
      const session = registry.get(p.session);
      if (p.name !== undefined) session.rename(p.name.trim());
      if (p.metadata !== undefined) session.setMetadata(p.metadata);
      return { session: session.info() };
    },
    notify: (p) => {
      const session = registry.get(p.session);
      if (!registry.notifyCredentials.matches(session.id, p.credential))
        throw new DaemonError(
          ErrorCode.Auth,
          `not recorded: a report for session ${session.id} needs its own ${NOTIFY_TOKEN_ENV} ` +
            '(an agent hook reports only for the session it runs in)',
        );
      const problem = p.conversationId === undefined ? undefined : conversationIdProblem(p.conversationId);
      if (problem) throw new DaemonError(ErrorCode.BadRequest, `not recorded: ${problem}`);
      session.report(p.state, p.conversationId, p.permission === true);
      return { session: session.info() };
    },
    subscribe: (_p, connection) => {
      connection.subscribedToAll = true;
      return { sessions: readable(registry, connection).map((s) => s.info()) };
    },
    grant: (p, connection) => host.credentials.mint(connection.rights, registry, p, connection),
    status: () => host.status(),
    handoff: (p, connection) => host.handOff(p.script, `asked by a client (${connection.clientName})`),
    stop: (_p, connection) => {
      setImmediate(() => void host.stop(`asked by a client (${connection.clientName})`));
      return {};
    },
  };
}
