// The search_history tool of `holdfast mcp`: the daemon's `search` (one implementation, with `holdfast grep`) over
// the sessions the client may use, here and on every host the rights reach (mcpHosts.ts).
import { z } from 'zod';
import type { HoldfastClient } from '../client/client';
import { remoteSearchResult } from '../link/remoteSearch';
import { SearchLimit } from '../protocol/limits';
import { printable } from '../text/printable';
import { acrossHosts, failedText, keyOf, placeOf, type SessionPlace } from './mcpHosts';
import {
  defineTool,
  page,
  pageInput,
  patternOf,
  resolveSession,
  sessionRef,
  unreachableSchema,
  visibleSessions,
  withDaemon,
} from './mcpTool';

interface Match {
  session: string;
  /** A configured host's name, for its sessions' matches. */
  host?: string;
  line: number;
  text: string;
}

interface Found {
  matches: Match[];
  linesSearched: number;
  /** The bound cut the matches: there are more than counted. */
  more: boolean;
}

/**
 * Asked one session at a time so that a session outside the rights never shows, not even in a count; every match up
 * to the bound, paged by the caller, so that the total is known. A host's answers are checked (remoteSearch.ts).
 */
async function searchEach(
  client: HoldfastClient,
  place: SessionPlace,
  ids: readonly string[],
  pattern: string,
  flags: string | undefined,
): Promise<Found> {
  const found: Found = { matches: [], linesSearched: 0, more: false };
  const host = place.host === undefined ? {} : { host: place.host };
  for (const [i, id] of ids.entries()) {
    const limit = SearchLimit.MaxMatches - found.matches.length;
    const raw = await client.request('search', { session: id, pattern, flags, limit });
    const result = place.ctx.link.host ? remoteSearchResult(raw, limit) : raw;
    // An agent's transcript lines come after the session's own and are numbered apart: not read_history's.
    // A host's match of another session than the one asked is not taken.
    const own = result.matches.filter((m) => m.source === undefined && m.session === id);
    found.matches.push(...own.map(({ line, text }) => ({ session: keyOf(place, id), ...host, line, text })));
    found.linesSearched += result.linesSearched ?? 0; // an older daemon does not count them
    // The bound cut the session's own matches (not only its transcript's), or sessions are left unsearched.
    const full = found.matches.length >= SearchLimit.MaxMatches;
    found.more = (result.truncated && own.length === result.matches.length) || (full && i < ids.length - 1);
    if (found.more || full) break;
  }
  return found;
}

/** The sessions of `place` to search (one named, or every visible one), their keys, and what they hold. */
async function searchAt(place: SessionPlace, ref: string | undefined, pattern: string, flags: string | undefined) {
  const { ctx } = place;
  return withDaemon(ctx, async (client) => {
    const ids =
      ref === undefined
        ? (await visibleSessions(ctx, client)).map((s) => s.id)
        : [(await resolveSession(ctx, client, ref)).id];
    return { keys: ids.map((id) => keyOf(place, id)), found: await searchEach(client, place, ids, pattern, flags) };
  });
}

export const searchHistoryTool = defineTool({
  name: 'search_history',
  title: 'Search history',
  description:
    'Lines (scrollback and screen) that match a regular expression, in one session or, without session, in ' +
    'every session you may use (other machines\' too: "@HOST/ID"); each match names its session and its line ' +
    'number (as read_history numbers them). RE2 syntax, matched in linear time: no backreferences or lookaround. ' +
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
    matches: z.array(
      z.object({ session: z.string(), host: z.string().optional(), line: z.number(), text: z.string() }),
    ),
    unreachable: unreachableSchema,
  },
  async run({ session, pattern, flags, offset = 0, limit = 50 }, ctx) {
    patternOf(pattern, flags); // refused here with the words every tool uses, before the daemon is asked
    const none = { keys: [], found: { matches: [], linesSearched: 0, more: false } };
    const { answers, failed } =
      session === undefined
        ? await acrossHosts(ctx, none, (place) => searchAt(place, undefined, pattern, flags))
        : await (async () => {
            const { place, ref } = placeOf(ctx, session);
            return { answers: [{ value: await searchAt(place, ref, pattern, flags) }], failed: [] };
          })();
    const ids = answers.flatMap((a) => a.value.keys);
    const merged = answers.flatMap((a) => a.value.found.matches);
    const all = merged.slice(0, SearchLimit.MaxMatches);
    const more = answers.some((a) => a.value.found.more) || merged.length > all.length;
    const linesSearched = answers.reduce((n, a) => n + a.value.found.linesSearched, 0);
    const matches = all.slice(offset, offset + limit);
    const nextOffset = page(all.length, offset, matches.length);
    const count = `${all.length}${more ? '+' : ''} matching line${all.length === 1 ? '' : 's'}`;
    const where = session === undefined ? `${ids.length} session${ids.length === 1 ? '' : 's'}` : ids[0];
    const head = `${count} of ${linesSearched} in ${where}`;
    const prefix = (m: Match) => (session === undefined ? `${m.session}:` : '');
    const body = matches.map((m) => `${prefix(m)}${m.line}: ${printable(m.text)}`).join('\n');
    const rest = nextOffset !== undefined ? `\n(more from offset ${nextOffset})` : '';
    const one = session === undefined ? {} : { session: ids[0] };
    const counts = { sessionsSearched: ids.length, linesSearched, totalMatches: all.length };
    const unreachable = failed.length > 0 ? { unreachable: failed } : {};
    return {
      data: { ...one, ...counts, offset, nextOffset, matches, ...unreachable },
      text: `${head}${body ? `:\n${body}` : ''}${rest}${failedText(failed)}`,
    };
  },
});
