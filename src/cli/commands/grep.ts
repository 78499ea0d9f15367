// `holdfast grep`: the daemon's `search` over every session's history and screen, printed like grep.
import { SearchLimit } from '../../protocol/limits';
import type { SearchMatch, SearchParams, SearchResult } from '../../protocol/messages';
import { remoteSearchResult } from '../../link/remoteSearch';
import { printable } from '../../text/printable';
import { compilePattern } from '../../text/textPattern';
import { boolOpt, expectPositionals, intOpt, stringOpt } from '../args';
import { askAllHosts, failedLines, failedNote } from '../allHosts';
import type { Command, CommandResult, Context } from '../command';
import { withClient } from '../connect';
import { ExitCode, usageError } from '../errors';

interface Row {
  text: string;
  match: boolean;
  /** A match on a line that scrolled off a full-screen program's screen. */
  alternate?: boolean;
}

/**
 * grep's layout: `name:N: text` for a match, `name-N- text` for context, `--` between groups that
 * do not touch. N counts from 1 like grep; --json keeps the protocol's 0-based `line`. Lines from
 * an agent's transcript are `name[transcript]:N: text`, N counting the conversation's lines; a match
 * on a line that scrolled off a full-screen program's screen is `name[alternate]:N: text`. With `host` (--all-hosts)
 * each line starts with `HOST:`.
 */
export function formatMatches(matches: SearchMatch[], context: number, host?: string): string {
  const bySession = new Map<string, { name: string; rows: Map<number, Row> }>();
  for (const m of matches) {
    const key = m.source === 'transcript' ? `${m.session}\0transcript` : m.session;
    let entry = bySession.get(key);
    const where = host === undefined ? '' : `${host}:`;
    const name = where + printable(m.name) + (m.source === 'transcript' ? '[transcript]' : '');
    if (!entry) bySession.set(key, (entry = { name, rows: new Map() }));
    const { rows } = entry;
    m.before.forEach((text, i) => {
      const line = m.line - m.before.length + i;
      if (!rows.has(line)) rows.set(line, { text, match: false });
    });
    rows.set(m.line, { text: m.text, match: true, alternate: m.alternate });
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
      const where = row.alternate ? '[alternate]' : '';
      out.push(`${name}${where}${mark}${line + 1}${mark} ${printable(row.text)}`);
    }
  }
  return out.map((l) => l + '\n').join('');
}

export const grepCommand: Command = {
  name: 'grep',
  summary: "search every session's history and screen",
  usage: 'grep PATTERN [--session S | --all-hosts] [--context N] [--limit N] [--ignore-case]',
  options: {
    session: { type: 'string', value: 'S', help: 'only this session (id or name)' },
    context: {
      type: 'string',
      value: 'N',
      help: `N lines of context around each match (at most ${SearchLimit.MaxContext})`,
    },
    limit: { type: 'string', value: 'N', help: `at most N matches (default ${SearchLimit.DefaultMatches})` },
    'ignore-case': { type: 'boolean', short: 'i', help: 'match upper and lower case alike' },
    'all-hosts': { type: 'boolean', help: 'this machine and every host of config.json, each line led by HOST:' },
  },
  details: [
    'PATTERN is RE2 syntax (linear time: no backreferences or lookaround), matched against each line.',
    'Prints NAME:LINE: TEXT per match (LINE counts from 1), NAME-LINE- TEXT for context, -- between groups.',
    'Exit code 1 when nothing matched, like grep. --json prints {"matches": [...], "truncated": BOOL}',
    "with each match's 0-based line in its session's history + screen (as read --scrollback numbers it).",
    'Archived sessions are searched too (their saved screen); a checkpoint is, once restored (recovery restore).',
    "An agent's conversation is searched in its own transcript file too (Claude Code, Codex, Gemini CLI draw on",
    'the alternate screen, which leaves no history): those matches print as NAME[transcript]:LINE: TEXT.',
    "Lines that scrolled off the top of a full-screen program's screen are kept and searched too; those",
    'matches print as NAME[alternate]:LINE: TEXT.',
    'With --all-hosts every line starts with its host (local: this machine), at most N matches per host;',
    '--json adds "host" to each match and "failed": [{host, error}]. A host that fails (ssh, no answer within',
    'its timeout) is one line HOST: ERROR after the matches, and the exit is 1.',
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
    const context = intOpt(ctx.args, 'context', 0, SearchLimit.MaxContext) ?? 0;
    if (boolOpt(ctx.args, 'all-hosts') && stringOpt(ctx.args, 'host') !== undefined)
      throw usageError('--all-hosts searches every host: leave out --host');
    if (boolOpt(ctx.args, 'all-hosts') && stringOpt(ctx.args, 'session') !== undefined)
      throw usageError('--all-hosts searches every session: for one, --host H --session S');
    const params: SearchParams = {
      pattern,
      flags,
      session: stringOpt(ctx.args, 'session'),
      context,
      limit: intOpt(ctx.args, 'limit', 1),
    };
    if (boolOpt(ctx.args, 'all-hosts')) return grepAllHosts(ctx, params);
    const result = await withClient(ctx, (client) => client.request('search', params));
    const notes = [
      ...(result.truncated ? [`stopped at ${result.matches.length} matches (--limit N for more)`] : []),
      ...(result.skippedTranscripts ?? []).map((s) => `the transcript of ${s.session} was not searched: ${s.why}`),
    ];
    return {
      data: {
        matches: result.matches,
        truncated: result.truncated,
        ...(result.skippedTranscripts ? { skippedTranscripts: result.skippedTranscripts } : {}),
      },
      text: formatMatches(result.matches, context),
      note: notes.length > 0 ? notes.join('; ') : undefined,
      exitCode: result.matches.length > 0 ? ExitCode.Ok : ExitCode.Failed,
    };
  },
};

/** `grep --all-hosts`: the same search on this machine and every host at once, each match led by its host. */
async function grepAllHosts(ctx: Context, params: SearchParams): Promise<CommandResult> {
  const limit = params.limit ?? SearchLimit.DefaultMatches;
  const none: SearchResult = { matches: [], truncated: false };
  const answers = await askAllHosts(ctx, none, async (client, link) => {
    const result = await client.request('search', params);
    return link.host ? remoteSearchResult(result, limit) : result;
  });
  const found = answers.flatMap(({ host, value }) => (value && value.matches.length > 0 ? [{ host, ...value }] : []));
  const blocks = found.map((r) => formatMatches(r.matches, params.context ?? 0, r.host));
  const cut = found.filter((r) => r.truncated).map((r) => r.host);
  const skipped = found.flatMap((r) => (r.skippedTranscripts ?? []).map((s) => ({ host: r.host, ...s })));
  const notes = [
    ...(cut.length > 0 ? [`stopped at ${limit} matches on ${cut.join(', ')} (--limit N for more)`] : []),
    ...skipped.map((s) => `the transcript of ${s.host}:${s.session} was not searched: ${printable(s.why)}`),
    ...(failedNote(answers) ? [failedNote(answers)!] : []),
  ];
  const failed = answers.flatMap(({ host, error }) => (error === undefined ? [] : [{ host, error }]));
  const matched = found.length > 0;
  return {
    data: {
      matches: found.flatMap((r) => r.matches.map((m) => ({ host: r.host, ...m }))),
      truncated: cut.length > 0,
      ...(skipped.length > 0 ? { skippedTranscripts: skipped } : {}),
      failed,
    },
    text: blocks.join((params.context ?? 0) > 0 ? '--\n' : '') + failedLines(answers),
    note: notes.length > 0 ? notes.join('; ') : undefined,
    exitCode: matched && failed.length === 0 ? ExitCode.Ok : ExitCode.Failed,
  };
}
