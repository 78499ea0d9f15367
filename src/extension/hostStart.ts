// New Terminal / New Agent on an SSH host: with holdfast.hosts listing hosts they first ask where (this machine or
// a host), then for a host a folder there (hostPick.ts), and start the session on that host's daemon over the
// window's connection to it, in a tab as a card's (remoteTabs.ts). With no host listed nothing is asked.
import type { TabLocation } from '../protocol/tabLayout';
import { ui, uiText } from '../text/uiText';
import type { CommandContext } from './commandContext';
import { checkHostFolder, type FolderChoice, folderChoices, hostChoices, type HostStatus } from './hostPick';
import { showQuickPick, UiQuickPick } from './ui';

/** Where a new session starts: this machine (host undefined), or a host and a folder there (none: its home). */
export type Where = { host: undefined } | { host: string; folder: string | undefined };

/** Asks where, when there are hosts; undefined when the user cancels. */
export async function pickWhere(ctx: CommandContext, what: 'terminal' | 'agent'): Promise<Where | undefined> {
  const remotes = ctx.tabs.remoteHosts;
  const statuses: HostStatus[] = (remotes?.all ?? []).map((host) => {
    const section = host.section(Date.now());
    return { name: host.name, state: section.state, error: section.error };
  });
  const choices = hostChoices(statuses);
  if (choices.length === 0) return { host: undefined };
  const pick = await showQuickPick(choices, {
    placeHolder: what === 'agent' ? ui`Start the agent where?` : ui`Start the terminal where?`,
  });
  if (!pick) return undefined;
  if (pick.host === undefined) return { host: undefined };
  const chosen = await pickFolder(ctx, pick.host);
  if (!chosen) return undefined;
  return { host: pick.host, folder: chosen.folder };
}

/** The folder on `host`: its home, a recent one, or a path typed (an absolute path there, else one line). */
async function pickFolder(ctx: CommandContext, host: string): Promise<{ folder: string | undefined } | undefined> {
  const recent = ctx.hostFolders.of(host);
  const pick = new UiQuickPick<FolderChoice>(
    ui`A folder on ${uiText(host)}`,
    ui`Type an absolute path on ${uiText(host)}, or pick one`,
  );
  try {
    pick.update({ items: folderChoices(host, recent, '') });
    let typed = '';
    const chosen = await new Promise<FolderChoice | undefined>((resolve) => {
      pick.onDidChangeValue((value) => {
        typed = value;
        pick.update({ items: folderChoices(host, recent, value) });
      });
      // Enter pressed before the list caught up with the keys may select nothing: the path typed is meant.
      pick.onDidAccept(() => resolve(pick.selectedItems[0] ?? folderChoices(host, [], typed).find((c) => c.typed)));
      pick.onDidHide(() => resolve(undefined));
      pick.show();
    });
    pick.hide();
    if (!chosen) return undefined;
    if (!chosen.typed) return { folder: chosen.folder };
    const checked = checkHostFolder(host, chosen.folder ?? '');
    if ('error' in checked) throw new Error(checked.error);
    return checked;
  } finally {
    pick.dispose();
  }
}

/** Arguments of New Terminal / New Agent for scripts and tests: given, nothing is asked (no host: this machine). */
export interface WhereArgs {
  host?: string;
  /** An absolute path on the host; none: its home. */
  folder?: string;
}

/** Where a command's arguments say, else where the user picks (undefined: cancelled). */
export async function whereFor(
  ctx: CommandContext,
  args: WhereArgs | undefined,
  what: 'terminal' | 'agent',
): Promise<Where | undefined> {
  if (!args) return pickWhere(ctx, what);
  if (args.host === undefined) return { host: undefined };
  if (args.folder === undefined) return { host: args.host, folder: undefined };
  const checked = checkHostFolder(args.host, args.folder);
  if ('error' in checked) throw new Error(checked.error);
  return { host: args.host, folder: checked.folder };
}

/** New Terminal: on this machine as always, or on the host picked, in the folder picked there. */
export async function newTerminalWhere(
  ctx: CommandContext,
  location: TabLocation,
  args: (WhereArgs & { name?: string }) | undefined,
): Promise<void> {
  const where = await whereFor(ctx, args, 'terminal');
  if (!where) return;
  if (where.host === undefined) await ctx.tabs.newTerminal(location, args?.name);
  else await startOnHost(ctx, where, location, { name: args?.name });
}

/** Starts a session on the host `where` names, in a tab here; a folder it started in leads the recent ones. */
export async function startOnHost(
  ctx: CommandContext,
  where: { host: string; folder: string | undefined },
  location: TabLocation,
  run: { name?: string; argv?: string[]; metadata?: Record<string, unknown>; nameBase?: string },
): Promise<void> {
  const { host, folder } = where;
  await ctx.tabs.startOnHost(host, { ...run, ...(folder ? { cwd: folder } : {}) }, location);
  if (folder) ctx.hostFolders.add(host, folder);
}
