// What a host's daemon answers to `search`, checked before it is printed or handed on (`grep --all-hosts`, MCP's
// search_history): a host may send anything. A match that is not one is dropped, at most the limit asked for is
// kept; its text stays program text for the sinks to make printable.
import { z } from 'zod';
import { SearchLimit } from '../protocol/limits';
import type { SearchMatch, SearchResult } from '../protocol/messages';
import { remoteSessionIdSchema } from './remoteSessions';

/** A line of a host's history: a screen row is at most 1000 columns; wide characters and combining marks more. */
const LINE = z.string().max(65_536);
const LINES = z.array(LINE).max(SearchLimit.MaxContext);

const matchSchema = z.object({
  session: remoteSessionIdSchema,
  name: z.string().max(4096),
  line: z.number().int().nonnegative(),
  text: LINE,
  before: LINES,
  after: LINES,
  source: z.literal('transcript').optional(),
  alternate: z.literal(true).optional(),
});

const skippedSchema = z.object({ session: remoteSessionIdSchema, why: z.string().max(1000) });

/** A host's search answer as a SearchResult: the matches that are ones, at most `limit`; nothing when it is not one. */
export function remoteSearchResult(raw: unknown, limit: number): SearchResult {
  const body = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const matches: SearchMatch[] = [];
  for (const item of Array.isArray(body.matches) ? body.matches : []) {
    if (matches.length >= limit) break;
    const parsed = matchSchema.safeParse(item);
    if (parsed.success) matches.push(parsed.data);
  }
  const many = Array.isArray(body.matches) && body.matches.length > limit;
  const lines = z.number().int().nonnegative().safeParse(body.linesSearched);
  const skipped = z.array(skippedSchema).max(SearchLimit.MaxMatches).safeParse(body.skippedTranscripts);
  return {
    matches,
    truncated: body.truncated === true || many,
    ...(lines.success ? { linesSearched: lines.data } : {}),
    ...(skipped.success && skipped.data.length > 0 ? { skippedTranscripts: skipped.data } : {}),
  };
}
