// The reading tools of `holdfast mcp`: list sessions, read a screen, page and search the history.
import { z } from 'zod';
import type { HoldfastClient } from '../client/client';
import { MAX_SCROLLBACK_LINES } from '../protocol/limits';
import { acrossHosts, failedText, keyOf, placeOf } from './mcpHosts';
import { searchHistoryTool } from './mcpSearch';
import {
  defineTool,
  numberedLines,
  page,
  pageInput,
  resolveSession,
  sessionRef,
  summarize,
  summaryLine,
  summarySchema,
  type ToolContext,
  type ToolDef,
  unreachableSchema,
  visibleSessions,
  withDaemon,
} from './mcpTool';

export const listSessionsTool = defineTool({
  name: 'list_sessions',
  title: 'List terminal sessions',
  description:
    'The Holdfast terminal sessions you may use: id, name, phase (running, idle, waiting = the program rang ' +
    'the bell or sent a notification and may need input, done, exited, archived), command, directory, title, ' +
    "and for waiting or done the reason: its agent's last message or the last text on its screen. " +
    'Sessions of other machines (SSH hosts) have ids "@HOST/ID" and a host field; ' +
    'unreachable lists the hosts that did not answer.',
  readOnly: true,
  input: pageInput(100, 500),
  output: {
    total: z.number(),
    offset: z.number(),
    nextOffset: z.number().optional(),
    sessions: z.array(summarySchema),
    unreachable: unreachableSchema,
  },
  async run({ offset = 0, limit = 100 }, ctx) {
    const { answers, failed } = await acrossHosts(ctx, [], ({ ctx, host }) =>
      withDaemon(ctx, async (client) => (await visibleSessions(ctx, client)).map((s) => ({ s, host }))),
    );
    const sessions = answers.flatMap((a) => a.value);
    const now = Date.now();
    const shown = sessions.slice(offset, offset + limit).map(({ s, host }) => summarize(s, now, host));
    const nextOffset = page(sessions.length, offset, shown.length);
    const text =
      (shown.length === 0
        ? sessions.length === 0
          ? 'no sessions'
          : `no sessions from offset ${offset} (${sessions.length} in all)`
        : shown.map(summaryLine).join('\n') + (nextOffset !== undefined ? `\n(more from offset ${nextOffset})` : '')) +
      failedText(failed);
    const unreachable = failed.length > 0 ? { unreachable: failed } : {};
    return { data: { total: sessions.length, offset, nextOffset, sessions: shown, ...unreachable }, text };
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
  async run({ session }, tool) {
    const { place, ref } = placeOf(tool, session);
    const { ctx } = place;
    const result = await withDaemon(ctx, async (client) => {
      const info = await resolveSession(ctx, client, ref);
      const screen = await client.request('read', { session: info.id, scrollback: 0 });
      return { ...screen, id: keyOf(place, info.id) };
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
  async run({ session, offset, limit = 200 }, tool) {
    const { place, ref } = placeOf(tool, session);
    const found = await withDaemon(place.ctx, (client) => allLines(place.ctx, client, ref));
    const { lines } = found;
    const id = keyOf(place, found.id);
    const start = offset ?? Math.max(0, lines.length - limit);
    const shown = lines.slice(start, start + limit);
    const nextOffset = page(lines.length, start, shown.length);
    const range = shown.length === 0 ? 'no lines' : `lines ${start}-${start + shown.length - 1}`;
    const text = `${range} of ${lines.length} in ${id}:\n${numberedLines(shown, start)}`;
    return { data: { session: id, total: lines.length, offset: start, nextOffset, lines: shown }, text };
  },
});

export const READ_TOOLS: ToolDef[] = [listSessionsTool, readScreenTool, readHistoryTool, searchHistoryTool];
