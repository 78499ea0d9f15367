// The "Holdfast: …" commands (titles in package.json; the e2e drives them through F1). Each
// command's body lives with its concern: sessionCommands.ts, agentCommands.ts, daemonCommands.ts.
import * as vscode from 'vscode';
import { newAgent, resumeAllAgents, startArchive } from './agentCommands';
import { type CommandContext, sessionArg, targetTab } from './commandContext';
import { openLog, restartDaemon, showStatus } from './daemonCommands';
import { registerHistoryDocuments } from './historyDocument';
import { registerSessionSearch } from './sessionSearch';
import { splitTerminal } from './splitGroups';
import { newAgentInWorktree, type WorktreeAgentArgs } from './worktreeCommands';
import { attachSession, focusSession, killSession, removeSession, renameSession } from './sessionCommands';
import { ui } from '../text/uiText';
import type { TabLocation } from '../protocol/tabLayout';
import { parseKey } from './sessionKey';
import { newTerminalWhere, type WhereArgs } from './hostStart';

type NewTerminalArgs = WhereArgs & { name?: string };

export type { CommandContext } from './commandContext';

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

  // A host's session key ("@HOST/ID") opens its tab over the host's connection; anything else is this machine's.
  const focusAny = (id: unknown, location: TabLocation) =>
    typeof id === 'string' && parseKey(id).host !== undefined
      ? tabs.showRemote(id, location)
      : focusSession(ctx, sessionArg(id), location);

  return [
    // Optional argument {name, host, folder}: used by scripts and tests (nothing is asked); the palette passes none,
    // and with holdfast.hosts listing hosts the user picks where (hostStart.ts).
    run('holdfast.newTerminal', 'New Terminal', (opts?: NewTerminalArgs) => newTerminalWhere(ctx, 'panel', opts)),
    run('holdfast.newTerminalInEditor', 'New Terminal in Editor Area', (opts?: NewTerminalArgs) =>
      newTerminalWhere(ctx, 'editor', opts),
    ),
    run('holdfast.splitTerminal', 'Split Terminal', () => splitTerminal(ctx)),
    run('holdfast.attachSession', 'Attach to Session', () => attachSession(ctx)),
    run('holdfast.detachTerminal', 'Detach Terminal', async () => {
      const tab = await targetTab(ctx, ui`Detach which Holdfast terminal?`);
      if (tab) await tabs.detach(tab);
    }),
    // The sidebar passes a session id to these; the palette passes none (they act on the active tab or ask).
    run('holdfast.renameSession', 'Rename Session', (id?: string) => renameSession(ctx, sessionArg(id))),
    run('holdfast.killSession', 'Kill Session', (id?: string) => killSession(ctx, sessionArg(id))),
    run('holdfast.newAgent', 'New Agent', (opts?: WhereArgs & { profile?: string }) => newAgent(ctx, opts)),
    // Optional argument {profile, branch}: scripts and tests; the palette asks for both.
    run('holdfast.newAgentInWorktree', 'New Agent in Worktree', (args?: WorktreeAgentArgs) =>
      newAgentInWorktree(ctx, args),
    ),
    run('holdfast.focusSession', 'Focus Session', (id?: string) => focusAny(id, 'panel')),
    run('holdfast.openSessionInEditor', 'Open Session in Editor Area', (id?: string) => focusAny(id, 'editor')),
    run('holdfast.removeSession', 'Remove Session', (id?: string) => removeSession(ctx, sessionArg(id))),
    run('holdfast.resumeSession', 'Resume Session', (id?: string) => startArchive(ctx, sessionArg(id), 'resume')),
    run('holdfast.relaunchSession', 'Relaunch Session', (id?: string) => startArchive(ctx, sessionArg(id), 'relaunch')),
    run('holdfast.resumeAllAgents', 'Resume All Agents', () => resumeAllAgents(ctx)),
    run('holdfast.showStatus', 'Show Daemon Status', () => showStatus(ctx)),
    run('holdfast.restartDaemon', 'Restart Daemon', () => restartDaemon(ctx)),
    run('holdfast.openLog', 'Open Log', () => openLog(ctx)),
    ...registerHistoryDocuments(ctx, run),
    ...registerSessionSearch(ctx, run),
  ];
}
