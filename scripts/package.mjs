// `npm run package`: one .vsix per platform (vsce --target), each carrying node-pty's binary for
// that platform only, at node_modules/node-pty/prebuilds/<target>/ where node-pty looks for it.
// Each target is staged in a temporary copy of the package tree (node_modules is shared and stays
// untouched) and packed there by vsce. Where each target's binary comes from:
//   darwin-x64, darwin-arm64  node-pty's own prebuilds (pty.node and spawn-helper)
//   linux-<this machine>      node-pty's build from source, build/Release/pty.node
//   linux-<other arch>        $HOLDFAST_NODE_PTY_LINUX_<ARCH>: a folder holding a pty.node built on
//                             that architecture (`npm rebuild node-pty`, then its build/Release),
//                             else a cross-compile with Debian's g++-<triplet> (e.g. g++-aarch64-linux-gnu)
// Every binary's header is checked against its target before it is packed. What vsce warns about
// fails the package (vsce itself answers its own "continue?" with yes when no terminal is attached).
// Usage: node scripts/package.mjs [--target T]... [--out DIR]   (default: every target, into dist-vsix/)
import * as esbuild from 'esbuild';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const root = path.resolve(import.meta.dirname, '..');
const ptyDir = path.join(root, 'node_modules', 'node-pty');
const TARGETS = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64'];
/** GNU triplets of the cross compilers for Linux targets. */
const TRIPLETS = { x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' };

class PackageError extends Error {}

/** src/host/nodePtyBinary.ts, the one reader of binary headers, bundled for this script. */
async function loadBinaryRules() {
  const built = await esbuild.build({
    entryPoints: [path.join(root, 'src', 'host', 'nodePtyBinary.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    logLevel: 'warning',
  });
  return import(`data:text/javascript,${encodeURIComponent(built.outputFiles[0].text)}`);
}

function parseArgs(argv) {
  const targets = [];
  let out = path.join(root, 'dist-vsix');
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--target' && TARGETS.includes(argv[i + 1])) targets.push(argv[++i]);
    else if (argv[i] === '--out' && argv[i + 1]) out = path.resolve(argv[++i]);
    else throw new PackageError(`usage: package.mjs [--target ${TARGETS.join('|')}]... [--out DIR]`);
  }
  return { targets: targets.length > 0 ? targets : TARGETS, out };
}

function onPath(command) {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir && fs.existsSync(path.join(dir, command)));
}

/** node-gyp as npm runs it for install scripts, else the copy bundled with this Node's npm. */
function nodeGyp() {
  const bundled = path.resolve(process.execPath, '../../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js');
  const gyp = process.env.npm_config_node_gyp || bundled;
  if (!fs.existsSync(gyp)) throw new PackageError(`no node-gyp (looked for ${gyp}); run through \`npm run package\``);
  return gyp;
}

/** Builds node-pty's pty.node for a Linux architecture other than this machine's, into `work`. */
function crossCompile(target, arch, work) {
  const triplet = TRIPLETS[arch];
  const envName = `HOLDFAST_NODE_PTY_${target.toUpperCase().replace('-', '_')}`;
  if (process.platform !== 'linux' || !triplet || !onPath(`${triplet}-g++`))
    throw new PackageError(
      `${target}: set ${envName} to a folder with a pty.node built on ${target} (\`npm rebuild node-pty\` there), ` +
        `or install a cross compiler (Debian: apt-get install g++-${triplet})`,
    );
  // Node's headers ship beside its binary (nodesource packages and nodejs.org tarballs alike);
  // node-gyp cannot download them here.
  const nodeDir = path.resolve(process.execPath, '../..');
  if (!fs.existsSync(path.join(nodeDir, 'include', 'node', 'node_api.h')))
    throw new PackageError(`${target}: no Node headers in ${nodeDir}/include/node to build node-pty against`);
  const build = path.join(work, `node-pty-${target}`);
  fs.mkdirSync(build, { recursive: true });
  for (const part of ['binding.gyp', 'src'])
    fs.cpSync(path.join(ptyDir, part), path.join(build, part), { recursive: true });
  const tool = (name) => `${triplet}-${name}`;
  execFileSync(process.execPath, [nodeGyp(), 'rebuild', `--arch=${arch}`, `--nodedir=${nodeDir}`, '--loglevel=warn'], {
    cwd: build,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      CC: tool('gcc'),
      CXX: tool('g++'),
      LINK: tool('g++'),
      AR: tool('ar'),
      // binding.gyp asks Node for node-addon-api, a dependency of node-pty
      NODE_PATH: path.join(root, 'node_modules'),
    },
  });
  return path.join(build, 'build', 'Release');
}

/** The folder holding `target`'s pty.node (and spawn-helper on macOS). */
function binaryFolder(target, work) {
  const [platform, arch] = target.split('-');
  const fromEnv = process.env[`HOLDFAST_NODE_PTY_${target.toUpperCase().replace('-', '_')}`];
  if (fromEnv) return path.resolve(fromEnv);
  if (platform === 'darwin') return path.join(ptyDir, 'prebuilds', target);
  if (process.platform === 'linux' && arch === process.arch) return path.join(ptyDir, 'build', 'Release');
  return crossCompile(target, arch, work);
}

/** The package tree for one target: what the .vsix holds, plus what `npm list` (run by vsce) needs. */
function stage(target, binaries, dir) {
  // What is missing is vsce's to find and warn about (a warning fails the package).
  for (const part of ['README.md', 'LICENSE', 'CHANGELOG.md', '.vscodeignore', 'dist', 'media'])
    if (fs.existsSync(path.join(root, part)))
      fs.cpSync(path.join(root, part), path.join(dir, part), { recursive: true });
  // Everything else the extension uses is bundled into dist/: the .vsix carries node-pty only.
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  manifest.dependencies = { 'node-pty': manifest.dependencies['node-pty'] };
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const stagedPty = path.join(dir, 'node_modules', 'node-pty');
  for (const part of ['package.json', 'LICENSE', 'lib'])
    fs.cpSync(path.join(ptyDir, part), path.join(stagedPty, part), { recursive: true });
  // node-pty's own dependency, there only so that `npm list` finds the tree complete (.vscodeignore drops it)
  fs.cpSync(path.join(root, 'node_modules', 'node-addon-api'), path.join(dir, 'node_modules', 'node-addon-api'), {
    recursive: true,
  });
  const into = path.join(stagedPty, 'prebuilds', target);
  fs.mkdirSync(into, { recursive: true });
  for (const name of ['pty.node', 'spawn-helper']) {
    const from = path.join(binaries, name);
    if (!fs.existsSync(from)) continue;
    fs.copyFileSync(from, path.join(into, name));
    // node-pty runs spawn-helper on macOS; npm's copy of the prebuild has lost its executable bit.
    if (name === 'spawn-helper') fs.chmodSync(path.join(into, name), 0o755);
  }
  return manifest.version;
}

/** One vsce run; any warning it prints fails the package, which is then removed. */
function packWithVsce(vsce, target, vsix, cwd) {
  // '*' activation is chosen on purpose: restored tabs appear ~0.5 s sooner (README, docs/bench.md).
  const args = ['package', '--target', target, '--out', vsix, '--no-rewrite-relative-links', '--allow-star-activation'];
  const ran = spawnSync(vsce, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const said = stripVTControlCharacters(ran.stderr ?? '');
  process.stderr.write(said);
  if (ran.status !== 0) throw new PackageError(`${target}: vsce failed (exit ${ran.status ?? ran.signal})`);
  const warning = /WARNING\s+(.*)/.exec(said);
  if (warning) {
    fs.rmSync(vsix, { force: true });
    throw new PackageError(`${target}: vsce warns: ${warning[1].trim()}`);
  }
}

async function main() {
  const { targets, out } = parseArgs(process.argv.slice(2));
  const { binaryTarget } = await loadBinaryRules();
  const vsce = path.join(root, 'node_modules', '.bin', 'vsce');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'holdfast-package-'));
  try {
    fs.mkdirSync(out, { recursive: true });
    for (const target of targets) {
      const binaries = binaryFolder(target, work);
      const found = binaryTarget(path.join(binaries, 'pty.node'));
      if (found !== target)
        throw new PackageError(
          `${target}: ${binaries}/pty.node is ${found ? `for ${found}` : 'missing or unreadable'}`,
        );
      if (target.startsWith('darwin-') && binaryTarget(path.join(binaries, 'spawn-helper')) !== target)
        throw new PackageError(`${target}: node-pty needs ${binaries}/spawn-helper for ${target} on macOS`);
      const dir = path.join(work, target);
      const version = stage(target, binaries, dir);
      const vsix = path.join(out, `holdfast-${version}-${target}.vsix`);
      packWithVsce(vsce, target, vsix, dir);
      console.log(`${target}: ${path.relative(process.cwd(), vsix)}`);
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err instanceof PackageError ? `package: ${err.message}` : err);
  process.exit(1);
});
