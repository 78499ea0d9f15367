// The reading tools of `holdfast mcp`: list sessions, read a screen, page and search the history.
import { z } from 'zod';
import { HoldfastClient } from '../protocol/client';
import { MAX_SCROLLBACK_LINES, SearchLimit } from '../protocol/limits';
import { printable } from '../protocol/printable';
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
  ToolContext,
  ToolDef,
  visibleSessions,
  withDaemon,
} from './mcpTool';

const page = (total: number, offset: number, count: number) => (offset + count < total ? offset + count : null);

export const listSessionsTool = defineTool({
  name: 'list_sessions',
  title: 'List terminal sessions',
  description:
    'The Holdfast terminal sessions you may use: id, name, phase (running, idle, waiting = the program rang ' +
    'the bell or sent a notification and may need input, exited, archived), command, directory, title.',
  readOnly: true,
  input: pageInput(100, 500),
  output: {
    total: z.number(),
    offset: z.number(),
    nextOffset: z.number().nullable(),
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
        : shown.map(summaryLine).join('\n') + (nextOffset !== null ? `\n(more from offset ${nextOffset})` : '');
    return { data: { total: sessions.length, offset, nextOffset, sessions: shown }, text };
  },
});

export const readScreenTool = defineTool({
  name: 'read_screen',
  title: 'Read a screen',
  description: "The session's visible screen as plain text lines (one per row), and the cursor position.",
  readOnly: true,
  input: { session: sessionRef },
  output: {
    session: z.string(),
    lines: z.array(z.string()),
    cursor: z.object({ x: z.number(), y: z.number() }),
  },
  async run({ session }, ctx) {
    const result = await withDaemon(ctx, async (client) => {
      const info = await resolveSession(ctx, client, session);
      return { id: info.id, ...(await client.request('read', { session: info.id, scrollback: 0 })) };
    });
    const where = `cursor at row ${result.cursor.y}, column ${result.cursor.x}`;
    const text = `screen of ${result.id} (${where}):\n${numberedLines(result.lines, 0)}`;
    return { data: { session: result.id, lines: result.lines, cursor: result.cursor }, text };
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
    nextOffset: z.number().nullable(),
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

export const searchHistoryTool = defineTool({
  name: 'search_history',
  title: 'Search history',
  description:
    'Lines of the session (scrollback and screen) that match a regular expression, with their line numbers ' +
    '(as read_history numbers them). RE2 syntax, matched in linear time: no backreferences or lookaround. ' +
    `At most ${SearchLimit.MaxMatches} matching lines are counted and paged.`,
  readOnly: true,
  input: {
    session: sessionRef,
    pattern: z.string().min(1).describe('RE2 regular expression, matched against each line'),
    flags: z
      .string()
      .regex(/^[ims]*$/)
      .optional()
      .describe('i (ignore case), m, s'),
    ...pageInput(50, 500),
  },
  output: {
    session: z.string(),
    linesSearched: z.number(),
    totalMatches: z.number(),
    offset: z.number(),
    nextOffset: z.number().nullable(),
    matches: z.array(z.object({ line: z.number(), text: z.string() })),
  },
  async run({ session, pattern, flags, offset = 0, limit = 50 }, ctx) {
    patternOf(pattern, flags); // refused here with the words every tool uses, before the daemon is asked
    const { id, found } = await withDaemon(ctx, async (client) => {
      const info = await resolveSession(ctx, client, session);
      // The daemon's `search` (one implementation, with `holdfast grep`); every match up to its bound,
      // paged here, so that the total is known.
      const params = { session: info.id, pattern, flags, limit: SearchLimit.MaxMatches };
      return { id: info.id, found: await client.request('search', params) };
    });
    // An agent's transcript lines come after the session's own and are numbered apart: not read_history's.
    const own = found.matches.filter((m) => m.source === undefined);
    const all = own.map(({ line, text }) => ({ line, text }));
    // The bound cut the session's own matches (not only its transcript's): there are more than counted.
    const more = found.truncated && own.length === found.matches.length;
    const linesSearched = found.linesSearched ?? 0; // an older daemon does not count them
    const matches = all.slice(offset, offset + limit);
    const nextOffset = page(all.length, offset, matches.length);
    const count = `${all.length}${more ? '+' : ''} matching line${all.length === 1 ? '' : 's'}`;
    const head = `${count} of ${linesSearched} in ${id}`;
    const body = matches.map((m) => `${m.line}: ${printable(m.text)}`).join('\n');
    const rest = nextOffset !== null ? `\n(more from offset ${nextOffset})` : '';
    return {
      data: { session: id, linesSearched, totalMatches: all.length, offset, nextOffset, matches },
      text: `${head}${body ? `:\n${body}` : ''}${rest}`,
    };
  },
});

export const READ_TOOLS: ToolDef[] = [listSessionsTool, readScreenTool, readHistoryTool, searchHistoryTool];
