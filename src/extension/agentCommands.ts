// The commands on agents: start one from a profile, resume or relaunch archived sessions.
import * as vscode from 'vscode';
import { agentLaunch, findExecutable } from '../agents/agentLaunch';
import type { SessionInfo } from '../protocol/messages';
import { agentOf, archivedFrom } from '../protocol/recovery';
import { readLayout } from '../protocol/tabLayout';
import { type AgentProfile, findProfile, missingAgentMessage, readAgentProfiles, resumeTemplate } from './agents';
import { archiveAction } from './archives';
import { ui, uiIcon, uiText } from '../text/uiText';
import { type CommandContext, describe, sessionById } from './commandContext';
import { showError, showInformation, showQuickPick } from './ui';
import { startOnHost, type WhereArgs, whereFor } from './hostStart';

function agentProfiles(ctx: CommandContext): ReturnType<typeof readAgentProfiles> {
  const read = readAgentProfiles(vscode.workspace.getConfiguration('holdfast').get<unknown>('agents'));
  for (const error of read.errors) ctx.log.warn(error);
  return read;
}

/** The daemon runs no command from a checkpoint: the resume command of the session's profile comes from here. */
function resumeCommandFor(ctx: CommandContext, session: SessionInfo): string[] | undefined {
  return resumeTemplate(agentProfiles(ctx).profiles, agentOf(session.metadata)?.profile);
}

/** New Agent: where (this machine, or a host and a folder there: hostStart.ts), then which agent. */
export async function newAgent(ctx: CommandContext, args?: WhereArgs & { profile?: string }): Promise<void> {
  const where = await whereFor(ctx, args, 'agent');
  if (!where) return;
  // A host's PATH is its own: its daemon says whether the agent is there when it starts it.
  const profile = await pickAgentProfile(ctx, args?.profile, where.host === undefined);
  if (!profile) return;
  const launch = agentLaunch(profile);
  if (where.host !== undefined) {
    const run = { argv: launch.argv, metadata: { agent: launch.agent }, nameBase: profile.id };
    return startOnHost(ctx, where, 'panel', run);
  }
  await ctx.tabs.newTerminal('panel', undefined, {
    argv: launch.argv,
    metadata: { agent: launch.agent },
    nameBase: profile.id,
  });
}

/**
 * The profile `profileId` names, or the one the user picks; undefined when they cancel, open the
 * settings instead, or its command is not installed (they were told).
 */
export async function pickAgentProfile(
  ctx: CommandContext,
  profileId?: string,
  /** Whether its command must be on this machine's PATH (not for a host's session). */
  here = true,
): Promise<AgentProfile | undefined> {
  const { profiles } = agentProfiles(ctx);
  let profile = profileId ? findProfile(profiles, profileId) : undefined;
  if (profileId && !profile)
    throw new Error(
      `no agent profile "${profileId}" (known: ${profiles.map((p) => p.id).join(', ')}; ` +
        'add one in the setting holdfast.agents)',
    );
  if (!profile) {
    const pick = await showQuickPick(
      [
        ...profiles.map((p) => ({
          label: ui`${uiIcon(p.icon)} ${uiText(p.name)}`,
          description: uiText(p.argv.join(' ')),
          profile: p,
        })),
        { label: ui`$(settings-gear) Edit agent profiles…`, description: ui`holdfast.agents`, profile: undefined },
      ],
      { placeHolder: ui`Start which agent? It runs in a Holdfast session and can be resumed after a reboot.` },
    );
    if (!pick) return undefined;
    if (!pick.profile) {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'holdfast.agents');
      return undefined;
    }
    profile = pick.profile;
  }
  const start = ctx.tabs.sessionStart();
  if (here && !findExecutable(profile.argv[0], start.env.PATH, start.cwd)) {
    const choice = await showError(uiText(missingAgentMessage(profile)), ui`Open Settings`);
    if (choice) await vscode.commands.executeCommand('workbench.action.openSettings', 'holdfast.agents');
    return undefined;
  }
  return profile;
}

/** Resume / Relaunch: the given archive, the active tab's, or one the user picks. */
export async function startArchive(
  ctx: CommandContext,
  id: string | undefined,
  how: 'resume' | 'relaunch',
): Promise<void> {
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
      void showInformation(ui`Holdfast: there is no archived session to ${uiText(how)}.`);
      return;
    }
    const pick = await showQuickPick(
      candidates.map((session) => ({ label: uiText(session.name), ...describe(session, ctx.tabs.workspace), session })),
      { placeHolder: how === 'resume' ? ui`Resume which agent conversation?` : ui`Relaunch which session?` },
    );
    id = pick?.session.id;
    if (!id) return;
  }
  const session = await sessionById(ctx, id);
  if (how === 'resume' && archiveAction(session) !== 'resume') {
    const why = archivedFrom(session.metadata)
      ? 'it is not an agent that was running when its daemon ended'
      : 'it is not archived';
    throw new Error(`"${session.name}" cannot be resumed: ${why}; use Relaunch Session for a new run`);
  }
  await ctx.tabs.startAgain(id, how, how === 'resume' ? resumeCommandFor(ctx, session) : undefined);
}

export async function resumeAllAgents(ctx: CommandContext): Promise<void> {
  const client = await ctx.tabs.connection.get();
  // This workspace's (another workspace's agents come back in their own window), in tab order,
  // one at a time so each lands in its own tab.
  const agents = (await ctx.sessions.refresh(client)).filter(
    (s) => archiveAction(s) === 'resume' && readLayout(s.metadata).workspace === ctx.tabs.workspace,
  );
  if (agents.length === 0) {
    void showInformation(ui`Holdfast: this workspace has no archived agent to resume.`);
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
