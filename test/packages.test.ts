// Packages per platform: `npm run package` (scripts/package.mjs) builds one .vsix per target, each
// holding node-pty's binary for its target and nothing for another; the daemon's copy picks the
// binary for the running platform, and both doctors say in one line when there is none. Each is fit for
// the marketplace, and what vsce warns about fails the package.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { ensureDaemonInstall } from '../src/extension/daemonInstall';
import { runChecks } from '../src/extension/doctor';
import { binaryTarget, currentTarget, headerTarget, missingPtyBinary } from '../src/host/nodePtyBinary';
import { cliSandbox, CLI_SCRIPT } from './helpers/cli';
import { ROOT } from './helpers/daemon';
import { DAEMON_BUNDLES } from '../src/host/bundles';

const run = promisify(execFile);
const TARGETS = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64'];
const PTY = path.join(ROOT, 'node_modules', 'node-pty');
/** The binary node-pty was built with here (npm ci builds it from source on Linux). */
const HOST_BINARY = path.join(PTY, 'build', 'Release', 'pty.node');
/** A real binary for a target that is not this machine's: one of node-pty's macOS prebuilds. */
const OTHER_TARGET = currentTarget() === 'darwin-arm64' ? 'darwin-x64' : 'darwin-arm64';
const OTHER_BINARY = path.join(PTY, 'prebuilds', OTHER_TARGET, 'pty.node');

const made: string[] = [];
after(() => made.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function tmpdir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hf-packages-'));
  made.push(dir);
  return dir;
}

function unzipList(vsix: string): string[] {
  return execFileSync('unzip', ['-Z1', vsix], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

function unzipEntry(vsix: string, entry: string): Buffer {
  return execFileSync('unzip', ['-p', vsix, entry], { maxBuffer: 64 << 20 });
}

test('binary headers name their target: ELF, Mach-O and PE, x64 and arm64', () => {
  assert.equal(binaryTarget(HOST_BINARY), currentTarget());
  for (const target of ['darwin-x64', 'darwin-arm64', 'win32-x64', 'win32-arm64'])
    assert.equal(binaryTarget(path.join(PTY, 'prebuilds', target, 'pty.node')), target);
  assert.equal(binaryTarget(path.join(PTY, 'package.json')), undefined);
  assert.equal(binaryTarget(path.join(PTY, 'no-such-file')), undefined);
  assert.equal(headerTarget(Buffer.from('\x7fELF')), undefined);
});

/** What `npm run package` printed on stderr (vsce's warnings would be there). */
let packageStderr = '';
/** The folder `npm run package` wrote into, once for the tests that open its packages. */
let packaged: Promise<string> | undefined;
function packageAll(): Promise<string> {
  packaged ??= (async () => {
    const out = tmpdir();
    const started = Date.now();
    const ran = await run(process.execPath, [path.join(ROOT, 'scripts', 'package.mjs'), '--out', out], { cwd: ROOT });
    packageStderr = ran.stderr;
    console.log(`# packaged ${TARGETS.length} targets in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return out;
  })();
  return packaged;
}

test('npm run package: one .vsix per target, with its own node-pty binary and none for another', async () => {
  const out = await packageAll();
  const vsixes = fs.readdirSync(out).sort();
  assert.deepEqual(vsixes, TARGETS.map((t) => `holdfast-${readVersion()}-${t}.vsix`).sort());
  for (const target of TARGETS) {
    const vsix = path.join(out, `holdfast-${readVersion()}-${target}.vsix`);
    const entries = unzipList(vsix);
    const manifest = unzipEntry(vsix, 'extension.vsixmanifest').toString('utf8');
    assert.match(manifest, new RegExp(`TargetPlatform="${target}"`), target);
    for (const bundle of ['extension.js', ...DAEMON_BUNDLES, 'cli.js', 'mcp.js'])
      assert.ok(entries.includes(`extension/dist/${bundle}`), `${target}: ${bundle}`);
    // Everything under node-pty that is not its JavaScript, package.json or licence is a binary.
    const pty = 'extension/node_modules/node-pty/';
    const binaries = entries
      .filter((e) => e.startsWith(pty) && !e.startsWith(`${pty}lib/`) && !e.endsWith('/'))
      .map((e) => e.slice(pty.length))
      .filter((e) => e !== 'package.json' && e !== 'LICENSE')
      .sort();
    const expected = [`prebuilds/${target}/pty.node`];
    if (target.startsWith('darwin-')) expected.push(`prebuilds/${target}/spawn-helper`);
    assert.deepEqual(binaries, expected.sort(), target);
    assert.deepEqual(
      entries.filter((e) => e.endsWith('.node') || e.endsWith('spawn-helper')),
      expected.map((e) => pty + e),
      `${target}: no other binary anywhere`,
    );
    for (const binary of expected) assert.equal(headerTarget(unzipEntry(vsix, pty + binary)), target, binary);
    assert.ok(!entries.some((e) => e.startsWith('extension/node_modules/') && !e.startsWith(pty)), target);
  }
});

test('each .vsix is fit for the marketplace (licence, changelog, PNG icon, repository), no vsce warning', async () => {
  const out = await packageAll();
  assert.doesNotMatch(packageStderr, /WARNING/, packageStderr);
  for (const target of TARGETS) {
    const vsix = path.join(out, `holdfast-${readVersion()}-${target}.vsix`);
    const entries = unzipList(vsix);
    for (const entry of ['extension/LICENSE.txt', 'extension/changelog.md', 'extension/media/holdfast.png'])
      assert.ok(entries.includes(entry), `${target}: ${entry}`);
    const manifest = unzipEntry(vsix, 'extension.vsixmanifest').toString('utf8');
    assert.match(manifest, /<Icon>extension\/media\/holdfast\.png<\/Icon>/, target);
    assert.match(manifest, /<License>extension\/LICENSE\.txt<\/License>/, target);
    assert.match(manifest, /Id="Microsoft\.VisualStudio\.Services\.Links\.Source" Value="https:\/\//, target);
    const png = unzipEntry(vsix, 'extension/media/holdfast.png');
    assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128], 'a 128x128 icon');
  }
  assert.match(
    fs.readFileSync(path.join(ROOT, 'LICENSE'), 'utf8'),
    /^MIT License\n\nCopyright \(c\) \d{4} Holdfast contributors\n/,
  );
});

test('regression: what vsce warns about fails the package (it packed without a licence, saying nothing)', async () => {
  // The package tree in a copy, without its LICENSE: vsce warns "LICENSE not found" and packs on.
  const root = tmpdir();
  for (const part of ['package.json', 'README.md', 'CHANGELOG.md', '.vscodeignore', 'dist', 'media', 'scripts'])
    fs.cpSync(path.join(ROOT, part), path.join(root, part), { recursive: true });
  fs.mkdirSync(path.join(root, 'src', 'host'), { recursive: true });
  fs.copyFileSync(
    path.join(ROOT, 'src', 'host', 'nodePtyBinary.ts'),
    path.join(root, 'src', 'host', 'nodePtyBinary.ts'),
  );
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'));
  const out = path.join(root, 'out');
  const script = path.join(root, 'scripts', 'package.mjs');
  const failed = await run(process.execPath, [script, '--target', currentTarget(), '--out', out], { cwd: root }).then(
    () => undefined,
    (err: { code: number; stderr: string }) => err,
  );
  assert.ok(failed, 'packed all the same');
  assert.equal(failed.code, 1);
  assert.match(failed.stderr, new RegExp(`^package: ${currentTarget()}: vsce warns: LICENSE.* not found$`, 'm'));
  assert.deepEqual(fs.readdirSync(out), [], 'no package left');
});

test("this machine's .vsix works unpacked: node-pty opens a PTY, the daemon's copy takes its binary", async () => {
  const vsix = path.join(await packageAll(), `holdfast-${readVersion()}-${currentTarget()}.vsix`);
  const unpacked = tmpdir();
  execFileSync('unzip', ['-q', vsix, '-d', unpacked]);
  const ext = path.join(unpacked, 'extension');
  const box = cliSandbox();
  try {
    const result = await run(process.execPath, [path.join(ext, 'dist', 'cli.js'), 'doctor', '--json'], {
      env: box.env,
    }).catch((err: { stdout: string }) => err); // no daemon listens: exit 1
    const { checks } = JSON.parse(result.stdout) as { checks: { name: string; ok: boolean; detail: string }[] };
    assert.deepEqual(
      checks.find((c) => c.name === 'node-pty'),
      { name: 'node-pty', ok: true, detail: 'loads and opens a PTY' },
    );
  } finally {
    await box.cleanup();
  }
  const copy = ensureDaemonInstall(ext, tmpdir(), readVersion());
  const pty = path.join(copy.dir, 'node_modules', 'node-pty');
  assert.equal(binaryTarget(path.join(pty, 'prebuilds', currentTarget(), 'pty.node')), currentTarget());
});

function readVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

/** An extension folder whose node-pty holds the given binaries (relative folder → pty.node to copy). */
function fakeExtension(binaries: Record<string, string>, bundles = ['daemon.js']): string {
  const ext = tmpdir();
  for (const bundle of bundles) fs.cpSync(path.join(ROOT, 'dist', bundle), path.join(ext, 'dist', bundle));
  const pty = path.join(ext, 'node_modules', 'node-pty');
  for (const part of ['package.json', 'lib'])
    fs.cpSync(path.join(PTY, part), path.join(pty, part), { recursive: true });
  for (const [dir, from] of Object.entries(binaries)) {
    fs.mkdirSync(path.join(pty, dir), { recursive: true });
    fs.copyFileSync(from, path.join(pty, dir, 'pty.node'));
  }
  return ext;
}

test("the daemon's copy takes the binary for this platform, wherever node-pty keeps it", () => {
  // build/Release holds another platform's binary (as after copying a tree between machines).
  const ext = fakeExtension({
    'build/Release': OTHER_BINARY,
    [`prebuilds/${currentTarget()}`]: HOST_BINARY,
    [`prebuilds/${OTHER_TARGET}`]: OTHER_BINARY,
  });
  const copy = ensureDaemonInstall(ext, tmpdir(), '1.0.0');
  const pty = path.join(copy.dir, 'node_modules', 'node-pty');
  assert.equal(binaryTarget(path.join(pty, 'prebuilds', currentTarget(), 'pty.node')), currentTarget());
  assert.ok(!fs.existsSync(path.join(pty, 'build')));
  assert.ok(!fs.existsSync(path.join(pty, 'prebuilds', OTHER_TARGET)));
});

test("the daemon's copy fails in one line when node-pty has no binary for this platform", () => {
  const ext = fakeExtension({ [`prebuilds/${OTHER_TARGET}`]: OTHER_BINARY });
  const storage = tmpdir();
  const ptyDir = path.join(ext, 'node_modules', 'node-pty');
  assert.throws(
    () => ensureDaemonInstall(ext, storage, '1.0.0'),
    (err: Error) =>
      err.message === `node-pty has no binary for ${currentTarget()} in ${ptyDir}: this .vsix is for ${OTHER_TARGET}`,
  );
  assert.deepEqual(fs.readdirSync(path.join(storage, 'daemon')), []);
});

test('holdfast doctor says in one line that node-pty has no binary for this platform', async () => {
  const ext = fakeExtension({ [`prebuilds/${OTHER_TARGET}`]: OTHER_BINARY }, [path.basename(CLI_SCRIPT)]);
  const box = cliSandbox();
  try {
    const cli = path.join(ext, 'dist', path.basename(CLI_SCRIPT));
    const result = await run(process.execPath, [cli, 'doctor', '--json'], { env: box.env }).then(
      (ok) => ({ code: 0, stdout: ok.stdout }),
      (err: { code: number; stdout: string }) => err,
    );
    assert.equal(result.code, 1, 'a failed check');
    const { checks } = JSON.parse(result.stdout) as { checks: { name: string; ok: boolean; detail: string }[] };
    const check = checks.find((c) => c.name === 'node-pty');
    assert.equal(check?.ok, false);
    const ptyDir = path.join(ext, 'node_modules', 'node-pty');
    assert.equal(
      check?.detail,
      `node-pty has no binary for ${currentTarget()} in ${ptyDir}: this .vsix is for ${OTHER_TARGET}`,
    );
  } finally {
    await box.cleanup();
  }
});

test("the extension's status report says the daemon copy has no binary for this platform", async () => {
  const copy = fakeExtension({ [`prebuilds/${OTHER_TARGET}`]: OTHER_BINARY });
  const checks = await runChecks({
    socket: path.join(tmpdir(), 'holdfast.sock'),
    client: undefined,
    extensionVersion: '1.0.0',
    installDir: copy,
    systemdScope: false,
    workspace: copy,
    tabsHere: 0,
  });
  const check = checks.find((c) => c.name === 'daemon copy');
  assert.equal(check?.level, 'fail');
  assert.equal(check?.detail, missingPtyBinary(path.join(copy, 'node_modules', 'node-pty')));
  assert.match(
    check?.detail ?? '',
    new RegExp(`no binary for ${currentTarget()} .*: this \\.vsix is for ${OTHER_TARGET}$`),
  );
});
