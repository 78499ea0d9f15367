// Holdfast's VS Code side: adopt (or start) the terminal daemon, bring back this workspace's
// tabs, and offer the profile and commands. deactivate() only detaches: sessions keep running.
// activate() is the composition root: read the config, build the services, register them, and
// let one store dispose them all.
import * as vscode from 'vscode';
import { DisposableStore } from '../base/disposable';
import { resolveSocketPath } from '../host/paths';
import { registerAttentionCommands } from './attentionCommands';
import { AttentionNotifier } from './attentionNotifier';
import { ActiveTerminalContextKey } from './commandContext';
import { registerCommands } from './commands';
import { DaemonConnection } from './daemonConnection';
import { LazyDaemonInstall } from './daemonInstall';
import { installLaunchers, type Launchers } from './launchers';
import { workspaceKey } from './layout';
import { LayoutTracker } from './layoutTracker';
import { registerMcpProvider } from './mcpProvider';
import { SessionFeed } from './sessionFeed';
import { RecoverySettingsMirror } from './recoverySettings';
import { RemoteHosts } from './remoteHosts';
import { HostFolders } from './hostPick';
import { offerHostFixes } from './hostInstallOffer';
import { sshLink } from '../link/daemonLink';
import { SessionList } from './sessionList';
import { registerSidebar } from './sidebar';
import { settings } from './settings';
import { keepStartupShellHidden } from './startupTerminal';
import { StatusBar } from './statusBar';
import { systemdScopePrefix, systemdScopeWorks } from './systemdScope';
import { ShellIntegration } from './shellIntegration';
import { TabManager } from './tabs';
import { offerWorktreeRemoval } from './worktreeCommands';

let running: DisposableStore | undefined;

/** What this window's Holdfast is configured with, read once at activation. */
interface WindowConfig {
  version: string;
  socket: string;
  /** Set when the holdfast.socketPath setting chose the socket. */
  customSocket: string | undefined;
  workspace: string;
  /** The editor's CLI hook for this window (VSCODE_IPC_HOOK_CLI), when it gives one. */
  windowCliHook: string | undefined;
}

/** The services one window runs, built by activate(). */
interface Services {
  context: vscode.ExtensionContext;
  config: WindowConfig;
  log: vscode.LogOutputChannel;
  install: LazyDaemonInstall;
  launchers: Launchers;
  connection: DaemonConnection;
  sessions: SessionList;
  tabs: TabManager;
  remotes: RemoteHosts;
}

export function activate(context: vscode.ExtensionContext): void {
  const store = new DisposableStore();
  running = store;
  context.subscriptions.push({ dispose: () => store.dispose() });
  const log = vscode.window.createOutputChannel('Holdfast', { log: true });
  context.subscriptions.push(log); // disposed after the store, which may still log

  const config = readConfig(context);
  // The daemon's own copy of its files, made on first need (a failure is shown when a terminal needs it).
  const install = new LazyDaemonInstall(context.extensionPath, context.globalStorageUri.fsPath, config.version, log);
  const launchers = installLaunchers(context, install, config.customSocket, log);
  const connection = store.add(connect(config, install, log));
  const sessions = store.add(new SessionList(connection, log));
  const remotes = followHosts(log, store);
  const tabs = store.add(
    new TabManager({
      connection,
      sessions,
      workspace: config.workspace,
      log,
      windowCliHook: config.windowCliHook,
      sessionPath: launchers.sessionPath,
      sessionRemoved: (session) => void offerWorktreeRemoval(session, log),
      shell: new ShellIntegration(context.globalState),
      remotes: { hosts: remotes, state: context.workspaceState },
    }),
  );
  const services: Services = { context, config, log, install, launchers, connection, sessions, tabs, remotes };
  register(services, store);
  restoreTabs(services);
}

/** Only detaches: closing our connection ends our channels; every session keeps running. */
export function deactivate(): void {
  const store = running;
  running = undefined;
  store?.dispose();
}

function readConfig(context: vscode.ExtensionContext): WindowConfig {
  const custom = settings.socketPath() || undefined;
  const socket = resolveSocketPath(custom);
  return {
    version: (context.extension.packageJSON as { version?: string }).version ?? '0.0.0',
    socket,
    customSocket: custom ? socket : undefined,
    workspace: workspaceKey(
      vscode.workspace.workspaceFile?.toString(),
      (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString()),
    ),
    windowCliHook: process.env.VSCODE_IPC_HOOK_CLI || undefined,
  };
}

/** The window's connection to the daemon; every state change goes to the log. */
function connect(config: WindowConfig, install: LazyDaemonInstall, log: vscode.LogOutputChannel): DaemonConnection {
  const connection = new DaemonConnection({
    socket: config.socket,
    daemonScript: () => install.get().daemonScript,
    execPath: process.execPath,
    env: process.env,
    wrapper: async () => ((await systemdScopeWorks()) ? systemdScopePrefix() : undefined),
  });
  connection.onDidChangeState((state) => {
    const detail =
      state.kind === 'connected'
        ? `connected (pid ${state.client.hello.pid}, ${state.client.hello.version})`
        : state.kind === 'failed'
          ? `failed: ${state.error.message}`
          : state.kind;
    log.info(`daemon: ${detail}`);
  });
  return connection;
}

/** The UI: status bar, terminal profile, commands, the Sessions sidebar and wall of screens. */
function register(services: Services, store: DisposableStore): void {
  const { context, config, log, install, launchers, connection, sessions, tabs, remotes } = services;
  store.add(new LayoutTracker(tabs, sessions, log));
  store.add(new ActiveTerminalContextKey((t) => tabs.tabOf(t) !== undefined, log));
  // Every session's state, for the status bar, the notifications, the sidebar and the wall.
  const previewDeps = { connection, sessions, workspace: config.workspace, log, typing: tabs.typing, remotes };
  const feed = store.add(new SessionFeed(previewDeps));
  store.add(new StatusBar(connection, sessions, feed));
  store.add(new AttentionNotifier(feed, (id) => tabs.activeTab()?.sessionId === id, log));
  store.add(new RecoverySettingsMirror(connection, log));
  store.add(
    vscode.window.registerTerminalProfileProvider('holdfast.terminal', {
      provideTerminalProfile: () => tabs.provideProfile(),
    }),
  );
  const statusFacts = async () => ({
    installDir: install.dir,
    installError: install.error,
    cliLauncher: launchers.cliLauncher,
    windowCliHook: config.windowCliHook,
    remoteCli: launchers.remoteCli,
    systemdScope: await systemdScopeWorks(),
    extensionVersion: config.version,
  });
  const commandContext = {
    tabs,
    sessions,
    log,
    extensionId: context.extension.id,
    hostFolders: new HostFolders(context.globalState),
    statusFacts,
    remotes,
  };
  for (const d of registerCommands(commandContext)) store.add(d);
  for (const d of registerAttentionCommands(feed, tabs)) store.add(d);
  // The Sessions sidebar and the wall of screens (sidebar.ts, wall.ts, previewHost.ts).
  store.add(registerSidebar(context, feed, previewDeps));
  store.add(registerMcpProvider(context, config.socket, log)); // `holdfast mcp` for VS Code's agent mode (1.101+)
}

/** The SSH hosts of holdfast.hosts, followed as the setting changes; a bad entry is logged and left out. */
function followHosts(log: vscode.LogOutputChannel, store: DisposableStore): RemoteHosts {
  const remotes = store.add(new RemoteHosts({ link: (entry) => sshLink(entry, process.env, 'extension'), log }));
  store.add(offerHostFixes(remotes, log)); // a host without Holdfast, or with an older daemon: the fix offered
  const read = () => {
    const { hosts, problems } = settings.hosts();
    for (const problem of problems) log.warn(`settings: ${problem}`);
    remotes.update(hosts);
  };
  store.add(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('holdfast.hosts')) read();
    }),
  );
  read();
  return remotes;
}

/** Adopt the running daemon (or start one), then bring back this workspace's tabs. */
function restoreTabs({ context, tabs, log }: Services): void {
  keepStartupShellHidden(log, context.globalState).catch((err: Error) =>
    log.warn(`terminal.integrated.hideOnStartup could not be written to your settings: ${err.message}`),
  );
  tabs.restore().catch((err) => tabs.reportError('Holdfast could not start its terminal daemon', err));
}
