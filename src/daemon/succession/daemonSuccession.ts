// A daemon hands its sessions to a successor (`handoff`, `holdfast upgrade`, a crash it can act on):
// the successor is this daemon's own command line (or a newer daemon script), started with every PTY
// and each session's state (sessionHandoff.ts), plus what the daemon itself must pass on: the secret
// its sessions' notify credentials derive from, and the live scoped credentials.
import * as fs from 'node:fs';
import { z } from 'zod';
import { type AttachParams, ErrorCode, type Method, type Params } from '../../protocol/messages';
import type { Credentials } from '../clients/connectionRights';
import { DaemonError } from '../daemonError';
import { trustedFile, UntrustedFileError } from '../../host/fileTrust';
import { handOff, type HandoffResult, type SuccessorCommand } from './handoff';
import { HandoffLimit } from './handoffManifest';
import type { HandablePty } from '../pty/programPty';
import type { Received } from './handoffReceive';
import type { Session } from '../sessions/session';
import { resumeSession, sessionStateAtCut, SessionHandoffLimit } from './sessionHandoff';
import type { SessionRegistry } from '../sessions/sessionRegistry';

/** The flag a successor is started with: its stdin is the manifest. */
export const SUCCESSOR_FLAG = '--successor';

/** Flags of this daemon's command line that a successor must not get (its fds are the PTYs). */
const NOT_PASSED_ON = new Set(['--ready-fd']);

export const ownStateSchema = z
  .object({
    predecessor: z.number().int().min(1),
    notifySecret: z.string().regex(/^[0-9a-f]{64}$/),
    /** The VS Code shell integration scripts folder it knew (shellStart.ts). */
    shellScripts: z.string().max(4096).optional(),
    grants: z
      .array(
        z
          .object({
            credential: z.string().min(1).max(256),
            readOnly: z.boolean(),
            sessions: z.array(z.string().max(256)).max(100_000).optional(),
            heldBy: z.array(z.string().max(256)).max(100_000),
          })
          .strict(),
      )
      .max(HandoffLimit.Sessions),
  })
  .strict();

export type OwnState = z.infer<typeof ownStateSchema>;

/**
 * This daemon's command line as its successor's: the same Node (VS Code's Electron with
 * ELECTRON_RUN_AS_NODE, kept in the environment), its flags, `script` instead of its own if given.
 */
export function successorCommand(script: string | undefined, logFd: number | undefined): SuccessorCommand {
  const args: string[] = [];
  const own = process.argv.slice(2);
  for (let i = 0; i < own.length; i++) {
    const [flag] = own[i].split('=');
    if (NOT_PASSED_ON.has(flag)) i += own[i].includes('=') ? 0 : 1;
    else if (own[i] !== SUCCESSOR_FLAG) args.push(own[i]);
  }
  return {
    file: process.execPath,
    args: [...process.execArgv, script ?? process.argv[1], ...args, SUCCESSOR_FLAG],
    env: process.env,
    cwd: process.cwd(),
    stderr: logFd ?? 'ignore',
  };
}

/**
 * The session's PTY; an archive (restored from a checkpoint) has none: it hands over as what it is,
 * a program that exited (only `exited` is asked of a PTY whose program has exited).
 */
function handable(session: Session): HandablePty {
  const { program } = session.handover;
  if ('cut' in program) return program as HandablePty;
  const exit = session.info().exit ?? { code: null, signal: null };
  return { exited: { code: exit.code, signal: exit.signal } } as Partial<HandablePty> as HandablePty;
}

export interface SuccessionHost {
  readonly registry: SessionRegistry;
  readonly credentials: Credentials;
  readonly logFile: string;
  log(line: string): void;
}

/**
 * A successor script as its real path, once no one but this user and root can change it or a folder
 * above it: the successor gets every PTY master and the notify secret. `bad-request` naming why else.
 */
export function successorScript(script: string): string {
  try {
    return trustedFile(script);
  } catch (err) {
    if (!(err instanceof UntrustedFileError)) throw err;
    throw new DaemonError(ErrorCode.BadRequest, `refusing the successor's script: ${err.message}`);
  }
}

/** Hands every session to a successor; rejects (every session carrying on here) if it did not take them. */
export async function handOffSessions(host: SuccessionHost, script?: string): Promise<HandoffResult> {
  const sessions = host.registry.list();
  const budget = Math.min(
    SessionHandoffLimit.ScreenChars,
    Math.floor(SessionHandoffLimit.ScreensChars / Math.max(1, sessions.length)),
  );
  const byId = new Map(sessions.map((session) => [session.id, session]));
  let logFd: number | undefined;
  try {
    logFd = fs.openSync(host.logFile, 'a', 0o600);
  } catch {
    // no log file: the successor's early errors go nowhere, its own log is opened by itself
  }
  try {
    return await handOff({
      sessions: sessions.map((session) => ({ id: session.id, pty: handable(session) })),
      successor: successorCommand(script, logFd),
      stateAtCut: (id) => sessionStateAtCut(byId.get(id)!, budget, (line) => host.log(line)),
      ownState: (): OwnState => ({
        predecessor: process.pid,
        notifySecret: host.registry.notifyCredentials.secret.toString('hex'),
        ...(host.registry.shellStarts.scripts ? { shellScripts: host.registry.shellStarts.scripts } : {}),
        grants: host.credentials.handed(),
      }),
    });
  } finally {
    if (logFd !== undefined) fs.closeSync(logFd);
  }
}

/**
 * What a request that would end or hand over the sessions gets while they are being handed over: its
 * programs are between two daemons. Once the successor answers, the request reaches it.
 */
export function handoffUnderWay(what: string): DaemonError {
  return new DaemonError(
    ErrorCode.Busy,
    `a handoff to a new daemon is under way: ${what} refused, ask again once it is done`,
  );
}

/**
 * Refused (`busy`) while a handoff is under way: each would start a program, end or change a session, or
 * change what is handed over after the cut took it; the successor would never see it, or it would act on
 * a program between two daemons. Input (`send`, `answer`, a `claim` to type) written after the cut never
 * reaches the program. The rest read, or change only the asking connection, which the retiring daemon
 * lets go of (its client attaches again to the successor).
 */
const REFUSED_DURING_HANDOFF: ReadonlySet<Method> = new Set<Method>([
  'create',
  'relaunch',
  'resume',
  'recovery.restore',
  'kill',
  'remove',
  'update',
  'resize',
  'claim',
  'send',
  'run',
  'answer',
  'notify',
  'grant',
  'config.set',
  'config.reload',
  'recovery.checkpoint',
  'stop',
  'handoff',
]);

/**
 * A request as served while a handoff is under way: refused, or as asked, but an owner's `attach` does
 * not resize the program mid-cut (its client gives its size again to the successor).
 */
export function duringHandoff<M extends Method>(method: M, params: Params<M>): Params<M> {
  if (REFUSED_DURING_HANDOFF.has(method)) throw handoffUnderWay(method);
  if (method !== 'attach') return params;
  const { cols: _cols, rows: _rows, ...unsized } = params as AttachParams;
  return unsized;
}

/** What a successor starts from: its predecessor's own state, checked. */
export function predecessorState(received: Received): OwnState {
  const checked = ownStateSchema.safeParse(received.own);
  if (checked.success) return checked.data;
  const issue = checked.error.issues[0];
  throw new Error(`the previous daemon's state: ${issue.path.join('.') || 'the whole'}: ${issue.message}`);
}

/** The handed sessions rebuilt in `registry` (in this turn: the PTYs deliver on the next), their credentials held. */
export function resumeSessions(received: Received, own: OwnState, host: SuccessionHost, grace: object): Session[] {
  const sessions = received.sessions.map((handed) => {
    const session = resumeSession(handed, host.registry, (line) => host.log(line));
    host.registry.adopt(session);
    // Logged as a created session's end is (daemon.ts): a program that ends after a handoff leaves a trace.
    if (handed.kind === 'live')
      void session.hasExited.then(() =>
        host.log(`session ${session.id} ended: ${JSON.stringify(session.info().exit)}`),
      );
    return session;
  });
  host.credentials.takeOver(own.grants, grace);
  return sessions;
}

/** Tests only: a session created with this name makes the daemon throw an uncaught exception. */
const CRASH_TEST_ENV = 'HOLDFAST_TEST_CRASH_NAME';

export function crashIfTestAsks(sessionName: string): void {
  if (sessionName !== process.env[CRASH_TEST_ENV]) return;
  setImmediate(() => {
    throw new Error(`forced by ${CRASH_TEST_ENV} (a test)`);
  });
}
