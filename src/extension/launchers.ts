// `holdfast` on PATH in every VS Code terminal, and `code` (the editor's CLI) on PATH in Holdfast
// sessions: small launcher scripts in global storage (codeCli.ts writes them).
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { findRemoteCli, writeCodeShim, writeHoldfastLauncher } from './codeCli';
import type { LazyDaemonInstall } from './daemonInstall';
import { describeEnvironment } from './ui';
import { ui } from '../text/uiText';

export interface Launchers {
  /** The `holdfast` launcher, when it was written. */
  cliLauncher?: string;
  /** The editor's own CLI script, when this editor ships one. */
  remoteCli?: string;
  /** Folders a new session puts first on its PATH. */
  sessionPath: () => string[];
}

/** Writes the launchers; a failure is logged and leaves the terminals without them. */
export function installLaunchers(
  context: vscode.ExtensionContext,
  install: LazyDaemonInstall,
  /** The socket, when the setting chose one (the CLI must then be told it). */
  customSocket: string | undefined,
  log: vscode.LogOutputChannel,
): Launchers {
  const storage = context.globalStorageUri.fsPath;
  const binDir = path.join(storage, 'bin');
  const sessionBinDir = path.join(storage, 'session-bin');
  const remoteCli = findRemoteCli(vscode.env.appRoot);
  let cliLauncher: string | undefined;
  try {
    const cliScript = install.get().cliScript;
    if (fs.existsSync(cliScript)) {
      cliLauncher = writeHoldfastLauncher(binDir, process.execPath, cliScript, customSocket);
      describeEnvironment(context.environmentVariableCollection, ui`Puts the \`holdfast\` command on PATH`);
      context.environmentVariableCollection.prepend('PATH', binDir + path.delimiter);
    }
    if (remoteCli) writeCodeShim(sessionBinDir, remoteCli.script);
  } catch (err) {
    log.warn(`setting up the holdfast/code launchers: ${(err as Error).message}`);
  }
  return {
    cliLauncher,
    remoteCli: remoteCli?.script,
    sessionPath: () => [...(cliLauncher ? [binDir] : []), ...(remoteCli ? [sessionBinDir] : [])],
  };
}
