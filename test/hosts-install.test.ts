// `holdfast host install|upgrade` against a real sshd on loopback whose remote user has no Holdfast: the install
// lands in ~/.holdfast/VERSION-DIGEST with private modes and `--host` finds it; a second install sends nothing; a
// planted symlink, an unknown platform and a host without Node 20+ are refused in one line; a daemon of another
// protocol is one line (a stub far end speaks for it: no build of another protocol exists to run here); and a real
// daemon of an older version is handed over by `host upgrade`, its program keeping its PID.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { RUNTIME_BUNDLES } from '../src/host/bundles';
import { type CliSandbox, isOneErrorLine, runCli } from './helpers/cli';
import { ROOT, waitFor } from './helpers/daemon';
import { record } from './helpers/reliability';
import { BASH, hostsSandbox, REMOTE, type SshServer, startSshServer } from './helpers/sshd';

const ODD = 'hf-odd';
const NO_NODE = 'hf-no-node';
const PLANTED = 'hf-planted';

let box: CliSandbox;
let sshd: SshServer;
let fakes: string;
const homes = { odd: '', noNode: '', planted: '' };

/** A stub far end in place of the host's holdfast: it reads the hello and answers as a daemon of another protocol. */
const STUB = `
const mode = process.argv[2];
let seen = Buffer.alloc(0);
const frame = (kind, body) => {
  const payload = Buffer.from(JSON.stringify(body));
  const header = Buffer.alloc(5);
  header.writeUInt32BE(payload.length, 0);
  header[4] = kind;
  return Buffer.concat([header, payload]);
};
process.stdin.on('data', (chunk) => {
  seen = Buffer.concat([seen, chunk]);
  if (seen.length < 5 || seen.length < 5 + seen.readUInt32BE(0)) return;
  const answer = mode === 'old'
    ? frame(1, { protocol: 0, version: '0.0.1', pid: 1 })
    : frame(5, { code: 'protocol', message: 'too old', protocol: 3, oldestClient: 2, version: '9.0.0' });
  process.stdout.write(answer, () => process.exit(0));
});
`;

before(async () => {
  fakes = fs.mkdtempSync(path.join(os.tmpdir(), 'hf-install-'));
  for (const name of Object.keys(homes) as (keyof typeof homes)[]) {
    homes[name] = path.join(fakes, `home-${name}`);
    fs.mkdirSync(homes[name], { mode: 0o700 });
  }
  // A host whose uname names a platform Holdfast has no binary for.
  const odd = path.join(fakes, 'odd-bin');
  fs.mkdirSync(odd);
  fs.writeFileSync(path.join(odd, 'uname'), '#!/bin/sh\necho FreeBSD amd64\n', { mode: 0o755 });
  // A host with every program of /usr/bin but node.
  const noNode = path.join(fakes, 'no-node-bin');
  fs.mkdirSync(noNode);
  for (const name of fs.readdirSync('/usr/bin'))
    if (name !== 'node' && name !== 'nodejs') fs.symlinkSync(path.join('/usr/bin', name), path.join(noNode, name));
  fs.writeFileSync(path.join(fakes, 'stub.js'), STUB);
  sshd = await startSshServer({
    holdfastOnPath: false,
    aliases: {
      [ODD]: { HOME: homes.odd, PATH: `${odd}:/usr/bin:/bin` },
      [NO_NODE]: { HOME: homes.noNode, PATH: noNode },
      [PLANTED]: { HOME: homes.planted },
    },
  });
  const stub = (mode: string) => `${process.execPath} ${path.join(fakes, 'stub.js')} ${mode} #`;
  box = hostsSandbox(sshd, [
    { target: REMOTE, name: 'remote' },
    { target: REMOTE, name: 'old', command: stub('old') },
    { target: REMOTE, name: 'new', command: stub('new') },
  ]);
});
after(async () => {
  await box?.cleanup();
  await sshd?.stop();
  fs.rmSync(fakes, { recursive: true, force: true });
});

interface Installed {
  dir: string;
  name: string;
  target: string;
  node: string;
  installed: boolean;
  bytes: number;
}

/** Every path under `dir` with its mode, for the modes check. */
function modes(dir: string): [string, number][] {
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).map((entry) => {
    const abs = path.join(entry.parentPath, entry.name);
    return [path.relative(dir, abs), fs.lstatSync(abs).mode];
  });
}

test('a host without holdfast: one line offering the install', async () => {
  const result = await box.run(['--host', 'remote', 'list']);
  assert.equal(result.code, 1);
  assert.ok(isOneErrorLine(result.stderr), result.stderr);
  assert.match(result.stderr, /holdfast is not installed on hf-remote: .*`holdfast host install hf-remote`/);
});

test('an install lands in ~/.holdfast/VERSION-DIGEST, private; --host finds it; again, nothing is sent', async () => {
  const out = await box.ok(['host', 'install', 'remote']);
  assert.match(out, /^remote: installed ~\/\.holdfast\/0\.1\.0-[0-9a-f]{12} \(linux-x64, node \/usr\/bin\/node; /);
  const first = JSON.parse(await box.ok(['host', 'install', 'remote', '--json'])) as Installed;
  assert.equal(first.installed, false, 'the second install is a no-op');
  assert.equal(first.bytes, 0);
  assert.match(await box.ok(['host', 'install', 'remote']), /is there already/);

  const root = path.join(sshd.remoteEnv.HOME!, '.holdfast');
  assert.equal(fs.lstatSync(root).mode & 0o7777, 0o700);
  const launcher = fs.lstatSync(path.join(root, 'holdfast'));
  assert.ok(launcher.isFile());
  assert.equal(launcher.mode & 0o777, 0o700);
  assert.deepEqual(fs.readdirSync(root).sort(), ['holdfast', first.name].sort(), 'no temporary folder is left behind');
  const install = path.join(root, first.name);
  const inside = modes(install);
  for (const [rel, mode] of [['.', fs.lstatSync(install).mode] as [string, number], ...inside]) {
    assert.equal(mode & 0o077, 0, `${rel}: nothing for group or others (${(mode & 0o777).toString(8)})`);
    assert.ok((mode & 0o170000) === 0o040000 || (mode & 0o170000) === 0o100000, `${rel}: a file or a folder only`);
  }
  const files = inside.map(([rel]) => rel);
  for (const bundle of RUNTIME_BUNDLES) assert.ok(files.includes(`dist/${bundle}`), bundle);
  assert.ok(files.includes('node_modules/node-pty/build/Release/pty.node'), files.join(' '));
  assert.ok(!files.some((rel) => rel.endsWith('.map')), 'no source maps sent');

  // The remote's daemon now runs from the install: a session there is started, typed into and read from here.
  const id = (await box.ok(['--host', 'remote', 'new', '--name', 'far', ...BASH])).trim();
  await box.ok(['--host', 'remote', 'send', 'far', '--text', 'echo installed-$((6*7))', '--enter']);
  await box.ok(['--host', 'remote', 'wait', 'far', '--for', 'text:^installed-42$', '--timeout-ms', '20000']);
  const listed = await box.ok(['--host', 'remote', 'list']);
  assert.match(listed, new RegExp(`^${id}\\s+far\\b`, 'm'));
  const version = JSON.parse(await box.ok(['--host', 'remote', 'version', '--json'])) as { daemon: { pid: number } };
  const cmdline = fs.readFileSync(`/proc/${version.daemon.pid}/cmdline`, 'utf8');
  assert.ok(cmdline.includes(`${install}/dist/daemon.js`), cmdline);
});

test('a planted symlink is never followed: the install root or its folder, each refused in one line', async () => {
  const elsewhere = path.join(fakes, 'elsewhere');
  fs.mkdirSync(elsewhere, { mode: 0o700 });
  const root = path.join(homes.planted, '.holdfast');
  fs.symlinkSync(elsewhere, root);
  let result = await box.run(['host', 'install', PLANTED]);
  assert.equal(result.code, 1);
  assert.ok(isOneErrorLine(result.stderr), result.stderr);
  assert.match(
    result.stderr,
    /hf-planted refused the install: .*\.holdfast is not a folder of this user with mode 0700/,
  );
  assert.deepEqual(fs.readdirSync(elsewhere), []);

  fs.unlinkSync(root);
  fs.mkdirSync(root, { mode: 0o755 });
  result = await box.run(['host', 'install', PLANTED]);
  assert.match(result.stderr, /not a folder of this user with mode 0700/, 'a folder others may read is refused');

  fs.chmodSync(root, 0o700);
  const name = (JSON.parse(await box.ok(['host', 'install', 'remote', '--json'])) as Installed).name;
  fs.symlinkSync(elsewhere, path.join(root, name));
  result = await box.run(['host', 'install', PLANTED]);
  assert.equal(result.code, 1);
  assert.ok(isOneErrorLine(result.stderr), result.stderr);
  assert.match(result.stderr, new RegExp(`refused the install: .*${name} is a symlink`));
  assert.deepEqual(fs.readdirSync(elsewhere), [], 'nothing was written through the symlink');
  assert.deepEqual(fs.readdirSync(root), [name], 'no temporary folder is left behind');
  record({
    item: 'hostile',
    name: '`holdfast host install H` where ~/.holdfast is a symlink, a 0755 folder, or its versioned folder a symlink',
    value:
      'refused in one line by the receiver before a file lands (0700 and owner checked, never followed); ' +
      'the symlink target untouched, no temporary folder left',
  });
});

test('an unknown platform, and a host without Node 20+, are refused in one line naming what is missing', async () => {
  const odd = await box.run(['host', 'install', ODD]);
  assert.equal(odd.code, 1);
  assert.ok(isOneErrorLine(odd.stderr), odd.stderr);
  assert.match(odd.stderr, /hf-odd is FreeBSD amd64: Holdfast installs on Linux and macOS, x64 and arm64 only/);
  assert.deepEqual(fs.readdirSync(homes.odd), [], 'nothing was sent');
  record({
    item: 'hostile',
    name: '`holdfast host install H` on a host whose uname is FreeBSD amd64; one with no Node 20+',
    value:
      'one line each naming what is missing (the platforms there are binaries for; Node 20+, or --copy-node); ' +
      'nothing sent',
  });

  const bare = await box.run(['host', 'install', NO_NODE]);
  assert.equal(bare.code, 1);
  assert.ok(isOneErrorLine(bare.stderr), bare.stderr);
  assert.match(
    bare.stderr,
    /hf-no-node has no node on the PATH; the daemon needs Node 20 or later: .*`holdfast host install \S+ --copy-node`/,
  );
  // With the user's yes, this machine's node (a plain one of the same platform) goes with the install.
  const sent = JSON.parse(await box.ok(['host', 'install', NO_NODE, '--copy-node', '--json'])) as Installed;
  assert.match(sent.node, /sent/);
  const copied = path.join(homes.noNode, '.holdfast', sent.name, 'node');
  assert.equal(fs.statSync(copied).size, fs.statSync(process.execPath).size);
  const version = await runCli(box.env, ['--host', NO_NODE, 'version']);
  assert.equal(version.code, 0, version.stderr);
});

test('a daemon of another protocol is one line with both versions and the fix, never a schema error', async () => {
  const old = await box.run(['--host', 'old', 'list']);
  assert.equal(old.code, 1);
  assert.ok(isOneErrorLine(old.stderr), old.stderr);
  assert.match(
    old.stderr,
    new RegExp(
      'the daemon on old is holdfast 0\\.0\\.1 \\(protocol 0\\), older than this holdfast 0\\.1\\.0 speaks to ' +
        '\\(protocol 1 to 1\\): `holdfast host upgrade old`',
    ),
  );
  record({
    item: 'hostile',
    name: 'a far end whose hello says protocol 0 and lacks fields; one that refuses our hello as too old (protocol 3)',
    value:
      'one line naming both versions and the fix (`holdfast host upgrade H`; update Holdfast here), never a ' +
      'schema error; not tried again',
  });
  const newer = await box.run(['--host', 'new', 'list', '--json']);
  assert.equal(newer.code, 1);
  const error = (JSON.parse(newer.stdout) as { error: { code: string; message: string } }).error;
  assert.equal(error.code, 'protocol');
  assert.match(
    error.message,
    new RegExp(
      '^the daemon on new is holdfast 9\\.0\\.0 \\(protocol 3\\), too new to serve this holdfast 0\\.1\\.0 ' +
        '\\(protocol 1\\): update Holdfast on this machine$',
    ),
  );
});

test('host upgrade hands an older daemon over to the install: its program keeps its PID', async () => {
  const stopped = await box.run(['--host', 'remote', 'stop']);
  assert.ok(stopped.code === 0 || stopped.code === 6, stopped.stderr); // 6: none was running
  // A real daemon of an older version: this build's bundles with their version said as 0.0.9.
  const old = path.join(sshd.remoteEnv.HOME!, 'old');
  fs.mkdirSync(path.join(old, 'dist'), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(old, 'node_modules'));
  for (const bundle of RUNTIME_BUNDLES) {
    const text = fs.readFileSync(path.join(ROOT, 'dist', bundle), 'utf8');
    const older = text.replace(/var VERSION = true \? "[^"]*"/, 'var VERSION = true ? "0.0.9"');
    assert.ok(bundle !== 'daemon.js' || older !== text, 'the daemon says its version');
    fs.writeFileSync(path.join(old, 'dist', bundle), older);
  }
  execFileSync(process.execPath, [path.join(old, 'dist', 'cli.js'), 'new', '--name', 'kept', ...BASH], {
    env: sshd.remoteEnv,
  });
  const before = JSON.parse(await box.ok(['--host', 'remote', 'show', 'kept', '--json'])) as { pid: number };
  assert.ok(before.pid > 0);
  const out = await box.ok(['host', 'upgrade', 'remote']);
  assert.match(out, /remote: daemon \d+ \(0\.0\.9\) → \d+: 1 session kept/);
  const after = JSON.parse(await box.ok(['--host', 'remote', 'show', 'kept', '--json'])) as { pid: number };
  assert.equal(after.pid, before.pid, 'the program kept its PID');
  const version = JSON.parse(await box.ok(['--host', 'remote', 'version', '--json'])) as {
    daemon: { version: string };
  };
  assert.equal(version.daemon.version, '0.1.0');
  await waitFor(async () => (await box.run(['--host', 'remote', 'list'])).code === 0, 10_000, 'the new daemon');
  // Upgraded already: nothing more is handed over.
  assert.match(await box.ok(['host', 'upgrade', 'remote']), /is 0\.1\.0 already/);
});
