// The commands on the daemon itself: its status report, a restart, its log.
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { Capability } from '../protocol/messages';
import { defaultLogPath } from '../host/paths';
import { ui, type UiText, uiText } from '../text/uiText';
import type { CommandContext } from './commandContext';
import { formatChecks, runChecks } from './doctor';
import { showError, showInformation, showModal } from './ui';

const plural = (n: number): UiText => (n === 1 ? ui`` : ui`s`);

export async function showStatus(ctx: CommandContext): Promise<void> {
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

export async function restartDaemon(ctx: CommandContext): Promise<void> {
  const connection = ctx.tabs.connection;
  const client = connection.client ?? (await connection.adopt());
  if (client?.hello.capabilities.includes(Capability.Handoff)) return handOffDaemon(ctx, client.hello.pid);
  if (client) {
    const sessions = await ctx.sessions.refresh(client);
    const live = sessions.filter((s) => s.state === 'running').length;
    const message =
      live === 0
        ? ui`Restart the Holdfast daemon? No session is running.`
        : ui`Restart the Holdfast daemon? ${live} live session${plural(live)} will be killed (their processes end).`;
    const choice = await showModal(message, undefined, ui`Restart Daemon`);
    if (choice !== 'Restart Daemon') return;
    await connection.stopDaemon();
  }
  const fresh = await connection.get();
  void showInformation(ui`Holdfast: daemon ${uiText(fresh.hello.version)} started (pid ${fresh.hello.pid}).`);
}

/** A new daemon takes over every session: programs, screens and tabs carry on. */
async function handOffDaemon(ctx: CommandContext, oldPid: number): Promise<void> {
  try {
    const { client, sessions } = await ctx.tabs.connection.handOffDaemon();
    const { version, pid } = client.hello;
    const kept = ui`${sessions} session${plural(sessions)} kept`;
    void showInformation(ui`Holdfast: daemon ${uiText(version)} (pid ${pid}) took over from pid ${oldPid}: ${kept}.`);
  } catch (err) {
    ctx.log.warn(`restarting the daemon: ${(err as Error).message}`);
    void showError(ui`Holdfast: the daemon was not restarted: ${uiText((err as Error).message)}`);
  }
}

export async function openLog(ctx: CommandContext): Promise<void> {
  let logFile = defaultLogPath();
  const client = ctx.tabs.connection.client;
  if (client) {
    try {
      logFile = (await client.request('status', {})).logFile;
    } catch (err) {
      ctx.log.warn(`asking the daemon where its log is: ${(err as Error).message}; opening ${logFile}`);
    }
  }
  if (!fs.existsSync(logFile)) {
    void showInformation(ui`Holdfast: the daemon has not written a log yet (${uiText(logFile)}).`);
    return;
  }
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(logFile));
  await vscode.window.showTextDocument(doc, { preview: false });
}
