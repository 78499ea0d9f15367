// The `search` request: a pattern over every session's history and screen (archived sessions too:
// their saved screen is their history) as logical lines, numbered as `read` with scrollback numbers
// them; then over an agent's conversation from its transcript file, which a full-screen agent's
// scrollback lacks. The emulators' workers copy the text; a text worker decodes and matches (textJobs.ts).
import { SearchLimit } from '../../protocol/limits';
import type { SearchParams, SearchResult } from '../../protocol/messages';
import { agentOf } from '../../protocol/recovery';
import type { SessionRegistry } from './sessionRegistry';
import type { SearchedSession } from '../search/textJobs';
import type { TextWorkers } from '../textWorkers';

/**
 * Matches in session order, the lines of each in order; at most `limit`, with `truncated` when more
 * matched. `linesSearched` counts the sessions' own lines read until then (transcripts not counted).
 * Rejects with `limit` when the work runs out of its budget, `bad-request` for a bad pattern.
 */
export async function searchSessions(
  registry: Pick<SessionRegistry, 'list' | 'get'>,
  workers: TextWorkers,
  params: SearchParams,
  cancelled?: () => boolean,
): Promise<SearchResult> {
  const sessions = params.session !== undefined ? [registry.get(params.session)] : registry.list();
  const searched: SearchedSession[] = await Promise.all(
    sessions.map(async (session) => {
      const agent = agentOf(session.metadata);
      return {
        session: session.id,
        name: session.name,
        text: await session.textCopy(true),
        ...(agent ? { agent } : {}),
        // Where the agent was started (Claude Code names its folder so), not where a program says it is now.
        cwd: session.info().startCwd!,
      };
    }),
  );
  const job = {
    kind: 'search' as const,
    pattern: params.pattern,
    flags: params.flags ?? '',
    context: Math.min(params.context ?? 0, SearchLimit.MaxContext),
    limit: Math.min(params.limit ?? SearchLimit.DefaultMatches, SearchLimit.MaxMatches),
    sessions: searched,
  };
  return workers.run(job, 'search', cancelled);
}
