// Holdfast's VS Code side: adopt (or start) the terminal daemon, bring back this workspace's
// tabs, and offer the profile and commands. deactivate() only detaches: sessions keep running.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { DisposableStore } from '../protocol/disposable';
import { resolveSocketPath } from '../protocol/paths';
import { findRemoteCli, writeCodeShim, writeHoldfastLauncher } from './codeCli';
import { registerCommands } from './commands';
import { DaemonConnection } from './daemonConnection';
import { DaemonInstall, ensureDaemonInstall, pruneDaemonInstalls } from './daemonInstall';
import { workspaceKey } from './layout';
import { LayoutTracker } from './layoutTracker';
import { registerMcpProvider } from './mcpProvider';
import { RecoverySettingsMirror } from './recoverySettings';
import { SessionList } from './sessionList';
import { registerSidebar } from './sidebar';
import { settings } from './settings';
import { StartupTerminalSweep } from './startupTerminal';
import { StatusBar } from './statusBar';
import { systemdScopePrefix, systemdScopeWorks } from './systemdScope';
import { TabManager } from './tabs';

let running: DisposableStore | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const store = new DisposableStore();
  running = store;
  context.subscriptions.push({ dispose: () => store.dispose() });

  const log = vscode.window.createOutputChannel('Holdfast', { log: true });
  context.subscriptions.push(log); // disposed after the store, which may still log
  const version: string = context.extension.packageJSON.version ?? '0.0.0';
  const storage = context.globalStorageUri.fsPath;
  const socket = resolveSocketPath(settings.socketPath() || undefined);
  const windowCliHook = process.env.VSCODE_IPC_HOOK_CLI || undefined;

  // The daemon's own copy of its files, made on first need (a failure is shown when a terminal needs it).
  let install: DaemonInstall | undefined;
  let installError: string | undefined;
  const ensureInstall = (): DaemonInstall => {
    if (install) return install;
    try {
      install = ensureDaemonInstall(context.extensionPath, storage, version);
      installError = undefined;
      try {
        pruneDaemonInstalls(storage, install.dir);
      } catch (err) {
        log.warn(`pruning old daemon copies: ${(err as Error).message}`);
      }
      return install;
    } catch (err) {
      installError = `cannot copy the daemon into ${storage}: ${(err as Error).message}`;
      throw new Error(installError, { cause: err });
    }
  };

  // `holdfast` in every VS Code terminal, and `code` (the editor's CLI) in Holdfast sessions.
  const binDir = path.join(storage, 'bin');
  const sessionBinDir = path.join(storage, 'session-bin');
  const remoteCli = findRemoteCli(vscode.env.appRoot);
  let cliLauncher: string | undefined;
  try {
    const cliScript = ensureInstall().cliScript;
    if (fs.existsSync(cliScript)) {
      cliLauncher = writeHoldfastLauncher(
        binDir,
        process.execPath,
        cliScript,
        settings.socketPath() ? socket : undefined,
      );
      context.environmentVariableCollection.description = 'Puts the `holdfast` command on PATH';
      context.environmentVariableCollection.prepend('PATH', binDir + path.delimiter);
    }
    if (remoteCli) writeCodeShim(sessionBinDir, remoteCli.script);
  } catch (err) {
    log.warn(`setting up the holdfast/code launchers: ${(err as Error).message}`);
  }

  const connection = store.add(
    new DaemonConnection({
      socket,
      daemonScript: () => ensureInstall().daemonScript,
      execPath: process.execPath,
      env: process.env,
      wrapper: async () => ((await systemdScopeWorks()) ? systemdScopePrefix() : undefined),
    }),
  );
  store.add(
    connection.onDidChangeState((state) =>
      log.info(
        `daemon: ${state.kind === 'connected' ? `connected (pid ${state.client.hello.pid}, ${state.client.hello.version})` : state.kind === 'failed' ? `failed: ${state.error.message}` : state.kind}`,
      ),
    ),
  );
  const sessions = store.add(new SessionList(connection));
  const workspace = workspaceKey(
    vscode.workspace.workspaceFile?.toString(),
    (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString()),
  );
  const tabs = store.add(
    new TabManager({
      connection,
      sessions,
      workspace,
      log,
      windowCliHook,
      sessionPath: () => [...(cliLauncher ? [binDir] : []), ...(remoteCli ? [sessionBinDir] : [])],
    }),
  );
  store.add(new LayoutTracker(tabs, sessions, log));
  // Menus on a terminal show Holdfast's entries only for Holdfast tabs.
  const setActiveContext = (t: vscode.Terminal | undefined) =>
    void vscode.commands.executeCommand('setContext', 'holdfast.activeTerminalIsHoldfast', tabs.tabOf(t) !== undefined);
  store.add(vscode.window.onDidChangeActiveTerminal(setActiveContext));
  setActiveContext(vscode.window.activeTerminal);
  store.add(new StatusBar(connection, sessions));
  store.add(new RecoverySettingsMirror(connection, log));
  store.add(
    vscode.window.registerTerminalProfileProvider('holdfast.terminal', {
      provideTerminalProfile: () => tabs.provideProfile(),
    }),
  );
  for (const d of registerCommands({
    tabs,
    sessions,
    log,
    statusFacts: async () => ({
      installDir: install?.dir,
      installError,
      cliLauncher,
      windowCliHook,
      remoteCli: remoteCli?.script,
      systemdScope: await systemdScopeWorks(),
      extensionVersion: version,
    }),
  }))
    store.add(d);

  // The Sessions sidebar and the wall of screens (sidebar.ts, wall.ts, previewHost.ts).
  store.add(registerSidebar(context, { connection, sessions, workspace, log }));
  store.add(registerMcpProvider(context, socket, log)); // `holdfast mcp` for VS Code's agent mode (1.101+)

  // Adopt the running daemon (or start one), then bring back this workspace's tabs.
  const startupSweep = store.add(new StartupTerminalSweep((t) => tabs.tabOf(t) !== undefined, log));
  void tabs
    .restore()
    .then((restored) => startupSweep.sweep(restored))
    .catch((err) => {
      startupSweep.dispose();
      tabs.reportError('Holdfast could not start its terminal daemon', err);
    });
}

/** Only detaches: closing our connection ends our channels; every session keeps running. */
export function deactivate(): void {
  running?.dispose();
  running = undefined;
}
