// *Holdfast: Search Sessions…*: a quick pick whose items are the daemon's `search` matches over every
// session's history, updated as you type; choosing one opens that session's history at the line.
import * as vscode from 'vscode';
import { Capability, type SearchMatch } from '../protocol/messages';
import { ui, type UiText, uiJoin, uiText } from '../text/uiText';
import type { CommandContext } from './commandContext';
import type { HistoryLine, RegisterCommand } from './historyDocument';
import { UiQuickPick, type UiQuickPickItem } from './ui';

export enum SearchTiming {
  /** Typing pauses this long before a search goes out. */
  DebounceMs = 150,
}

/** Matches shown at most; one line of context on each side goes in the item's detail. */
const LIMIT = 200;
const CONTEXT = 1;
const TITLE = ui`Search Holdfast Sessions`;

type MatchItem = UiQuickPickItem & { match: SearchMatch };

/** A match's text (the program's) in the quick pick: neither links nor icons. */
function shown(text: string): UiText {
  return uiText(text.trim());
}

/** Where a match's line comes from, when not the session's own screen and scrollback. */
function whereOf(match: SearchMatch): UiText {
  if (match.source === 'transcript') return ui`transcript `;
  return match.alternate ? ui`full-screen scroll ` : ui``;
}

function itemOf(match: SearchMatch): MatchItem {
  const context = [...match.before, ...match.after].map(shown).filter((line) => line !== '');
  return {
    label: shown(match.text) || ui` `,
    description: ui`${shown(match.name)} · ${whereOf(match)}line ${match.line + 1}`,
    detail: context.length > 0 ? uiJoin(context, ui`  ⏎  `) : undefined,
    // The quick pick's own fuzzy filter would hide regex matches: the daemon did the matching.
    alwaysShow: true,
    match,
  };
}

/** Smart case, as in ripgrep: a pattern with a capital letter (not an escape like \S) is case-sensitive. */
function flagsFor(pattern: string): string {
  return /\p{Lu}/u.test(pattern.replace(/\\./gu, '')) ? '' : 'i';
}

async function showSearch(ctx: CommandContext): Promise<void> {
  const client = await ctx.tabs.connection.get();
  if (!client.supports(Capability.Search))
    throw new Error('the running daemon is older than search (Holdfast: Restart Daemon updates it)');
  const placeholder = ui`A regular expression (RE2) over every session’s history; lowercase matches either case`;
  const pick = new UiQuickPick<MatchItem>(TITLE, placeholder);
  const disposables: vscode.Disposable[] = [pick];
  let timer: NodeJS.Timeout | undefined;
  let generation = 0;

  const search = async (pattern: string) => {
    const mine = ++generation;
    if (pattern === '') return pick.update({ items: [], title: TITLE });
    pick.update({ busy: true });
    try {
      const result = await client.request('search', {
        pattern,
        flags: flagsFor(pattern),
        context: CONTEXT,
        limit: LIMIT,
      });
      if (mine !== generation) return;
      const n = result.matches.length;
      const count = ui`${n}${result.truncated ? ui`+` : ui``} match${n === 1 ? ui`` : ui`es`}`;
      pick.update({ items: result.matches.map(itemOf), title: ui`${TITLE}: ${count}` });
    } catch (err) {
      if (mine !== generation) return;
      pick.update({ items: [], title: ui`${TITLE}: ${uiText((err as Error).message)}` });
    } finally {
      if (mine === generation) pick.update({ busy: false });
    }
  };

  disposables.push(
    pick.onDidChangeValue((value) => {
      clearTimeout(timer);
      timer = setTimeout(() => void search(value), SearchTiming.DebounceMs);
    }),
    pick.onDidAccept(() => {
      const chosen = pick.selectedItems[0]?.match;
      if (!chosen) return;
      pick.hide();
      const at: HistoryLine = { line: chosen.line, text: chosen.text, source: chosen.source };
      void vscode.commands.executeCommand('holdfast.openSessionHistory', chosen.session, at);
    }),
    pick.onDidHide(() => {
      clearTimeout(timer);
      generation++;
      for (const d of disposables) d.dispose();
    }),
  );
  pick.show();
}

export function registerSessionSearch(ctx: CommandContext, register: RegisterCommand): vscode.Disposable[] {
  return [
    // A failure (no daemon, an old daemon) is reported by `register`, like every command's.
    register('holdfast.searchSessions', 'Search Sessions', () => showSearch(ctx)),
  ];
}
