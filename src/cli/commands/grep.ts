// `holdfast grep`: the daemon's `search` over every session's history and screen, printed like grep.
import { NoDaemonError } from '../../protocol/client';
import { Capability, SearchMatch, SearchParams, SearchResult } from '../../protocol/messages';
import { compilePattern } from '../../protocol/textPattern';
import { boolOpt, expectPositionals, intOpt, stringOpt } from '../args';
import { Command, Context } from '../command';
import { withClient } from '../connect';
import { ExitCode, usageError } from '../errors';
import { printable } from '../../protocol/printable';

/** Context lines at most (the daemon's bound too). */
const MAX_CONTEXT = 50;

interface Row {
  text: string;
  match: boolean;
}

/**
 * grep's layout: `name:N: text` for a match, `name-N- text` for context, `--` between groups that
 * do not touch. N counts from 1 like grep; --json keeps the protocol's 0-based `line`.
 */
export function formatMatches(matches: SearchMatch[], context: number): string {
  const bySession = new Map<string, { name: string; rows: Map<number, Row> }>();
  for (const m of matches) {
    // An archive in a checkpoint file keeps its old id: the name tells them apart.
    const key = `${m.session}@${m.name}`;
    let entry = bySession.get(key);
    if (!entry) bySession.set(key, (entry = { name: m.name, rows: new Map() }));
    const { rows } = entry;
    m.before.forEach((text, i) => {
      const line = m.line - m.before.length + i;
      if (!rows.has(line)) rows.set(line, { text, match: false });
    });
    rows.set(m.line, { text: m.text, match: true });
    m.after.forEach((text, i) => {
      if (!rows.has(m.line + 1 + i)) rows.set(m.line + 1 + i, { text, match: false });
    });
  }
  const out: string[] = [];
  let first = true;
  for (const { name, rows } of bySession.values()) {
    let previous: number | undefined;
    for (const line of [...rows.keys()].sort((a, b) => a - b)) {
      if (context > 0 && !first && previous !== line - 1) out.push('--');
      first = false;
      previous = line;
      const row = rows.get(line)!;
      const mark = row.match ? ':' : '-';
      out.push(`${printable(name)}${mark}${line + 1}${mark} ${printable(row.text)}`);
    }
  }
  return out.map((l) => l + '\n').join('');
}

function search(ctx: Context, params: SearchParams): Promise<SearchResult> {
  return withClient(ctx, (client) => client.request('search', params));
}

/** The daemon's matches (when one runs), then those in checkpoint files it does not hold. */
async function withArchives(ctx: Context, params: SearchParams): Promise<SearchResult> {
  let result: SearchResult = { matches: [], truncated: false };
  let currentCheckpoint: string | undefined;
  try {
    result = await withClient(ctx, async (client) => {
      const found = await client.request('search', params);
      if (client.supports(Capability.Recovery))
        currentCheckpoint = (await client.request('recovery.list', {})).checkpoints.find((c) => c.current)?.id;
      return found;
    });
  } catch (err) {
    // No daemon: the checkpoint files are all there is to search.
    if (!(err instanceof NoDaemonError)) throw err;
  }
  if (result.truncated) return result;
  // Loaded only here: it brings the emulator, which no other command needs.
  const { searchCheckpoints } = await import('../archivedSearch');
  const truncated = await searchCheckpoints(ctx.env, params, currentCheckpoint, result.matches);
  return { matches: result.matches, truncated };
}

export const grepCommand: Command = {
  name: 'grep',
  summary: "search every session's history and screen",
  usage: 'grep PATTERN [--session S] [--context N] [--limit N] [--ignore-case] [--archived]',
  options: {
    session: { type: 'string', value: 'S', help: 'only this session (id or name)' },
    context: { type: 'string', value: 'N', help: `N lines of context around each match (at most ${MAX_CONTEXT})` },
    limit: { type: 'string', value: 'N', help: 'at most N matches (default 200)' },
    'ignore-case': { type: 'boolean', short: 'i', help: 'match upper and lower case alike' },
    archived: {
      type: 'boolean',
      help: 'also the saved screens of checkpoints no running daemon holds (read from the files; works with no daemon)',
    },
  },
  details: [
    'PATTERN is RE2 syntax (linear time: no backreferences or lookaround), matched against each line.',
    'Prints NAME:LINE: TEXT per match (LINE counts from 1), NAME-LINE- TEXT for context, -- between groups.',
    'Exit code 1 when nothing matched, like grep. --json prints {"matches": [...], "truncated": BOOL}',
    "with each match's 0-based line in its session's history + screen (as read --scrollback numbers it).",
  ],
  async run(ctx) {
    expectPositionals(ctx.args, 1, 1, 'PATTERN');
    const pattern = ctx.args.positionals[0];
    const flags = boolOpt(ctx.args, 'ignore-case') ? 'i' : '';
    try {
      compilePattern(pattern, flags);
    } catch (err) {
      throw usageError(`invalid regular expression: ${(err as Error).message}`);
    }
    const context = intOpt(ctx.args, 'context', 0, MAX_CONTEXT) ?? 0;
    const params: SearchParams = {
      pattern,
      flags,
      session: stringOpt(ctx.args, 'session'),
      context,
      limit: intOpt(ctx.args, 'limit', 1),
    };
    const result = boolOpt(ctx.args, 'archived') ? await withArchives(ctx, params) : await search(ctx, params);
    return {
      data: result,
      text: formatMatches(result.matches, context),
      note: result.truncated ? `stopped at ${result.matches.length} matches (--limit N for more)` : undefined,
      exitCode: result.matches.length > 0 ? ExitCode.Ok : ExitCode.Failed,
    };
  },
};
