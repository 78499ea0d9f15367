// *Holdfast: Search Sessions…*: a quick pick whose items are the daemon's `search` matches over every
// session's history, and every SSH host's (hostSearch.ts), updated as you type; choosing one opens that session's
// history at the line (a host's too, by its key "@HOST/ID").
import * as vscode from 'vscode';
import { Capability, type SearchMatch, type SearchResult } from '../protocol/messages';
import type { HostAnswer } from '../link/hostFanout';
import { LOCAL_HOST } from '../link/hosts';
import { remoteKey } from '../link/sessionKey';
import { ui, type UiText, uiJoin, uiText } from '../text/uiText';
import type { CommandContext } from './commandContext';
import type { HistoryLine, RegisterCommand } from './historyDocument';
import { searchEveryHost } from './hostSearch';
import { UiQuickPick, type UiQuickPickItem } from './ui';

export enum SearchTiming {
  /** Typing pauses this long before a search goes out. */
  DebounceMs = 150,
}

/** Matches shown at most; one line of context on each side goes in the item's detail. */
const LIMIT = 200;
const CONTEXT = 1;
const TITLE = ui`Search Holdfast Sessions`;

/** `host`: a host's match (none: this machine's). */
type MatchItem = UiQuickPickItem & { match: SearchMatch; host?: string };

/** A match's text (the program's) in the quick pick: neither links nor icons. */
function shown(text: string): UiText {
  return uiText(text.trim());
}

/** Where a match's line comes from, when not the session's own screen and scrollback. */
function whereOf(match: SearchMatch): UiText {
  if (match.source === 'transcript') return ui`transcript `;
  return match.alternate ? ui`full-screen scroll ` : ui``;
}

function itemOf(match: SearchMatch, host: string | undefined): MatchItem {
  const context = [...match.before, ...match.after].map(shown).filter((line) => line !== '');
  const where = host === undefined ? ui`` : ui`${uiText(host)} · `;
  return {
    label: shown(match.text) || ui` `,
    description: ui`${where}${shown(match.name)} · ${whereOf(match)}line ${match.line + 1}`,
    detail: context.length > 0 ? uiJoin(context, ui`  ⏎  `) : undefined,
    // The quick pick's own fuzzy filter would hide regex matches: the daemon did the matching.
    alwaysShow: true,
    match,
    ...(host === undefined ? {} : { host }),
  };
}

/** The pick's items and title from the answers in so far: this machine's matches first, then each host's. */
function shownAnswers(answers: readonly (HostAnswer<SearchResult> | undefined)[]): {
  items: MatchItem[];
  title: UiText;
} {
  const items: MatchItem[] = [];
  let truncated = false;
  const failed: UiText[] = [];
  for (const answer of answers) {
    if (!answer) continue;
    const host = answer.host === LOCAL_HOST ? undefined : answer.host;
    if (answer.error !== undefined) failed.push(ui`${uiText(answer.host)}: ${uiText(answer.error)}`);
    for (const match of answer.value?.matches ?? []) items.push(itemOf(match, host));
    truncated ||= answer.value?.truncated ?? false;
  }
  const n = items.length;
  const waiting = answers.filter((a) => !a).length;
  const count = ui`${n}${truncated ? ui`+` : ui``} match${n === 1 ? ui`` : ui`es`}`;
  const more = waiting > 0 ? ui` (${waiting} host${waiting === 1 ? ui`` : ui`s`} to answer)` : ui``;
  const errors = failed.length > 0 ? ui` — ${uiJoin(failed, ui`; `)}` : ui``;
  return { items, title: ui`${TITLE}: ${count}${more}${errors}` };
}

/** Smart case, as in ripgrep: a pattern with a capital letter (not an escape like \S) is case-sensitive. */
function flagsFor(pattern: string): string {
  return /\p{Lu}/u.test(pattern.replace(/\\./gu, '')) ? '' : 'i';
}

async function showSearch(ctx: CommandContext): Promise<void> {
  const client = await ctx.tabs.connection.get();
  if (!client.supports(Capability.Search))
    throw new Error('the running daemon is older than search (Holdfast: Restart Daemon updates it)');
  const placeholder = ui`A regular expression (RE2) over every session’s history, on every host; lowercase: any case`;
  const pick = new UiQuickPick<MatchItem>(TITLE, placeholder);
  const disposables: vscode.Disposable[] = [pick];
  let timer: NodeJS.Timeout | undefined;
  let generation = 0;

  const search = async (pattern: string) => {
    const mine = ++generation;
    if (pattern === '') return pick.update({ items: [], title: TITLE });
    pick.update({ busy: true });
    const params = { pattern, flags: flagsFor(pattern), context: CONTEXT, limit: LIMIT };
    const asked = searchEveryHost(() => Promise.resolve(client), ctx.remotes?.all ?? [], params);
    const answers: (HostAnswer<SearchResult> | undefined)[] = asked.map(() => undefined);
    // Each place's matches as soon as they are in: a slow host never holds this machine's.
    await Promise.all(
      asked.map(async (answer, i) => {
        answers[i] = await answer;
        if (mine === generation) pick.update(shownAnswers(answers));
      }),
    );
    if (mine === generation) pick.update({ busy: false });
  };

  disposables.push(
    pick.onDidChangeValue((value) => {
      clearTimeout(timer);
      timer = setTimeout(() => void search(value), SearchTiming.DebounceMs);
    }),
    pick.onDidAccept(() => {
      const item = pick.selectedItems[0];
      if (!item) return;
      pick.hide();
      const chosen = item.match;
      const at: HistoryLine = { line: chosen.line, text: chosen.text, source: chosen.source };
      const key = item.host === undefined ? chosen.session : remoteKey(item.host, chosen.session);
      void vscode.commands.executeCommand('holdfast.openSessionHistory', key, at);
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
