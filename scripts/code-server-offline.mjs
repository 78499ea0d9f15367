// Makes a code-server package (installed with --ignore-scripts) installable where only the npm registry is
// reachable, before its postinstall runs `npm install` in lib/vscode: scripts/setup-e2e.sh calls it.
//   - A dependency its lockfile takes from a git repository (code-server 4.96.4: @vscode/proxy-agent from
//     github.com over ssh) is taken from the registry instead, when the registry's tarball is the same one
//     (its integrity is the lockfile's); otherwise this fails and says which.
//   - @vscode/ripgrep's postinstall downloads rg from GitHub unless its cache holds the archive: the cache
//     (under TMPDIR, which setup-e2e.sh makes private to the install) gets one made of Debian's rg.
//
//   node scripts/code-server-offline.mjs CODE_SERVER_PACKAGE_DIR
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const [packageDir] = process.argv.slice(2);
if (!packageDir) fail('usage: node scripts/code-server-offline.mjs CODE_SERVER_PACKAGE_DIR');
const lockfiles = ['lib/vscode/npm-shrinkwrap.json', 'lib/vscode/extensions/npm-shrinkwrap.json']
  .map((file) => path.join(packageDir, file))
  .filter((file) => fs.existsSync(file));
if (!lockfiles.length) fail(`no lib/vscode/npm-shrinkwrap.json in ${packageDir}: not a code-server package`);

for (const file of lockfiles) {
  const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
  let changed = false;
  for (const [key, entry] of Object.entries(lock.packages ?? {})) {
    if (!entry.resolved?.startsWith('git+')) continue;
    const name = key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const dist = JSON.parse(npm(['view', `${name}@${entry.version}`, 'dist', '--json']));
    if (dist.integrity !== entry.integrity) {
      fail(`${name}@${entry.version}: the registry's tarball is not the one ${file} pins (${entry.resolved})`);
    }
    say(`${name}@${entry.version}: from the registry instead of ${entry.resolved}`);
    entry.resolved = dist.tarball;
    changed = true;
  }
  if (changed) fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
}

const ripgrep = JSON.parse(fs.readFileSync(lockfiles[0], 'utf8')).packages?.['node_modules/@vscode/ripgrep'];
if (ripgrep) seedRipgrep(ripgrep.version);

/** Puts `ripgrep-<tag>-<target>.tar.gz` (holding Debian's rg) where @vscode/ripgrep@version looks first. */
function seedRipgrep(version) {
  const rg = execFileSync('sh', ['-c', 'command -v rg || true'], { encoding: 'utf8' }).trim();
  if (!rg) fail("rg not found: install Debian's ripgrep (scripts/setup-system.sh e2e)");
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ripgrep-package-'));
  try {
    const tarball = npm(['pack', '--silent', `@vscode/ripgrep@${version}`], scratch)
      .trim()
      .split('\n')
      .pop();
    execFileSync('tar', ['-xzf', tarball, 'package/lib/postinstall.js'], { cwd: scratch });
    const postinstall = fs.readFileSync(path.join(scratch, 'package/lib/postinstall.js'), 'utf8');
    const tag = /const VERSION = '([^']+)'/.exec(postinstall)?.[1];
    if (!tag) fail(`@vscode/ripgrep@${version}: its postinstall names no VERSION`);
    // @vscode/ripgrep's own names for Linux (its getTarget).
    const target = { x64: 'x86_64-unknown-linux-musl', arm64: 'aarch64-unknown-linux-musl' }[os.arch()];
    if (!target) fail(`no ripgrep target for ${os.arch()}`);
    const cache = path.join(os.tmpdir(), `vscode-ripgrep-cache-${version}`);
    fs.mkdirSync(cache, { recursive: true });
    const archive = path.join(cache, `ripgrep-${tag}-${target}.tar.gz`);
    execFileSync('tar', ['-czhf', archive, '-C', path.dirname(rg), path.basename(rg)]);
    say(`@vscode/ripgrep@${version}: ${archive} seeded with ${rg}`);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

function npm(args, cwd = packageDir) {
  return execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

function say(message) {
  process.stderr.write(`[code-server-offline] ${message}\n`);
}

function fail(message) {
  say(message);
  process.exit(1);
}
