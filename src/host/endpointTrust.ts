// Whether a socket path leads to a daemon of this user: the one home of the rules for the socket's
// directory, the socket and the token file. The daemon applies them when it claims the endpoint,
// both clients before they send a byte, and both doctors report them.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { defaultSocketPath, ensurePrivateDir, tokenPathFor } from './paths';

/**
 * A scoped credential (the daemon's `grant`) in a session's environment: Holdfast's clients send it
 * instead of the token file's token, so `holdfast` run inside such a session has that scope only.
 */
export const SCOPE_TOKEN_ENV = 'HOLDFAST_TOKEN';

/** What a check found: `missing` means no daemon has served this path (not an attack). */
export type TrustState = 'ok' | 'missing' | 'unsafe';

export interface TrustCheck {
  name: 'socket directory' | 'socket' | 'token file';
  state: TrustState;
  detail: string;
  /** Present unless the state is ok. */
  fix?: string;
}

/** The endpoint is there but not provably this user's: nothing may be sent to it. */
export class UntrustedEndpointError extends Error {
  constructor(readonly check: TrustCheck) {
    super(`refusing to use ${check.name}: ${check.detail} (fix: ${check.fix})`);
  }
}

function userId(): number {
  return typeof process.getuid === 'function' ? process.getuid() : 0;
}

function modeOf(st: fs.Stats): string {
  return (st.mode & 0o777).toString(8).padStart(3, '0');
}

/**
 * The default location (and any `.../holdfast/` directory) must be private (0700); a directory
 * the user chose with --socket must at least not be writable by others.
 */
export function isStrictSocketDir(socketPath: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return socketPath === defaultSocketPath(env) || path.basename(path.dirname(socketPath)) === 'holdfast';
}

function lstat(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch {
    return undefined; // missing (or unreadable parent): reported as missing
  }
}

export function checkSocketDir(socketPath: string, env: NodeJS.ProcessEnv = process.env): TrustCheck {
  const name = 'socket directory';
  const dir = path.dirname(socketPath);
  const st = lstat(dir);
  if (!st)
    return {
      name,
      state: 'missing',
      detail: `${dir} does not exist`,
      fix: 'it is created when a daemon starts: run `holdfast new` or `holdfast serve`',
    };
  if (!st.isDirectory())
    return {
      name,
      state: 'unsafe',
      detail: `${dir} is not a directory (a symlink or file)`,
      fix: `remove ${dir}, then start Holdfast again`,
    };
  if (st.uid !== userId()) {
    return {
      name,
      state: 'unsafe',
      detail: `${dir} is owned by uid ${st.uid}, not by you (uid ${userId()})`,
      fix: `remove ${dir} (someone else made it), then start Holdfast again, or pick another socket`,
    };
  }
  const strict = isStrictSocketDir(socketPath, env);
  if ((st.mode & (strict ? 0o077 : 0o022)) !== 0) {
    return {
      name,
      state: 'unsafe',
      detail: `${dir} has mode ${modeOf(st)}; it must not be ${strict ? 'accessible' : 'writable'} by group or others`,
      fix: `chmod 700 ${dir}`,
    };
  }
  return { name, state: 'ok', detail: `${dir} (mode ${modeOf(st)}, yours)` };
}

export function checkSocket(socketPath: string): TrustCheck {
  const name = 'socket';
  const st = lstat(socketPath);
  if (!st)
    return {
      name,
      state: 'missing',
      detail: `${socketPath} does not exist`,
      fix: 'start a daemon: `holdfast new` or `holdfast serve`',
    };
  if (!st.isSocket())
    return {
      name,
      state: 'unsafe',
      detail: `${socketPath} is not a socket`,
      fix: `remove ${socketPath}, then start Holdfast again`,
    };
  if (st.uid !== userId())
    return {
      name,
      state: 'unsafe',
      detail: `${socketPath} is owned by uid ${st.uid}, not by you`,
      fix: `remove ${socketPath} (someone else's daemon), then start Holdfast again`,
    };
  return { name, state: 'ok', detail: socketPath };
}

/** The token file's check and, when it passes, its token (read through O_NOFOLLOW, checked on the open file). */
export function readTokenFile(socketPath: string): TrustCheck & { token?: string } {
  const name = 'token file';
  const file = tokenPathFor(socketPath);
  const restart = `stop the daemon, remove ${file}, start it again`;
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      return {
        name,
        state: 'missing',
        detail: `${file} does not exist`,
        fix: 'the daemon writes it when it starts: run `holdfast new` or `holdfast serve`',
      };
    if (code === 'ELOOP') return { name, state: 'unsafe', detail: `${file} is a symlink`, fix: restart };
    return { name, state: 'unsafe', detail: `${file} cannot be read (${code})`, fix: `chmod 600 ${file}` };
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return { name, state: 'unsafe', detail: `${file} is not a regular file`, fix: restart };
    if (st.uid !== userId())
      return { name, state: 'unsafe', detail: `${file} is owned by uid ${st.uid}, not by you`, fix: restart };
    if ((st.mode & 0o077) !== 0)
      return {
        name,
        state: 'unsafe',
        detail: `${file} has mode ${modeOf(st)}; others could read or change the token`,
        fix: `chmod 600 ${file}`,
      };
    const token = fs.readFileSync(fd, 'utf8').trim();
    if (!token) return { name, state: 'missing', detail: `${file} is empty`, fix: restart };
    return { name, state: 'ok', detail: `${file} (mode ${modeOf(st)})`, token };
  } finally {
    fs.closeSync(fd);
  }
}

/** Every check a client makes before it connects, in order; the doctors show the same list. */
export function checkEndpoint(socketPath: string, env: NodeJS.ProcessEnv = process.env): TrustCheck[] {
  const dir = checkSocketDir(socketPath, env);
  if (dir.state !== 'ok') return [dir];
  const { token: _token, ...token } = readTokenFile(socketPath);
  return [dir, checkSocket(socketPath), token];
}

/**
 * What a client must do before sending anything: the directory, socket and token file are this
 * user's and private. Returns the token (or `credential`, when given: the token file is then not
 * read); throws `missing` when no daemon is there (`onMissing`) and UntrustedEndpointError when
 * the path is someone else's.
 */
export function trustedToken(
  socketPath: string,
  onMissing: (check: TrustCheck) => Error,
  env: NodeJS.ProcessEnv = process.env,
  credential?: string,
): string {
  const dir = checkSocketDir(socketPath, env);
  if (dir.state === 'unsafe') throw new UntrustedEndpointError(dir);
  if (dir.state === 'missing') throw onMissing(dir);
  const socket = checkSocket(socketPath);
  if (socket.state === 'unsafe') throw new UntrustedEndpointError(socket);
  if (socket.state === 'missing') throw onMissing(socket);
  if (credential) return credential;
  const token = readTokenFile(socketPath);
  if (token.state === 'unsafe') throw new UntrustedEndpointError(token);
  if (token.state === 'missing' || !token.token)
    throw new Error(`cannot read the daemon's token: ${token.detail} (fix: ${token.fix})`);
  return token.token;
}

/** The daemon's side: creates the directory if needed and refuses one that is not private. */
export function ensureSocketDir(socketPath: string, env: NodeJS.ProcessEnv = process.env): void {
  ensurePrivateDir(path.dirname(socketPath), isStrictSocketDir(socketPath, env));
}
