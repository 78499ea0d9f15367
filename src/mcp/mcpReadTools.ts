// The reading tools of `holdfast mcp`: list sessions, read a screen, page and search the history.
import { z } from 'zod';
import type { HoldfastClient } from '../client/client';
import { MAX_SCROLLBACK_LINES, SearchLimit } from '../protocol/limits';
import { printable } from '../text/printable';
import {
  defineTool,
  numberedLines,
  pageInput,
  patternOf,
  resolveSession,
  sessionRef,
  summarize,
  summaryLine,
  summarySchema,
  type ToolContext,
  type ToolDef,
  visibleSessions,
  withDaemon,
} from './mcpTool';

/** Where the next page starts; absent on the last page. */
const page = (total: number, offset: number, count: number) => (offset + count < total ? offset + count : undefined);

export const listSessionsTool = defineTool({
  name: 'list_sessions',
  title: 'List terminal sessions',
  description:
    'The Holdfast terminal sessions you may use: id, name, phase (running, idle, waiting = the program rang ' +
    'the bell or sent a notification and may need input, done, exited, archived), command, directory, title, ' +
    "and for waiting or done the reason: its agent's last message or the last text on its screen.",
  readOnly: true,
  input: pageInput(100, 500),
  output: {
    total: z.number(),
    offset: z.number(),
    nextOffset: z.number().optional(),
    sessions: z.array(summarySchema),
  },
  async run({ offset = 0, limit = 100 }, ctx) {
    const sessions = await withDaemon(ctx, (client) => visibleSessions(ctx, client));
    const now = Date.now();
    const shown = sessions.slice(offset, offset + limit).map((s) => summarize(s, now));
    const nextOffset = page(sessions.length, offset, shown.length);
    const text =
      shown.length === 0
        ? sessions.length === 0
          ? 'no sessions'
          : `no sessions from offset ${offset} (${sessions.length} in all)`
        : shown.map(summaryLine).join('\n') + (nextOffset !== undefined ? `\n(more from offset ${nextOffset})` : '');
    return { data: { total: sessions.length, offset, nextOffset, sessions: shown }, text };
  },
});

/** Rows below both the last text and the cursor: blank, so not worth a model's tokens. */
function trimBlankRows(lines: readonly string[], cursorRow: number): string[] {
  let end = lines.length;
  while (end > cursorRow + 1 && lines[end - 1].trim() === '') end -= 1;
  return lines.slice(0, end);
}

export const readScreenTool = defineTool({
  name: 'read_screen',
  title: 'Read a screen',
  description:
    "The session's visible screen as plain text lines (one per row, from the top), and the cursor position. " +
    'Blank rows below the text and the cursor are left out; blankRowsTrimmed says how many.',
  readOnly: true,
  input: { session: sessionRef },
  output: {
    session: z.string(),
    lines: z.array(z.string()),
    cursor: z.object({ x: z.number(), y: z.number() }),
    rows: z.number(),
    blankRowsTrimmed: z.number(),
  },
  async run({ session }, ctx) {
    const result = await withDaemon(ctx, async (client) => {
      const info = await resolveSession(ctx, client, session);
      return { id: info.id, ...(await client.request('read', { session: info.id, scrollback: 0 })) };
    });
    const lines = trimBlankRows(result.lines, result.cursor.y);
    const trimmed = result.lines.length - lines.length;
    const where = `cursor at row ${result.cursor.y}, column ${result.cursor.x}`;
    const below = trimmed > 0 ? `; ${trimmed} blank row${trimmed === 1 ? '' : 's'} below not shown` : '';
    const text = `screen of ${result.id} (${result.lines.length} rows; ${where}${below}):\n${numberedLines(lines, 0)}`;
    const data = { session: result.id, lines, cursor: result.cursor, rows: result.lines.length };
    return { data: { ...data, blankRowsTrimmed: trimmed }, text };
  },
});

/** Everything the session keeps: scrollback then screen, without the blank rows below the last text. */
async function allLines(
  ctx: ToolContext,
  client: HoldfastClient,
  ref: string,
): Promise<{ id: string; lines: string[] }> {
  const info = await resolveSession(ctx, client, ref);
  const { lines } = await client.request('read', { session: info.id, scrollback: MAX_SCROLLBACK_LINES });
  let end = lines.length;
  while (end > 0 && lines[end - 1].trim() === '') end -= 1;
  return { id: info.id, lines: lines.slice(0, end) };
}

export const readHistoryTool = defineTool({
  name: 'read_history',
  title: 'Read history',
  description:
    'A page of every line the session keeps (scrollback, then the screen), numbered from 0 = the oldest kept ' +
    'line. Without offset: the last `limit` lines. Numbers shift when old lines fall out of the scrollback.',
  readOnly: true,
  input: { session: sessionRef, ...pageInput(200, 1000) },
  output: {
    session: z.string(),
    total: z.number(),
    offset: z.number(),
    nextOffset: z.number().optional(),
    lines: z.array(z.string()),
  },
  async run({ session, offset, limit = 200 }, ctx) {
    const { id, lines } = await withDaemon(ctx, (client) => allLines(ctx, client, session));
    const start = offset ?? Math.max(0, lines.length - limit);
    const shown = lines.slice(start, start + limit);
    const nextOffset = page(lines.length, start, shown.length);
    const range = shown.length === 0 ? 'no lines' : `lines ${start}-${start + shown.length - 1}`;
    const text = `${range} of ${lines.length} in ${id}:\n${numberedLines(shown, start)}`;
    return { data: { session: id, total: lines.length, offset: start, nextOffset, lines: shown }, text };
  },
});

interface Found {
  matches: { session: string; line: number; text: string }[];
  linesSearched: number;
  /** The bound cut the matches: there are more than counted. */
  more: boolean;
}

/**
 * The daemon's `search` (one implementation, with `holdfast grep`), asked one session at a time so
 * that a session outside the rights never shows, not even in a count; every match up to the bound,
 * paged by the caller, so that the total is known.
 */
async function searchEach(
  client: HoldfastClient,
  ids: readonly string[],
  pattern: string,
  flags: string | undefined,
): Promise<Found> {
  const found: Found = { matches: [], linesSearched: 0, more: false };
  for (const [i, id] of ids.entries()) {
    const limit = SearchLimit.MaxMatches - found.matches.length;
    const result = await client.request('search', { session: id, pattern, flags, limit });
    // An agent's transcript lines come after the session's own and are numbered apart: not read_history's.
    const own = result.matches.filter((m) => m.source === undefined);
    found.matches.push(...own.map(({ line, text }) => ({ session: id, line, text })));
    found.linesSearched += result.linesSearched ?? 0; // an older daemon does not count them
    // The bound cut the session's own matches (not only its transcript's), or sessions are left unsearched.
    const full = found.matches.length >= SearchLimit.MaxMatches;
    found.more = (result.truncated && own.length === result.matches.length) || (full && i < ids.length - 1);
    if (found.more || full) break;
  }
  return found;
}

export const searchHistoryTool = defineTool({
  name: 'search_history',
  title: 'Search history',
  description:
    'Lines (scrollback and screen) that match a regular expression, in one session or, without session, in ' +
    'every session you may use; each match names its session and its line number (as read_history numbers ' +
    'them). RE2 syntax, matched in linear time: no backreferences or lookaround. ' +
    `At most ${SearchLimit.MaxMatches} matching lines are counted and paged.`,
  readOnly: true,
  input: {
    session: sessionRef.optional().describe('a session id or unique name (default: every session you may use)'),
    pattern: z.string().min(1).describe('RE2 regular expression, matched against each line'),
    flags: z
      .string()
      .regex(/^[ims]*$/)
      .optional()
      .describe('i (ignore case), m, s'),
    ...pageInput(50, 500),
  },
  output: {
    session: z.string().optional().describe('the session searched, when one was given'),
    sessionsSearched: z.number(),
    linesSearched: z.number(),
    totalMatches: z.number(),
    offset: z.number(),
    nextOffset: z.number().optional(),
    matches: z.array(z.object({ session: z.string(), line: z.number(), text: z.string() })),
  },
  async run({ session, pattern, flags, offset = 0, limit = 50 }, ctx) {
    patternOf(pattern, flags); // refused here with the words every tool uses, before the daemon is asked
    const { ids, found } = await withDaemon(ctx, async (client) => {
      const ids =
        session === undefined
          ? (await visibleSessions(ctx, client)).map((s) => s.id)
          : [(await resolveSession(ctx, client, session)).id];
      return { ids, found: await searchEach(client, ids, pattern, flags) };
    });
    const all = found.matches;
    const matches = all.slice(offset, offset + limit);
    const nextOffset = page(all.length, offset, matches.length);
    const count = `${all.length}${found.more ? '+' : ''} matching line${all.length === 1 ? '' : 's'}`;
    const where = session === undefined ? `${ids.length} session${ids.length === 1 ? '' : 's'}` : ids[0];
    const head = `${count} of ${found.linesSearched} in ${where}`;
    const prefix = (m: Found['matches'][number]) => (session === undefined ? `${m.session}:` : '');
    const body = matches.map((m) => `${prefix(m)}${m.line}: ${printable(m.text)}`).join('\n');
    const rest = nextOffset !== undefined ? `\n(more from offset ${nextOffset})` : '';
    const one = session === undefined ? {} : { session: ids[0] };
    const counts = { sessionsSearched: ids.length, linesSearched: found.linesSearched, totalMatches: all.length };
    return {
      data: { ...one, ...counts, offset, nextOffset, matches },
      text: `${head}${body ? `:\n${body}` : ''}${rest}`,
    };
  },
});

export const READ_TOOLS: ToolDef[] = [listSessionsTool, readScreenTool, readHistoryTool, searchHistoryTool];
