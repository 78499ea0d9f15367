// The `search` request: a pattern over every session's history and screen (archived sessions too:
// their saved screen is their history), read the way `read` reads them, matched in linear time; then
// over an agent's conversation from its transcript file, which a full-screen agent's scrollback lacks.
import { SearchLimit } from '../protocol/limits';
import { ErrorCode, SearchMatch, SearchParams, SearchResult } from '../protocol/messages';
import { agentOf } from '../protocol/recovery';
import { readTranscript } from '../protocol/transcripts';
import { compilePattern, TextPattern } from '../protocol/textPattern';
import { isAlternateMarker } from './alternateScroll';
import { DaemonError } from './daemonError';
import type { Session } from './session';
import type { SessionRegistry } from './sessionRegistry';

/** How a search runs; what a client may ask is bounded by SearchLimit (protocol/limits.ts). */
export enum SearchTuning {
  /**
   * Lines matched per turn of the event loop: a slice costs a few ms, and between slices the
   * daemon serves other clients and the sessions' output (measured: 10 sessions × 10k lines took
   * 30-70 ms in all, and another client's request was answered within 5-25 ms meanwhile).
   */
  SliceLines = 8192,
  /** A longer line (a stored logical line can be very long) is cut in the answer, so replies stay small. */
  MaxTextChars = 2000,
}

/**
 * The one reading of a session's text for search: the same lines as `read` with all the scrollback;
 * the first `alternate` of them scrolled off a full-screen program's alternate screen.
 */
function sessionLines(session: Session): { lines: string[]; alternate: number } {
  return { lines: session.screen(Infinity).lines, alternate: session.alternateLines };
}

function clip(line: string): string {
  return line.length > SearchTuning.MaxTextChars ? line.slice(0, SearchTuning.MaxTextChars) + '…' : line;
}

function checkedPattern(params: SearchParams): TextPattern {
  try {
    return compilePattern(params.pattern, params.flags ?? '');
  } catch (err) {
    throw new DaemonError(ErrorCode.BadRequest, `search: ${(err as Error).message}`);
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** What a search asks, checked and bounded: the compiled pattern, the context and the limit. */
interface SearchPlan {
  pattern: TextPattern;
  context: number;
  limit: number;
}

function planSearch(params: SearchParams): SearchPlan {
  return {
    pattern: checkedPattern(params),
    context: Math.min(params.context ?? 0, SearchLimit.MaxContext),
    limit: Math.min(params.limit ?? SearchLimit.DefaultMatches, SearchLimit.MaxMatches),
  };
}

/**
 * Appends the matches among `lines` to `matches` (oldest first), in slices with a turn of the
 * event loop between them; false when `plan.limit` was reached and a further line matched. The
 * first `alternate` lines are marked as from the alternate screen; their marker lines are not matched.
 */
async function matchLines(
  lines: string[],
  source: Pick<SearchMatch, 'session' | 'name' | 'source'>,
  plan: SearchPlan,
  matches: SearchMatch[],
  alternate = 0,
): Promise<boolean> {
  const { pattern, context, limit } = plan;
  for (let from = 0; from < lines.length; from += SearchTuning.SliceLines) {
    if (from > 0) await nextTurn();
    const to = Math.min(lines.length, from + SearchTuning.SliceLines);
    for (let line = from; line < to; line++) {
      if (!pattern.test(lines[line]) || (line < alternate && isAlternateMarker(lines[line]))) continue;
      if (matches.length >= limit) return false;
      matches.push({
        ...source,
        line,
        text: clip(lines[line]),
        before: lines.slice(Math.max(0, line - context), line).map(clip),
        after: lines.slice(line + 1, line + 1 + context).map(clip),
        ...(line < alternate ? { alternate: true as const } : {}),
      });
    }
  }
  return true;
}

/**
 * Matches in session order, the lines of each in order; at most `limit`, with `truncated` when more
 * matched. `linesSearched` counts the sessions' own lines read until then (transcripts not counted).
 */
export async function searchSessions(
  registry: Pick<SessionRegistry, 'list' | 'get'>,
  params: SearchParams,
): Promise<SearchResult> {
  const plan = planSearch(params);
  const sessions = params.session !== undefined ? [registry.get(params.session)] : registry.list();
  const matches: SearchMatch[] = [];
  let linesSearched = 0;
  for (const [index, session] of sessions.entries()) {
    if (index > 0) await nextTurn();
    // Removed while the search yielded: its emulator is gone.
    if (!registry.list().includes(session)) continue;
    const source = { session: session.id, name: session.name };
    const { lines, alternate } = sessionLines(session);
    linesSearched += lines.length;
    if (!(await matchLines(lines, source, plan, matches, alternate)))
      return { matches, truncated: true, linesSearched };
    // The daemon runs as the user, in the user's home: the agent's files are its to read.
    const transcript = await readTranscript(agentOf(session.metadata), session.info().cwd);
    if (transcript && !(await matchLines(transcript.lines, { ...source, source: 'transcript' }, plan, matches)))
      return { matches, truncated: true, linesSearched };
  }
  return { matches, truncated: false, linesSearched };
}
