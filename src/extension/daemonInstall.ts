// The daemon runs from its own copy of its files in global storage, one folder per build, so
// that updating or uninstalling the extension never pulls files out from under a running daemon.
// Pure Node (no vscode import), unit-tested.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { nodePtyRuntimeFiles } from '../host/nodePtyBinary';
import type { Log } from './log';
import { RUNTIME_BUNDLES } from '../host/bundles';

export interface DaemonInstall {
  /** The folder of this build's copy. */
  dir: string;
  daemonScript: string;
  cliScript: string;
}

/** The bundles the copy holds; the daemon runs the CLI from it too (agents' hooks run `cli.js notify`). */
const COPIED_BUNDLES = RUNTIME_BUNDLES;

/**
 * Name of the copy: the extension version plus a hash of its bundles, so a rebuilt dev bundle gets
 * its own folder.
 */
export function installName(version: string, ...bundles: Buffer[]): string {
  const hash = createHash('sha256');
  for (const bundle of bundles) hash.update(bundle);
  const digest = hash.digest('hex').slice(0, 12);
  return `${version.replace(/[^A-Za-z0-9._-]/g, '_')}-${digest}`;
}

/**
 * Makes sure `<storageDir>/daemon/<version>-<hash>/` holds dist/daemon.js, dist/cli.js and node-pty's
 * runtime files, copying them from the extension folder the first time. The copy is written to a
 * temporary folder and renamed into place, so a half-written copy is never used.
 */
export function ensureDaemonInstall(extensionDir: string, storageDir: string, version: string): DaemonInstall {
  const bundles = COPIED_BUNDLES.map((file) => path.join(extensionDir, 'dist', file));
  // daemon.js must be there (a clear error when not); the others are hashed when present.
  const name = installName(
    version,
    fs.readFileSync(bundles[0]),
    ...bundles.slice(1).flatMap((file) => (fs.existsSync(file) ? [fs.readFileSync(file)] : [])),
  );
  const root = path.join(storageDir, 'daemon');
  const dir = path.join(root, name);
  const result: DaemonInstall = {
    dir,
    daemonScript: path.join(dir, 'dist', 'daemon.js'),
    cliScript: path.join(dir, 'dist', 'cli.js'),
  };
  if (fs.existsSync(path.join(dir, '.complete'))) {
    touch(dir); // in use: keeps it out of pruning
    return result;
  }

  fs.mkdirSync(root, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(root, `.tmp-${name}-`));
  try {
    for (const file of COPIED_BUNDLES.flatMap((bundle) => [bundle, `${bundle}.map`])) {
      const from = path.join(extensionDir, 'dist', file);
      if (fs.existsSync(from)) copyFile(from, path.join(tmp, 'dist', file));
    }
    const ptyDir = path.join(extensionDir, 'node_modules', 'node-pty');
    if (!fs.existsSync(path.join(ptyDir, 'package.json')))
      throw new Error(`node-pty is missing from the extension (${ptyDir})`);
    for (const file of nodePtyRuntimeFiles(ptyDir))
      copyFile(path.join(ptyDir, file), path.join(tmp, 'node_modules', 'node-pty', file));
    fs.writeFileSync(path.join(tmp, '.complete'), `${new Date().toISOString()}\n`);
    try {
      fs.renameSync(tmp, dir);
    } catch (err) {
      // Another window installed the same build at the same moment: use theirs.
      if (!fs.existsSync(path.join(dir, '.complete'))) throw err;
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  return result;
}

function touch(dir: string): void {
  try {
    const now = new Date();
    fs.utimesSync(dir, now, now);
  } catch {
    // only a pruning hint
  }
}

function copyFile(from: string, to: string): void {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(from, to);
  fs.chmodSync(to, fs.statSync(from).mode & 0o777);
}

/**
 * Removes old copies: keeps `keep` newest plus `current`, and anything younger than `minAgeMs`
 * (a daemon started from an older copy may still be running; its files stay until it is long gone).
 */
export function pruneDaemonInstalls(
  storageDir: string,
  current: string,
  keep = 3,
  minAgeMs = 7 * 24 * 3600_000,
  now = Date.now(),
): string[] {
  const root = path.join(storageDir, 'daemon');
  if (!fs.existsSync(root)) return [];
  const entries = fs
    .readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => ({ dir: path.join(root, e.name), mtime: fs.statSync(path.join(root, e.name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  const removed: string[] = [];
  entries.forEach((entry, index) => {
    if (entry.dir === current || index < keep || now - entry.mtime < minAgeMs) return;
    fs.rmSync(entry.dir, { recursive: true, force: true });
    removed.push(entry.dir);
  });
  // Leftovers of interrupted copies.
  for (const e of fs.readdirSync(root)) {
    const abs = path.join(root, e);
    if (e.startsWith('.tmp-') && now - fs.statSync(abs).mtimeMs > 3600_000)
      fs.rmSync(abs, { recursive: true, force: true });
  }
  return removed;
}

/** This build's copy, made on first need; a failure is kept for the status report and thrown to the caller. */
export class LazyDaemonInstall {
  private install: DaemonInstall | undefined;
  private failure: string | undefined;

  constructor(
    private readonly extensionDir: string,
    private readonly storageDir: string,
    private readonly version: string,
    private readonly log: Log,
  ) {}

  /** The copy's folder, once made. */
  get dir(): string | undefined {
    return this.install?.dir;
  }

  /** Why the last attempt to make the copy failed. */
  get error(): string | undefined {
    return this.failure;
  }

  get(): DaemonInstall {
    if (this.install) return this.install;
    try {
      this.install = ensureDaemonInstall(this.extensionDir, this.storageDir, this.version);
    } catch (err) {
      this.failure = `cannot copy the daemon into ${this.storageDir}: ${(err as Error).message}`;
      throw new Error(this.failure, { cause: err });
    }
    this.failure = undefined;
    try {
      pruneDaemonInstalls(this.storageDir, this.install.dir);
    } catch (err) {
      this.log.warn(`pruning old daemon copies: ${(err as Error).message}`);
    }
    return this.install;
  }
}
