// The "Holdfast: …" commands (titles in package.json; the e2e drives them through F1).
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { SessionInfo } from '../protocol/messages';
import { defaultLogPath } from '../protocol/paths';
import { formatChecks, runChecks } from './doctor';
import { nextOrder, readLayout, TabLocation } from './layout';
import { SessionTab } from './pseudoterminal';
import { SessionList } from './sessionList';
import { TabManager } from './tabs';

export interface CommandContext {
  tabs: TabManager;
  sessions: SessionList;
  log: vscode.LogOutputChannel;
  /** Facts for the status report that only the activation knows. */
  statusFacts(): Promise<{ installDir?: string; installError?: string; cliLauncher?: string; windowCliHook?: string; remoteCli?: string; systemdScope: boolean; extensionVersion: string }>;
}

export function registerCommands(ctx: CommandContext): vscode.Disposable[] {
  const { tabs } = ctx;
  // Every command reports its own failure in one message ("Holdfast: New Terminal failed: why").
  const run = (id: string, title: string, fn: (...args: any[]) => Promise<unknown>) =>
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        return await fn(...args);
      } catch (err) {
        tabs.reportError(`Holdfast: ${title} failed`, err);
        return undefined;
      }
    });

  return [
    // Optional argument {name}: used by scripts and tests; the palette passes none.
    run('holdfast.newTerminal', 'New Terminal', (opts?: { name?: string }) => tabs.newTerminal('panel', opts?.name)),
    run('holdfast.newTerminalInEditor', 'New Terminal in Editor Area', (opts?: { name?: string }) => tabs.newTerminal('editor', opts?.name)),
    run('holdfast.attachSession', 'Attach to Session', () => attachSession(ctx)),
    run('holdfast.detachTerminal', 'Detach Terminal', async () => {
      const tab = await targetTab(ctx, 'Detach which Holdfast terminal?');
      if (tab) await tabs.detach(tab);
    }),
    run('holdfast.renameSession', 'Rename Session', () => renameSession(ctx)),
    run('holdfast.killSession', 'Kill Session', () => killSession(ctx)),
    run('holdfast.showStatus', 'Show Daemon Status', () => showStatus(ctx)),
    run('holdfast.restartDaemon', 'Restart Daemon', () => restartDaemon(ctx)),
    run('holdfast.openLog', 'Open Log', () => openLog(ctx)),
  ];
}

/** The active Holdfast tab, else one the user picks among this window's. */
async function targetTab(ctx: CommandContext, placeHolder: string): Promise<SessionTab | undefined> {
  const active = ctx.tabs.activeTab();
  if (active && active.sessionId) return active;
  const live = ctx.tabs.liveTabs().filter(({ tab }) => tab.sessionId);
  if (live.length === 0) {
    void vscode.window.showInformationMessage('Holdfast: there is no Holdfast terminal in this window.');
    return undefined;
  }
  if (live.length === 1) return live[0].tab;
  const pick = await vscode.window.showQuickPick(
    live.map(({ tab, terminal }) => ({ label: terminal.name, tab })),
    { placeHolder },
  );
  return pick?.tab;
}

function describe(session: SessionInfo, workspace: string): { description: string; detail: string } {
  const layout = readLayout(session.metadata);
  const state = session.state === 'exited' ? `exited (${session.exit?.signal ?? `code ${session.exit?.code}`})` : 'running';
  const where = layout.detached ? 'detached' : layout.workspace === workspace ? 'this workspace' : layout.workspace ? `workspace ${path.basename(layout.workspace)}` : 'no workspace';
  const clients = session.clients.owners + session.clients.watchers;
  return { description: `${state} · ${where}${clients ? ` · ${clients} window(s) attached` : ''}`, detail: `${session.argv.join(' ')} — ${session.cwd} — pid ${session.pid}` };
}

/** Quick pick of every session (any workspace): focuses its tab here, or opens one attached to it. */
async function attachSession(ctx: CommandContext): Promise<void> {
  const client = await ctx.tabs.connection.get();
  const sessions = await ctx.sessions.refresh(client);
  if (sessions.length === 0) {
    const choice = await vscode.window.showInformationMessage('Holdfast: there are no sessions.', 'New Terminal');
    if (choice) await vscode.commands.executeCommand('holdfast.newTerminal');
    return;
  }
  const items = sessions.map((session) => ({ label: `${ctx.tabs.tabForSession(session.id) ? '$(eye) ' : ''}${session.name}`, ...describe(session, ctx.tabs.workspace), session }));
  const pick = await vscode.window.showQuickPick(items, { placeHolder: 'Attach to a Holdfast session (shown here as a tab)', matchOnDescription: true, matchOnDetail: true });
  if (!pick) return;
  let session = pick.session;
  if (!ctx.tabs.tabForSession(session.id)) {
    const layout = readLayout(session.metadata);
    const unowned = session.clients.owners + session.clients.watchers === 0;
    // It joins this workspace's tabs (restored here after a reload) unless another window shows it.
    if (layout.detached || !layout.workspace || layout.workspace === ctx.tabs.workspace || unowned) {
      await ctx.tabs.updateLayout(session.id, { detached: undefined, workspace: ctx.tabs.workspace, order: nextOrder(sessions, ctx.tabs.workspace), activeAt: Date.now() });
      session = (await client.request('show', { session: session.id })).session;
    }
  }
  const location: TabLocation = readLayout(session.metadata).location ?? 'panel';
  ctx.tabs.showSession(session, location);
}

async function renameSession(ctx: CommandContext): Promise<void> {
  const tab = await targetTab(ctx, 'Rename which Holdfast terminal?');
  const id = tab?.sessionId;
  if (!tab || !id) return;
  const name = await vscode.window.showInputBox({ prompt: 'New name for the Holdfast session', value: tab.session?.name ?? '', validateInput: (v) => (v.trim() ? undefined : 'A name cannot be empty') });
  if (!name?.trim()) return;
  const client = await ctx.tabs.connection.get();
  await client.request('update', { session: id, name: name.trim() });
  tab.rename(name.trim());
}

async function killSession(ctx: CommandContext): Promise<void> {
  let id = ctx.tabs.activeTab()?.sessionId;
  if (!id) {
    const client = await ctx.tabs.connection.get();
    const sessions = await ctx.sessions.refresh(client);
    if (sessions.length === 0) {
      void vscode.window.showInformationMessage('Holdfast: there are no sessions.');
      return;
    }
    const pick = await vscode.window.showQuickPick(
      sessions.map((session) => ({ label: session.name, ...describe(session, ctx.tabs.workspace), session })),
      { placeHolder: 'Kill which Holdfast session? (its process ends)' },
    );
    id = pick?.session.id;
  }
  if (id) await ctx.tabs.killSession(id);
}

async function showStatus(ctx: CommandContext): Promise<void> {
  const connection = ctx.tabs.connection;
  let connectionError: string | undefined;
  let client = connection.client;
  if (!client) {
    try {
      client = await connection.adopt();
    } catch (err) {
      connectionError = (err as Error).message;
    }
  }
  const facts = await ctx.statusFacts();
  const checks = await runChecks({ socket: connection.socket, client, connectionError, ...facts, workspace: ctx.tabs.workspace, tabsHere: ctx.tabs.liveTabs().length });
  ctx.log.info(`— Holdfast status, ${new Date().toISOString()} —`);
  for (const line of formatChecks(checks)) ctx.log.info(line);
  ctx.log.show(true);
}

async function restartDaemon(ctx: CommandContext): Promise<void> {
  const connection = ctx.tabs.connection;
  const client = connection.client ?? (await connection.adopt());
  if (client) {
    const sessions = await ctx.sessions.refresh(client);
    const live = sessions.filter((s) => s.state === 'running').length;
    const message = live === 0 ? 'Restart the Holdfast daemon? No session is running.' : `Restart the Holdfast daemon? ${live} live session${live === 1 ? '' : 's'} will be killed (their processes end).`;
    const choice = await vscode.window.showWarningMessage(message, { modal: true }, 'Restart Daemon');
    if (choice !== 'Restart Daemon') return;
    await connection.stopDaemon();
  }
  const fresh = await connection.get();
  void vscode.window.showInformationMessage(`Holdfast: daemon ${fresh.hello.version} started (pid ${fresh.hello.pid}).`);
}

async function openLog(ctx: CommandContext): Promise<void> {
  let logFile = defaultLogPath();
  const client = ctx.tabs.connection.client;
  if (client) logFile = (await client.request('status', {}).catch(() => undefined))?.logFile ?? logFile;
  if (!fs.existsSync(logFile)) {
    void vscode.window.showInformationMessage(`Holdfast: the daemon has not written a log yet (${logFile}).`);
    return;
  }
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(logFile));
  await vscode.window.showTextDocument(doc, { preview: false });
}
