// `code some-file` inside a Holdfast terminal opens the file in the window showing that terminal.
// The editor's CLI talks to the window through the socket named by VSCODE_IPC_HOOK_CLI; the one a
// process got at birth dies with its window. So each session gets a stable path (a symlink in the
// daemon's private socket directory) that the extension re-points at the current window's hook
// whenever it takes input for the session. Pure Node (no vscode import), unit-tested.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensurePrivateDir } from '../host/paths';
import { shellQuote } from '../text/shellQuote';

export function newHookId(): string {
  return randomBytes(6).toString('hex');
}

/** Short on purpose: a Unix socket path must stay under ~104 bytes, and the CLI connects through it. */
export function hookPath(socketPath: string, hookId: string): string {
  return path.join(path.dirname(socketPath), 'cli', `${hookId}.sock`);
}

/** Points `link` at `target` in one step (a new symlink renamed over the old one). */
export function pointHook(link: string, target: string): void {
  ensurePrivateDir(path.dirname(link), true);
  try {
    if (fs.readlinkSync(link) === target) return;
  } catch {
    // missing or not a link: (re)create it
  }
  const tmp = `${link}.${process.pid}.${randomBytes(3).toString('hex')}`;
  fs.symlinkSync(target, tmp);
  try {
    fs.renameSync(tmp, link);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

export function removeHook(link: string): void {
  fs.rmSync(link, { force: true });
}

/** Removes hooks no session refers to any more. */
export function pruneHooks(socketPath: string, liveHookIds: ReadonlySet<string>): void {
  const dir = path.join(path.dirname(socketPath), 'cli');
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return; // no hook folder (no session ever got one): nothing to prune
  }
  for (const name of names) {
    const id = name.replace(/\.sock(\..*)?$/, '');
    if (!liveHookIds.has(id)) fs.rmSync(path.join(dir, name), { force: true });
  }
}

/**
 * The editor's remote CLI folder (VS Code Server, code-server): `<appRoot>/bin/remote-cli`. It is
 * what makes `code` talk to VSCODE_IPC_HOOK_CLI. Returns the folder and the script to run as `code`.
 */
export function findRemoteCli(appRoot: string): { dir: string; script: string } | undefined {
  const dir = path.join(appRoot, 'bin', 'remote-cli');
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => !n.endsWith('.cmd') && !n.endsWith('.ps1'));
  } catch {
    return undefined; // this editor ships no remote CLI: sessions use the `code` on PATH
  }
  // VS Code Server ships `code`; code-server ships `code-<platform>.sh` (and a `code-server` link to it).
  const preferred = ['code', `code-${process.platform}.sh`, 'code-server'];
  const script =
    preferred.find((n) => names.includes(n)) ?? names.filter((n) => !/-(darwin|linux|win32)\.sh$/.test(n)).sort()[0];
  return script ? { dir, script: path.join(dir, script) } : undefined;
}

/** Writes an executable script in one step (readers never see half a file). */
export function writeScript(file: string, body: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, body, { mode: 0o755 });
  fs.renameSync(tmp, file);
}

/** A `code` command for sessions that runs the editor's remote CLI (which reads VSCODE_IPC_HOOK_CLI). */
export function writeCodeShim(binDir: string, remoteCliScript: string): string {
  const file = path.join(binDir, 'code');
  writeScript(
    file,
    '#!/bin/sh\n' +
      "# Written by the Holdfast extension: the editor's CLI, talking to the window that shows this terminal.\n" +
      `exec ${shellQuote(remoteCliScript)} "$@"\n`,
  );
  return file;
}

/** The `holdfast` command: the bundled CLI run by the editor's own Node (Electron run as Node). */
export function writeHoldfastLauncher(
  binDir: string,
  execPath: string,
  cliScript: string,
  socketPath?: string,
): string {
  const file = path.join(binDir, 'holdfast');
  const socketLine = socketPath
    ? `: "\${HOLDFAST_SOCKET:=${socketPath.replace(/["\\$`]/g, '\\$&')}}"\nexport HOLDFAST_SOCKET\n`
    : '';
  writeScript(
    file,
    `#!/bin/sh\n# Written by the Holdfast extension.\n${socketLine}` +
      `ELECTRON_RUN_AS_NODE=1 exec ${shellQuote(execPath)} ${shellQuote(cliScript)} "$@"\n`,
  );
  return file;
}
