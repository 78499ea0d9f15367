// Where the socket and state go: Linux (XDG_RUNTIME_DIR, else a private /run/user/UID as logind
// makes it, laid out here in a temp dir), macOS (no XDG_RUNTIME_DIR, a per-user private TMPDIR
// under /var/folders), and that the trust rules accept those choices.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { checkSocketDir, ensureSocketDir, isStrictSocketDir } from '../src/host/endpointTrust';
import { defaultLogPath, defaultSocketPath, resolveSocketPath, stateDir, systemRuntimeDir } from '../src/host/paths';
import { tempDir } from './helpers/daemon';

const uid = process.getuid!();
// No /run/user here, whatever this machine has: the temp-dir fallback is what these check.
const noRunUser = { HOLDFAST_RUNTIME_ROOT: '/nonexistent-run-user' };
const macEnv = { ...noRunUser, HOME: '/Users/ada', TMPDIR: '/var/folders/x1/abc123/T/' };

test('Linux: the socket is under XDG_RUNTIME_DIR, the state under XDG_STATE_HOME', () => {
  const env = { HOME: '/home/ada', XDG_RUNTIME_DIR: '/run/user/1000', XDG_STATE_HOME: '/home/ada/.st' };
  assert.equal(defaultSocketPath(env), '/run/user/1000/holdfast/holdfast.sock');
  assert.equal(stateDir(env), '/home/ada/.st/holdfast');
  assert.equal(defaultLogPath(env), '/home/ada/.st/holdfast/daemon.log');
});

test('macOS: the socket in $TMPDIR/holdfast-UID; the state in ~/Library/Application Support', () => {
  assert.equal(defaultSocketPath(macEnv, 'darwin'), `/var/folders/x1/abc123/T/holdfast-${uid}/holdfast.sock`);
  assert.equal(resolveSocketPath(undefined, macEnv), defaultSocketPath(macEnv, 'darwin'));
  assert.equal(stateDir(macEnv, 'darwin'), '/Users/ada/Library/Application Support/Holdfast');
  assert.equal(stateDir({ ...macEnv, XDG_STATE_HOME: '/Users/ada/.st' }, 'darwin'), '/Users/ada/.st/holdfast');
  // The same environment on Linux keeps the XDG default.
  assert.equal(stateDir(macEnv, 'linux'), '/Users/ada/.local/state/holdfast');
  assert.equal(defaultSocketPath(macEnv, 'linux'), defaultSocketPath(macEnv, 'darwin'));
});

test('macOS without TMPDIR: the socket goes under the private state dir, never the shared /tmp', () => {
  const env = { ...noRunUser, HOME: '/Users/ada' };
  assert.equal(defaultSocketPath(env, 'darwin'), '/Users/ada/Library/Application Support/Holdfast/run/holdfast.sock');
  assert.match(defaultSocketPath(env, 'linux'), new RegExp(`/holdfast-${uid}/holdfast\\.sock$`));
});

test('relative XDG_RUNTIME_DIR, XDG_STATE_HOME and TMPDIR are ignored', () => {
  const env = { ...noRunUser, HOME: '/home/ada', XDG_RUNTIME_DIR: 'run', XDG_STATE_HOME: 'st', TMPDIR: 'tmp' };
  assert.ok(path.isAbsolute(defaultSocketPath(env)));
  assert.match(defaultSocketPath(env), new RegExp(`/holdfast-${uid}/holdfast\\.sock$`));
  assert.equal(stateDir(env), '/home/ada/.local/state/holdfast');
});

test('the trust rules accept the macOS default: holdfast-UID, 0700 and yours, in a private TMPDIR', () => {
  const tmp = tempDir('hf-mac-tmp-');
  try {
    fs.chmodSync(tmp, 0o700); // as /var/folders/.../T is
    const env = { ...noRunUser, HOME: '/Users/ada', TMPDIR: `${tmp}/` };
    const socket = defaultSocketPath(env);
    assert.equal(socket, path.join(tmp, `holdfast-${uid}`, 'holdfast.sock'));
    assert.equal(isStrictSocketDir(socket, env), true, 'the default dir must be private');
    ensureSocketDir(socket, env);
    assert.equal(fs.statSync(path.dirname(socket)).mode & 0o777, 0o700);
    assert.equal(checkSocketDir(socket, env).state, 'ok');
    fs.chmodSync(path.dirname(socket), 0o755);
    assert.equal(checkSocketDir(socket, env).state, 'unsafe', 'a readable holdfast-UID is refused');
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

/** A temp stand-in for /run/user holding this user's UID directory, mode `mode`. */
function runUserLayout(mode = 0o700): { root: string; dir: string } {
  const root = tempDir('hf-run-user-');
  fs.chmodSync(root, 0o755);
  const dir = path.join(root, String(uid));
  fs.mkdirSync(dir, { mode });
  fs.chmodSync(dir, mode);
  return { root, dir };
}

test('without XDG_RUNTIME_DIR, a private /run/user/UID is where the socket goes, as with it set', () => {
  const { root, dir } = runUserLayout();
  try {
    // An MCP client's default environment: no XDG_RUNTIME_DIR, no TMPDIR.
    const env = { HOME: '/home/ada', PATH: '/usr/bin', HOLDFAST_RUNTIME_ROOT: root };
    const socket = defaultSocketPath(env, 'linux');
    assert.equal(socket, path.join(dir, 'holdfast', 'holdfast.sock'));
    assert.equal(socket, defaultSocketPath({ XDG_RUNTIME_DIR: dir }, 'linux'), 'the shells with it set agree');
    assert.equal(resolveSocketPath(undefined, env), socket);
    assert.equal(isStrictSocketDir(socket, env), true);
    ensureSocketDir(socket, env);
    assert.equal(checkSocketDir(socket, env).state, 'ok');
    // macOS has no /run/user: its TMPDIR stays the default.
    assert.equal(
      defaultSocketPath({ ...env, TMPDIR: '/var/folders/T/' }, 'darwin'),
      `/var/folders/T/holdfast-${uid}/holdfast.sock`,
    );
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a /run/user/UID that is not private, not a directory, or not yours is never used', () => {
  const fallback = (root: string) =>
    defaultSocketPath({ HOLDFAST_RUNTIME_ROOT: root, TMPDIR: '/tmp/t' }, 'linux') ===
    `/tmp/t/holdfast-${uid}/holdfast.sock`;
  const open = runUserLayout(0o755);
  const link = runUserLayout();
  const other = runUserLayout();
  const shared = runUserLayout();
  try {
    assert.ok(fallback(open.root), 'mode 0755');
    assert.equal(systemRuntimeDir(open.root), undefined);
    // A symlink to a private directory of yours is still not the layout logind makes.
    const target = path.join(link.root, 'elsewhere');
    fs.renameSync(link.dir, target);
    fs.symlinkSync(target, link.dir);
    assert.ok(fallback(link.root), 'a symlink');
    fs.rmSync(other.dir, { recursive: true });
    fs.writeFileSync(other.dir, '', { mode: 0o600 });
    assert.ok(fallback(other.root), 'a file');
    fs.chmodSync(shared.root, 0o777);
    assert.ok(fallback(shared.root), 'a root anyone can write to (the UID dir could be swapped)');
    if (uid === 0) {
      // As root, a UID dir owned by someone else can be made: it must be refused.
      const foreign = runUserLayout();
      try {
        fs.chownSync(foreign.dir, 65534, 65534);
        assert.ok(fallback(foreign.root), 'owned by another uid');
      } finally {
        fs.rmSync(foreign.root, { recursive: true, force: true });
      }
    }
    assert.ok(fallback('/nonexistent-run-user'), 'missing');
  } finally {
    for (const l of [open, link, other, shared]) fs.rmSync(l.root, { recursive: true, force: true });
  }
});

test("regression: another user's TMP/holdfast-UID blocked the fallback socket dir for good; now a name of ours", () => {
  if (uid !== 0) return; // another user's directory is made with chown, as root
  const tmp = tempDir('hf-shared-tmp-');
  const state = tempDir('hf-state-');
  try {
    fs.chmodSync(tmp, 0o1777); // a sticky, world-writable temp dir, as /tmp is
    const env = { ...noRunUser, TMPDIR: tmp, XDG_STATE_HOME: state };
    const planted = path.join(tmp, `holdfast-${uid}`);
    fs.mkdirSync(planted, { mode: 0o700 });
    fs.chownSync(planted, 65534, 65534);
    const socket = defaultSocketPath(env, 'linux');
    const chosen = path.dirname(socket);
    assert.match(path.basename(chosen), new RegExp(`^holdfast-${uid}-[A-Za-z0-9]{6}$`));
    assert.equal(path.dirname(chosen), tmp);
    assert.equal(fs.statSync(chosen).mode & 0o777, 0o700);
    assert.equal(defaultSocketPath(env, 'linux'), socket, 'every client finds it again');
    assert.equal(isStrictSocketDir(socket, env), true);
    ensureSocketDir(socket, env);
    assert.equal(checkSocketDir(socket, env).state, 'ok');
    const written = path.join(state, 'holdfast', 'socket-dir');
    assert.equal(fs.statSync(written).mode & 0o777, 0o600);
    // Gone (a reboot) and taken by the other user, who saw its name: another name of ours.
    fs.rmSync(chosen, { recursive: true });
    fs.mkdirSync(chosen, { mode: 0o700 });
    fs.chownSync(chosen, 65534, 65534);
    const again = defaultSocketPath(env, 'linux');
    assert.notEqual(path.dirname(again), chosen);
    assert.equal(checkSocketDir(again, env).state, 'ok');
    // A name file that is a symlink is not followed, but replaced.
    fs.rmSync(written);
    fs.symlinkSync(path.join(tmp, 'nowhere'), written);
    const replaced = defaultSocketPath(env, 'linux');
    assert.notEqual(path.dirname(replaced), planted);
    assert.equal(checkSocketDir(replaced, env).state, 'ok');
    assert.ok(fs.lstatSync(written).isFile());
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.rmSync(state, { recursive: true, force: true });
  }
});
