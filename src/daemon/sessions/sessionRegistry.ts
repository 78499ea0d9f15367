// All sessions of a daemon: creation (argv, cwd, clean environment, limits), lookup by id or name, removal.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { disposeAll, disposeErrorText, Emitter, type IDisposable } from '../../base/disposable';
import { MAX_SCROLLBACK_LINES, screenSizeProblem } from '../../protocol/limits';
import { builtinAgent, withAgentHooks } from '../../agents/agents';
import { SCOPE_TOKEN_ENV } from '../../host/endpointTrust';
import { type CreateParams, type DaemonEvent, ErrorCode } from '../../protocol/messages';
import { agentOf } from '../../protocol/recovery';
import { DaemonError } from '../daemonError';
import { EmulatorWorkers } from '../emulatorWorkers';
import { NOTIFY_TOKEN_ENV, NotifyCredentials } from '../clients/notifyCredentials';
import { TypingSignal } from '../pty/ptyReadGate';
import { Session } from './session';
import { ShellStarts } from './shellStart';

/**
 * How an agent's hook runs `holdfast notify`: this daemon's Node (VS Code's Electron, run as Node)
 * and the CLI beside it.
 */
const NOTIFY_ARGV: string[] | undefined = (() => {
  const cli = path.join(__dirname, 'cli.js');
  return fs.existsSync(cli) ? ['/usr/bin/env', 'ELECTRON_RUN_AS_NODE=1', process.execPath, cli, 'notify'] : undefined;
})();

export interface RegistryLimits {
  maxSessions: number;
  defaultScrollback: number;
  maxScrollback: number;
}

export const DEFAULT_LIMITS: RegistryLimits = {
  maxSessions: 256,
  defaultScrollback: 10_000,
  maxScrollback: MAX_SCROLLBACK_LINES,
};

/**
 * A limit from the daemon's command line or environment: an integer in range, else a clear error
 * (NaN turned a limit off).
 */
export function parseLimit(value: string, what: string, min: number, max: number): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max)
    throw new Error(`${what} must be an integer from ${min} to ${max}, not "${value}"`);
  return n;
}

/** Limits set in the environment of the daemon (any launcher: CLI, extension, serve): HOLDFAST_MAX_SESSIONS. */
export function limitsFromEnv(env: NodeJS.ProcessEnv): Partial<RegistryLimits> {
  const max = env.HOLDFAST_MAX_SESSIONS;
  return max === undefined || max === '' ? {} : { maxSessions: parseLimit(max, 'HOLDFAST_MAX_SESSIONS', 1, 100_000) };
}

/** Variables of the daemon's own launch that must never reach a session. */
const NEVER_INHERITED = new RegExp(
  '^(ELECTRON_RUN_AS_NODE|ELECTRON_NO_ATTACH_CONSOLE|NODE_OPTIONS|NODE_CHANNEL_FD|NODE_CHANNEL_SERIALIZATION_MODE|' +
    'NODE_UNIQUE_ID|HOLDFAST_SESSION|HOLDFAST_NOTIFY_TOKEN|HOLDFAST_TOKEN|VSCODE_.*)$',
);
/** Never taken from anyone, not even a client's explicit environment. */
const NEVER_SET = /^(ELECTRON_RUN_AS_NODE|NODE_OPTIONS|NODE_CHANNEL_FD)$/;

export function sessionEnvironment(
  daemonEnv: NodeJS.ProcessEnv,
  requested: Record<string, string> | undefined,
  socket: string,
  id: string,
  notifyToken: string,
  scopeCredential?: string,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(daemonEnv))
    if (value !== undefined && !NEVER_INHERITED.test(key)) env[key] = value;
  for (const [key, value] of Object.entries(requested ?? {}))
    if (typeof value === 'string' && !NEVER_SET.test(key)) env[key] = value;
  // The emulator is xterm-compatible, whatever terminal the daemon itself was started from.
  env.TERM = requested?.TERM ?? 'xterm-256color';
  env.COLORTERM ??= 'truecolor';
  env.HOLDFAST_SOCKET = socket;
  env.HOLDFAST_SESSION = id;
  env[NOTIFY_TOKEN_ENV] = notifyToken;
  // Last: a scoped client cannot hand its session a different credential.
  if (scopeCredential) env[SCOPE_TOKEN_ENV] = scopeCredential;
  return env;
}

export function loginShell(): string {
  const fromEnv = process.env.SHELL;
  if (fromEnv && path.isAbsolute(fromEnv)) return fromEnv;
  try {
    const shell = os.userInfo().shell;
    if (shell) return shell;
  } catch {
    // no passwd entry for this user: plain sh then
  }
  return '/bin/sh';
}

/** A size a client asked for, within the bounds of limits.ts, or a bad-request saying which. */
export function checkedSize(cols: number, rows: number): { cols: number; rows: number } {
  const problem = screenSizeProblem(cols, rows);
  if (problem) throw new DaemonError(ErrorCode.BadRequest, problem);
  return { cols, rows };
}

/**
 * The program the session would run, found as execvp would find it. A missing one is refused here:
 * node-pty would start a child that fails its exec, and the session would look running for a moment.
 */
export function findProgram(program: string, env: Record<string, string>, cwd: string): string | undefined {
  const executable = (file: string) => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false; // missing or not executable: try the next candidate
    }
  };
  if (program.includes('/')) {
    const file = path.resolve(cwd, program);
    return executable(file) ? file : undefined;
  }
  for (const dir of (env.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(':')) {
    const file = path.resolve(cwd, dir || '.', program);
    if (executable(file)) return file;
  }
  return undefined;
}

export class SessionRegistry implements IDisposable {
  private readonly sessions = new Map<string, Session>();
  /** Each session's event subscription, disposed with it. */
  private readonly forwarding = new Map<Session, IDisposable>();
  private readonly onEventEmitter = new Emitter<DaemonEvent>();
  readonly onEvent = this.onEventEmitter.event;
  private readonly onEmptyEmitter = new Emitter<void>();
  /** Fires when the last session is removed. */
  readonly onEmpty = this.onEmptyEmitter.event;
  readonly notifyCredentials: NotifyCredentials;
  /** The worker threads that run every session's emulator. */
  readonly emulators: EmulatorWorkers;
  /** When an owner last typed (ptyReadGate.ts): sessions nobody watches are read at a pace meanwhile. */
  readonly typing = new TypingSignal();
  /** Shells started with VS Code's shell integration: the scripts folder known, zsh's startup files. */
  readonly shellStarts: ShellStarts;

  constructor(
    private readonly socket: string,
    readonly limits: RegistryLimits,
    private readonly log: (line: string) => void = () => undefined,
    /** A previous daemon's (a succession): its sessions' notify credentials stay valid. */
    notifySecret?: Buffer,
    /** A previous daemon's known VS Code scripts folder. */
    shellScripts?: string,
  ) {
    this.notifyCredentials = new NotifyCredentials(notifySecret);
    this.shellStarts = new ShellStarts(path.join(path.dirname(socket), 'zsh'), log, shellScripts);
    this.emulators = new EmulatorWorkers(log);
  }

  get size(): number {
    return this.sessions.size;
  }

  list(): Session[] {
    return [...this.sessions.values()];
  }

  /** `scopeCredential`: the creating connection's credential, for the session's HOLDFAST_TOKEN. */
  create(params: CreateParams, scopeCredential?: string): Session {
    if (this.sessions.size >= this.limits.maxSessions)
      throw new DaemonError(
        ErrorCode.Limit,
        `this daemon already has ${this.sessions.size} sessions, its limit (maxSessions)`,
      );
    const argv = params.argv && params.argv.length > 0 ? params.argv : [loginShell(), '-l'];
    const cwd = params.cwd ?? os.homedir();
    if (!path.isAbsolute(cwd)) throw new DaemonError(ErrorCode.BadRequest, `cwd must be an absolute path: ${cwd}`);
    if (!fs.statSync(cwd, { throwIfNoEntry: false })?.isDirectory())
      throw new DaemonError(ErrorCode.BadRequest, `no such directory: ${cwd}`);
    const scrollback = params.scrollback ?? this.limits.defaultScrollback;
    if (!Number.isInteger(scrollback) || scrollback < 0 || scrollback > this.limits.maxScrollback)
      throw new DaemonError(ErrorCode.Limit, `scrollback must be from 0 to ${this.limits.maxScrollback} lines`);
    const size = checkedSize(params.cols ?? 80, params.rows ?? 24);
    const id = this.newId();
    const notifyToken = this.notifyCredentials.of(id);
    const env = sessionEnvironment(process.env, params.env, this.socket, id, notifyToken, scopeCredential);
    if (!findProgram(argv[0], env, cwd))
      throw new DaemonError(
        ErrorCode.BadRequest,
        `no such program: ${argv[0]} (not found on the session's PATH, or not executable)`,
      );
    const name = params.name?.trim() || this.defaultName(argv[0]);
    const metadata = params.metadata ?? {};
    let session: Session;
    try {
      // An agent runs with its hooks (which report its state to this daemon); a shell with VS Code's
      // shell integration when asked; the session shows the argv asked for.
      const agent = agentOf(metadata);
      const shell =
        params.shellIntegration && !agent
          ? this.shellStarts.launch(argv, env, env.HOME || os.homedir(), params.shellIntegration)
          : undefined;
      const launched = shell?.argv ?? withAgentHooks(argv, builtinAgent(agent?.profile) ?? {}, NOTIFY_ARGV);
      session = new Session({
        id,
        name,
        argv,
        cwd,
        env: shell?.env ?? env,
        shellNonce: shell?.nonce,
        ...size,
        scrollback,
        metadata,
        emulators: this.emulators,
        typing: this.typing,
        launchArgv: launched,
        log: (line) => this.log(`session ${id}: ${line}`),
        onEmulatorError: (err) => this.log(`session ${id}: emulator: ${err.message}`),
      });
    } catch (err) {
      if (err instanceof DaemonError) throw err;
      throw new DaemonError(ErrorCode.BadRequest, `cannot start ${argv[0]}: ${(err as Error).message}`);
    }
    this.track(session);
    return session;
  }

  /** A session built by the caller (an archived one, see recovery.ts) under a fresh id. */
  add(make: (id: string) => Session): Session {
    if (this.sessions.size >= this.limits.maxSessions)
      throw new DaemonError(
        ErrorCode.Limit,
        `this daemon already has ${this.sessions.size} sessions, its limit (maxSessions)`,
      );
    const session = make(this.newId());
    this.track(session);
    return session;
  }

  /** A session a previous daemon handed over, under its own id (no limit: it exists already). */
  adopt(session: Session): void {
    if (this.sessions.has(session.id)) throw new Error(`session ${session.id} is here already`);
    this.track(session);
  }

  /** In the list, its events forwarded until it is dropped (untrack). */
  private track(session: Session): void {
    this.sessions.set(session.id, session);
    this.forwarding.set(
      session,
      session.onEvent((event) => this.onEventEmitter.fire(event)),
    );
  }

  private untrack(session: Session): void {
    this.forwarding.get(session)?.dispose();
    this.forwarding.delete(session);
    try {
      session.dispose();
    } catch (err) {
      // logged, not thrown: the list has already dropped it, and the other sessions are still to dispose
      this.log(`session ${session.id}: disposing it failed: ${disposeErrorText(err)}`);
    }
  }

  /**
   * Puts `replacement` in `old`'s place in the list and removes `old` (an exited session) without
   * emptying the daemon.
   */
  replace(old: Session, replacement: Session): void {
    if (!this.sessions.has(old.id) || !this.sessions.has(replacement.id)) return;
    const entries = [...this.sessions.values()]
      .filter((s) => s !== replacement)
      .map((s) => (s === old ? replacement : s));
    this.sessions.clear();
    for (const s of entries) this.sessions.set(s.id, s);
    this.onEventEmitter.fire({ type: 'removed', id: old.id });
    this.untrack(old);
  }

  /** By exact id, else by unique name. */
  get(ref: string): Session {
    if (typeof ref !== 'string' || ref === '')
      throw new DaemonError(ErrorCode.BadRequest, 'a session id or name is required');
    const byId = this.sessions.get(ref);
    if (byId) return byId;
    const named = this.list().filter((s) => s.name === ref);
    if (named.length === 1) return named[0];
    if (named.length > 1)
      throw new DaemonError(
        ErrorCode.Ambiguous,
        `${named.length} sessions are named "${ref}"; use an id (${named.map((s) => s.id).join(', ')})`,
      );
    throw new DaemonError(ErrorCode.NoSession, `no session "${ref}"`);
  }

  async remove(session: Session, graceMs = 2000): Promise<void> {
    if (!this.sessions.has(session.id)) return;
    await session.kill('SIGHUP', graceMs);
    if (!this.sessions.delete(session.id)) return;
    this.onEventEmitter.fire({ type: 'removed', id: session.id });
    this.untrack(session);
    if (this.sessions.size === 0) this.onEmptyEmitter.fire();
  }

  private newId(): string {
    for (;;) {
      const id = randomBytes(4).toString('hex');
      if (!this.sessions.has(id)) return id;
    }
  }

  private defaultName(program: string): string {
    const base = path.basename(program) || 'session';
    const taken = new Set(this.list().map((s) => s.name));
    for (let n = 1; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
  }

  dispose(): void {
    for (const session of [...this.sessions.values()]) this.untrack(session);
    this.sessions.clear();
    disposeAll([this.emulators, this.onEventEmitter, this.onEmptyEmitter]);
  }
}
