// *Holdfast: Search Sessions…*: a quick pick whose items are the daemon's `search` matches over every
// session's history, updated as you type; choosing one opens that session's history at the line.
import * as vscode from 'vscode';
import { Capability, SearchMatch } from '../protocol/messages';
import { printable } from '../text/printable';
import { CommandContext } from './commandContext';
import { HistoryLine, RegisterCommand } from './historyDocument';

export enum SearchTiming {
  /** Typing pauses this long before a search goes out. */
  DebounceMs = 150,
}

/** Matches shown at most; one line of context on each side goes in the item's detail. */
const LIMIT = 200;
const CONTEXT = 1;
const TITLE = 'Search Holdfast Sessions';

interface MatchItem extends vscode.QuickPickItem {
  match: SearchMatch;
}

/** Program text in a quick pick: visible escapes for controls, and no `$(icon)` rendering. */
function shown(text: string): string {
  return printable(text).trim().replace(/\$\(/g, '\\$(');
}

/** Where a match's line comes from, when not the session's own screen and scrollback. */
function whereOf(match: SearchMatch): string {
  if (match.source === 'transcript') return 'transcript ';
  return match.alternate ? 'full-screen scroll ' : '';
}

function itemOf(match: SearchMatch): MatchItem {
  const context = [...match.before, ...match.after].map(shown).filter((line) => line !== '');
  return {
    label: shown(match.text) || ' ',
    description: `${shown(match.name)} · ${whereOf(match)}line ${match.line + 1}`,
    detail: context.join('  ⏎  ') || undefined,
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
  const pick = vscode.window.createQuickPick<MatchItem>();
  const disposables: vscode.Disposable[] = [pick];
  let timer: NodeJS.Timeout | undefined;
  let generation = 0;
  pick.title = TITLE;
  pick.placeholder = 'A regular expression (RE2) over every session’s history; lowercase matches either case';
  pick.matchOnDescription = false;
  pick.matchOnDetail = false;

  const search = async (pattern: string) => {
    const mine = ++generation;
    if (pattern === '') {
      pick.items = [];
      pick.title = TITLE;
      return;
    }
    pick.busy = true;
    try {
      const result = await client.request('search', {
        pattern,
        flags: flagsFor(pattern),
        context: CONTEXT,
        limit: LIMIT,
      });
      if (mine !== generation) return;
      pick.items = result.matches.map(itemOf);
      const n = result.matches.length;
      pick.title = `${TITLE}: ${n}${result.truncated ? '+' : ''} match${n === 1 ? '' : 'es'}`;
    } catch (err) {
      if (mine !== generation) return;
      pick.items = [];
      pick.title = `${TITLE}: ${(err as Error).message}`;
    } finally {
      if (mine === generation) pick.busy = false;
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
