// Where a daemon lives: socket, token, state and log files. Shared by daemon and clients.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { tempSocketDir } from './tempSocketDir';

export const SOCKET_NAME = 'holdfast.sock';

function userId(): number {
  return typeof process.getuid === 'function' ? process.getuid() : 0;
}

function homeDir(env: NodeJS.ProcessEnv): string {
  return env.HOME && path.isAbsolute(env.HOME) ? env.HOME : os.homedir();
}

/** Where systemd-logind makes each user's runtime directory (/run/user/UID, the usual XDG_RUNTIME_DIR). */
export const SYSTEM_RUNTIME_ROOT = '/run/user';

/**
 * ROOT/UID when it is laid out as logind makes it: ROOT a real directory owned by root or by you
 * and writable by nobody else; ROOT/UID a real directory (not a symlink), yours, mode 0700.
 * Anything less and it is not used (the temp dir is, with its own checks).
 */
export function systemRuntimeDir(root: string = SYSTEM_RUNTIME_ROOT): string | undefined {
  const me = userId();
  const dir = path.join(root, String(me));
  try {
    const parent = fs.lstatSync(root);
    if (!parent.isDirectory() || (parent.uid !== 0 && parent.uid !== me) || (parent.mode & 0o022) !== 0)
      return undefined;
    const st = fs.lstatSync(dir);
    return st.isDirectory() && st.uid === me && (st.mode & 0o077) === 0 ? dir : undefined;
  } catch {
    return undefined; // missing (no logind session): not this layout
  }
}

/**
 * The default socket: $XDG_RUNTIME_DIR/holdfast/holdfast.sock; without XDG_RUNTIME_DIR (a client
 * started with a trimmed environment, e.g. an MCP client's defaults) the same place under
 * /run/user/UID on Linux when systemRuntimeDir accepts it; else a per-user dir under the temp dir
 * ($TMPDIR/holdfast-UID, or a name of our own when another user took that: tempSocketDir.ts).
 * macOS never sets XDG_RUNTIME_DIR, and its TMPDIR is per-user and private already
 * (/var/folders/.../T); without one, macOS uses the private state dir rather than the
 * world-shared /tmp. Every choice must be 0700 and yours (endpointTrust.ts).
 * HOLDFAST_RUNTIME_ROOT stands in for /run/user (tests lay one out in a temp dir).
 */
export function defaultSocketPath(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime && path.isAbsolute(runtime)) return path.join(runtime, 'holdfast', SOCKET_NAME);
  if (platform === 'linux') {
    const root = env.HOLDFAST_RUNTIME_ROOT;
    const system = systemRuntimeDir(root && path.isAbsolute(root) ? root : SYSTEM_RUNTIME_ROOT);
    if (system) return path.join(system, 'holdfast', SOCKET_NAME);
  }
  const tmp = env.TMPDIR && path.isAbsolute(env.TMPDIR) ? path.resolve(env.TMPDIR) : undefined;
  if (!tmp && platform === 'darwin') return path.join(stateDir(env, platform), 'run', SOCKET_NAME);
  return path.join(tempSocketDir(tmp ?? os.tmpdir(), stateDir(env, platform)), SOCKET_NAME);
}

/** --socket wins, then HOLDFAST_SOCKET, then the default. */
export function resolveSocketPath(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = explicit || env.HOLDFAST_SOCKET;
  return chosen ? path.resolve(chosen) : defaultSocketPath(env);
}

export function tokenPathFor(socketPath: string): string {
  return `${socketPath}.token`;
}

/**
 * $XDG_STATE_HOME/holdfast where set; else ~/Library/Application Support/Holdfast on macOS and
 * ~/.local/state/holdfast elsewhere.
 */
export function stateDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME)) return path.join(env.XDG_STATE_HOME, 'holdfast');
  if (platform === 'darwin') return path.join(homeDir(env), 'Library', 'Application Support', 'Holdfast');
  return path.join(homeDir(env), '.local', 'state', 'holdfast');
}

/**
 * The user's Holdfast config: $XDG_CONFIG_HOME/holdfast/config.json, else ~/.config/holdfast/config.json. The daemon
 * reads its settings there, clients the hosts they reach over SSH (src/link/hosts.ts).
 */
export function configFilePath(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME)
      ? env.XDG_CONFIG_HOME
      : path.join(os.homedir(), '.config');
  return path.join(base, 'holdfast', 'config.json');
}

export function defaultLogPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(stateDir(env), 'daemon.log');
}

export class UnsafeDirectoryError extends Error {}

/**
 * Makes sure `dir` exists, is a real directory owned by this user, and is private:
 * no group/world access at all when `strict`, else at least not writable by others.
 */
export function ensurePrivateDir(dir: string, strict: boolean): void {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new UnsafeDirectoryError(`cannot create ${dir}: ${(err as Error).message}`);
  }
  checkPrivateDir(dir, strict);
}

/**
 * Checks, without making it, that `dir` is as ensurePrivateDir leaves it; false when it does not exist.
 * Throws UnsafeDirectoryError, naming the fix, when it is not a real directory of this user's or not private.
 */
export function checkPrivateDir(dir: string, strict: boolean): boolean {
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (!st) return false;
  if (!st.isDirectory()) throw new UnsafeDirectoryError(`${dir} is not a directory`);
  if (st.uid !== userId())
    throw new UnsafeDirectoryError(
      `${dir} is owned by uid ${st.uid}, not by you (uid ${userId()}); refusing to use it`,
    );
  const forbidden = strict ? 0o077 : 0o022;
  if ((st.mode & forbidden) !== 0) {
    const mode = (st.mode & 0o777).toString(8);
    throw new UnsafeDirectoryError(
      `${dir} has mode ${mode}; it must not be ${strict ? 'accessible' : 'writable'} by group or ` +
        `others (fix: chmod 700 ${dir})`,
    );
  }
  return true;
}
