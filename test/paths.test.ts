// Where the socket and state go, from the environment alone: Linux (XDG_RUNTIME_DIR) and macOS
// (no XDG_RUNTIME_DIR, a per-user private TMPDIR under /var/folders), and that the trust rules
// accept the macOS choice.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { checkSocketDir, ensureSocketDir, isStrictSocketDir } from '../src/protocol/endpointTrust';
import { defaultLogPath, defaultSocketPath, resolveSocketPath, stateDir } from '../src/protocol/paths';
import { tempDir } from './helpers/daemon';

const uid = process.getuid!();
const macEnv = { HOME: '/Users/ada', TMPDIR: '/var/folders/x1/abc123/T/' };

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
  const env = { HOME: '/Users/ada' };
  assert.equal(defaultSocketPath(env, 'darwin'), '/Users/ada/Library/Application Support/Holdfast/run/holdfast.sock');
  assert.match(defaultSocketPath(env, 'linux'), new RegExp(`/holdfast-${uid}/holdfast\\.sock$`));
});

test('relative XDG_RUNTIME_DIR, XDG_STATE_HOME and TMPDIR are ignored', () => {
  const env = { HOME: '/home/ada', XDG_RUNTIME_DIR: 'run', XDG_STATE_HOME: 'st', TMPDIR: 'tmp' };
  assert.ok(path.isAbsolute(defaultSocketPath(env)));
  assert.match(defaultSocketPath(env), new RegExp(`/holdfast-${uid}/holdfast\\.sock$`));
  assert.equal(stateDir(env), '/home/ada/.local/state/holdfast');
});

test('the trust rules accept the macOS default: holdfast-UID, 0700 and yours, in a private TMPDIR', () => {
  const tmp = tempDir('hf-mac-tmp-');
  try {
    fs.chmodSync(tmp, 0o700); // as /var/folders/.../T is
    const env = { HOME: '/Users/ada', TMPDIR: `${tmp}/` };
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
