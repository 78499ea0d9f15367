// The "Holdfast: …" commands (titles in package.json; the e2e drives them through F1).
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { SessionInfo } from '../protocol/messages';
import { defaultLogPath } from '../protocol/paths';
import { agentOf, archivedFrom } from '../protocol/recovery';
import {
  agentLaunch,
  findExecutable,
  findProfile,
  missingAgentMessage,
  readAgentProfiles,
  resumeTemplate,
} from './agents';
import { archiveAction } from './archives';
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
  statusFacts(): Promise<{
    installDir?: string;
    installError?: string;
    cliLauncher?: string;
    windowCliHook?: string;
    remoteCli?: string;
    systemdScope: boolean;
    extensionVersion: string;
  }>;
}

export function registerCommands(ctx: CommandContext): vscode.Disposable[] {
  const { tabs } = ctx;
  // Every command reports its own failure in one message ("Holdfast: New Terminal failed: why").
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each command declares its own argument types
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
    run('holdfast.newTerminalInEditor', 'New Terminal in Editor Area', (opts?: { name?: string }) =>
      tabs.newTerminal('editor', opts?.name),
    ),
    run('holdfast.attachSession', 'Attach to Session', () => attachSession(ctx)),
    run('holdfast.detachTerminal', 'Detach Terminal', async () => {
      const tab = await targetTab(ctx, 'Detach which Holdfast terminal?');
      if (tab) await tabs.detach(tab);
    }),
    // The sidebar passes a session id to these; the palette passes none (they act on the active tab or ask).
    run('holdfast.renameSession', 'Rename Session', (id?: string) => renameSession(ctx, sessionArg(id))),
    run('holdfast.killSession', 'Kill Session', (id?: string) => killSession(ctx, sessionArg(id))),
    run('holdfast.newAgent', 'New Agent', (opts?: { profile?: string }) => newAgent(ctx, opts?.profile)),
    run('holdfast.focusSession', 'Focus Session', (id?: string) => focusSession(ctx, sessionArg(id), 'panel')),
    run('holdfast.openSessionInEditor', 'Open Session in Editor Area', (id?: string) =>
      focusSession(ctx, sessionArg(id), 'editor'),
    ),
    run('holdfast.removeSession', 'Remove Session', (id?: string) => removeSession(ctx, sessionArg(id))),
    run('holdfast.resumeSession', 'Resume Session', (id?: string) => startArchive(ctx, sessionArg(id), 'resume')),
    run('holdfast.relaunchSession', 'Relaunch Session', (id?: string) => startArchive(ctx, sessionArg(id), 'relaunch')),
    run('holdfast.resumeAllAgents', 'Resume All Agents', () => resumeAllAgents(ctx)),
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
  const state =
    session.state === 'exited' ? `exited (${session.exit?.signal ?? `code ${session.exit?.code}`})` : 'running';
  const where = layout.detached
    ? 'detached'
    : layout.workspace === workspace
      ? 'this workspace'
      : layout.workspace
        ? `workspace ${path.basename(layout.workspace)}`
        : 'no workspace';
  const clients = session.clients.owners + session.clients.watchers;
  return {
    description: `${state} · ${where}${clients ? ` · ${clients} window(s) attached` : ''}`,
    detail: `${session.argv.join(' ')} — ${session.cwd} — pid ${session.pid}`,
  };
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
  const items = sessions.map((session) => ({
    label: `${ctx.tabs.tabForSession(session.id) ? '$(eye) ' : ''}${session.name}`,
    ...describe(session, ctx.tabs.workspace),
    session,
  }));
  const pick = await vscode.window.showQuickPick(items, {
    placeHolder: 'Attach to a Holdfast session (shown here as a tab)',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!pick) return;
  let session = pick.session;
  if (!ctx.tabs.tabForSession(session.id)) {
    const layout = readLayout(session.metadata);
    const unowned = session.clients.owners + session.clients.watchers === 0;
    // It joins this workspace's tabs (restored here after a reload) unless another window shows it.
    if (layout.detached || !layout.workspace || layout.workspace === ctx.tabs.workspace || unowned) {
      await ctx.tabs.updateLayout(session.id, {
        detached: undefined,
        workspace: ctx.tabs.workspace,
        order: nextOrder(sessions, ctx.tabs.workspace),
        activeAt: Date.now(),
      });
      session = (await client.request('show', { session: session.id })).session;
    }
  }
  const location: TabLocation = readLayout(session.metadata).location ?? 'panel';
  ctx.tabs.showSession(session, location);
}

/** A command argument meant as a session id (a menu may pass other things). */
function sessionArg(value: unknown): string | undefined {
  return typeof value === 'string' && value ? value : undefined;
}

/** The session by id, fresh from the daemon. */
async function sessionById(ctx: CommandContext, id: string): Promise<SessionInfo> {
  const client = await ctx.tabs.connection.get();
  return (await client.request('show', { session: id })).session;
}

async function renameSession(ctx: CommandContext, sessionId?: string): Promise<void> {
  const tab = sessionId ? ctx.tabs.tabForSession(sessionId) : await targetTab(ctx, 'Rename which Holdfast terminal?');
  const id = sessionId ?? tab?.sessionId;
  if (!id) return;
  const current = tab?.session?.name ?? (await sessionById(ctx, id)).name;
  const name = await vscode.window.showInputBox({
    prompt: 'New name for the Holdfast session',
    value: current,
    validateInput: (v) => (v.trim() ? undefined : 'A name cannot be empty'),
  });
  if (!name?.trim()) return;
  const client = await ctx.tabs.connection.get();
  await client.request('update', { session: id, name: name.trim() });
  tab?.rename(name.trim());
}

async function killSession(ctx: CommandContext, sessionId?: string): Promise<void> {
  if (sessionId) {
    // From the sidebar: one click away from ending a process, so it asks.
    const session = await sessionById(ctx, sessionId);
    if (session.state === 'running') {
      const choice = await vscode.window.showWarningMessage(
        `Kill the Holdfast session "${session.name}"? Its process (pid ${session.pid}) ends.`,
        { modal: true },
        'Kill',
      );
      if (choice !== 'Kill') return;
    }
    await ctx.tabs.killSession(sessionId);
    return;
  }
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
  const checks = await runChecks({
    socket: connection.socket,
    client,
    connectionError,
    ...facts,
    workspace: ctx.tabs.workspace,
    tabsHere: ctx.tabs.liveTabs().length,
  });
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
    const message =
      live === 0
        ? 'Restart the Holdfast daemon? No session is running.'
        : `Restart the Holdfast daemon? ${live} live session${live === 1 ? '' : 's'} will be killed (their processes end).`;
    const choice = await vscode.window.showWarningMessage(message, { modal: true }, 'Restart Daemon');
    if (choice !== 'Restart Daemon') return;
    await connection.stopDaemon();
  }
  const fresh = await connection.get();
  void vscode.window.showInformationMessage(
    `Holdfast: daemon ${fresh.hello.version} started (pid ${fresh.hello.pid}).`,
  );
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

function agentProfiles(ctx: CommandContext): ReturnType<typeof readAgentProfiles> {
  const read = readAgentProfiles(vscode.workspace.getConfiguration('holdfast').get<unknown>('agents'));
  for (const error of read.errors) ctx.log.warn(error);
  return read;
}

/** The daemon runs no command from a checkpoint: the resume command of the session's profile comes from here. */
function resumeCommandFor(ctx: CommandContext, session: SessionInfo): string[] | undefined {
  return resumeTemplate(agentProfiles(ctx).profiles, agentOf(session.metadata)?.profile);
}

async function newAgent(ctx: CommandContext, profileId?: string): Promise<void> {
  const { profiles } = agentProfiles(ctx);
  let profile = profileId ? findProfile(profiles, profileId) : undefined;
  if (profileId && !profile)
    throw new Error(
      `no agent profile "${profileId}" (known: ${profiles.map((p) => p.id).join(', ')}; add one in the setting holdfast.agents)`,
    );
  if (!profile) {
    const EDIT = '$(settings-gear) Edit agent profiles…';
    const pick = await vscode.window.showQuickPick(
      [
        ...profiles.map((p) => ({ label: `$(${p.icon}) ${p.name}`, description: p.argv.join(' '), profile: p })),
        { label: EDIT, description: 'holdfast.agents', profile: undefined },
      ],
      { placeHolder: 'Start which agent? It runs in a Holdfast session and can be resumed after a reboot.' },
    );
    if (!pick) return;
    if (!pick.profile) {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'holdfast.agents');
      return;
    }
    profile = pick.profile;
  }
  const start = ctx.tabs.sessionStart();
  if (!findExecutable(profile.argv[0], start.env.PATH, start.cwd)) {
    const choice = await vscode.window.showErrorMessage(missingAgentMessage(profile), 'Open Settings');
    if (choice) await vscode.commands.executeCommand('workbench.action.openSettings', 'holdfast.agents');
    return;
  }
  const launch = agentLaunch(profile);
  await ctx.tabs.newTerminal('panel', undefined, {
    argv: launch.argv,
    metadata: { agent: launch.agent },
    nameBase: profile.id,
  });
}

/** Shows a session here and gives this window its input: its tab, or a new tab attached to it. */
async function focusSession(ctx: CommandContext, id: string | undefined, location: TabLocation): Promise<void> {
  if (!id) return attachSession(ctx);
  const tab = ctx.tabs.tabForSession(id);
  const terminal = tab && ctx.tabs.terminalOf(tab);
  if (tab && terminal) {
    terminal.show();
    if (location === 'editor' && readLayout(tab.session?.metadata).location !== 'editor') {
      // moveToEditor moves the *active* terminal, and show() makes ours active only a moment later.
      await becomesActive(terminal, 2000);
      if (vscode.window.activeTerminal !== terminal)
        throw new Error(`the tab "${terminal.name}" did not become active, so it was not moved`);
      await vscode.commands.executeCommand('workbench.action.terminal.moveToEditor');
      await ctx.tabs.updateLayout(id, { location: 'editor' });
    }
    await tab.takeInput();
    return;
  }
  const client = await ctx.tabs.connection.get();
  const sessions = await ctx.sessions.refresh(client);
  await ctx.tabs.updateLayout(id, {
    detached: undefined,
    workspace: ctx.tabs.workspace,
    order: nextOrder(sessions, ctx.tabs.workspace),
    activeAt: Date.now(),
    location,
  });
  ctx.tabs.showSession(await sessionById(ctx, id), location);
}

async function removeSession(ctx: CommandContext, id: string | undefined): Promise<void> {
  if (!id) return killSession(ctx);
  const session = await sessionById(ctx, id);
  if (session.state === 'running') throw new Error(`"${session.name}" is still running; use Kill Session to end it`);
  await ctx.tabs.killSession(id);
}

/** Resume / Relaunch: the given archive, the active tab's, or one the user picks. */
async function startArchive(ctx: CommandContext, id: string | undefined, how: 'resume' | 'relaunch'): Promise<void> {
  if (!id) {
    const activeSession = ctx.tabs.activeTab()?.session;
    if (activeSession && archiveAction(activeSession)) id = activeSession.id;
  }
  if (!id) {
    const client = await ctx.tabs.connection.get();
    const candidates = (await ctx.sessions.refresh(client)).filter(
      (s) => archiveAction(s) === how || (how === 'relaunch' && s.state === 'exited'),
    );
    if (candidates.length === 0) {
      void vscode.window.showInformationMessage(`Holdfast: there is no archived session to ${how}.`);
      return;
    }
    const pick = await vscode.window.showQuickPick(
      candidates.map((session) => ({ label: session.name, ...describe(session, ctx.tabs.workspace), session })),
      { placeHolder: how === 'resume' ? 'Resume which agent conversation?' : 'Relaunch which session?' },
    );
    id = pick?.session.id;
    if (!id) return;
  }
  const session = await sessionById(ctx, id);
  if (how === 'resume' && archiveAction(session) !== 'resume') {
    throw new Error(
      `"${session.name}" cannot be resumed: ${archivedFrom(session.metadata) ? 'it is not an agent that was running when its daemon ended' : 'it is not archived'}; use Relaunch Session for a new run`,
    );
  }
  await ctx.tabs.startAgain(id, how, how === 'resume' ? resumeCommandFor(ctx, session) : undefined);
}

async function resumeAllAgents(ctx: CommandContext): Promise<void> {
  const client = await ctx.tabs.connection.get();
  // This workspace's (another workspace's agents come back in their own window), in tab order,
  // one at a time so each lands in its own tab.
  const agents = (await ctx.sessions.refresh(client)).filter(
    (s) => archiveAction(s) === 'resume' && readLayout(s.metadata).workspace === ctx.tabs.workspace,
  );
  if (agents.length === 0) {
    void vscode.window.showInformationMessage('Holdfast: this workspace has no archived agent to resume.');
    return;
  }
  agents.sort((a, b) => (readLayout(a.metadata).order ?? 0) - (readLayout(b.metadata).order ?? 0));
  const failed: string[] = [];
  for (const session of agents) {
    try {
      await ctx.tabs.startAgain(session.id, 'resume', resumeCommandFor(ctx, session));
    } catch (err) {
      failed.push(`${session.name}: ${(err as Error).message}`);
    }
  }
  if (failed.length > 0) throw new Error(`${failed.length} of ${agents.length} not resumed (${failed.join('; ')})`);
}

/** Resolves once `terminal` is the active terminal, or after `ms`. */
function becomesActive(terminal: vscode.Terminal, ms: number): Promise<void> {
  if (vscode.window.activeTerminal === terminal) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      listener.dispose();
      resolve();
    };
    const listener = vscode.window.onDidChangeActiveTerminal((t) => t === terminal && done());
    const timer = setTimeout(done, ms);
  });
}
