// `holdfast grep`: the daemon's `search` over every session's history and screen, printed like grep.
import { SearchLimit } from '../../protocol/limits';
import type { SearchMatch, SearchParams } from '../../protocol/messages';
import { printable } from '../../text/printable';
import { compilePattern } from '../../text/textPattern';
import { boolOpt, expectPositionals, intOpt, stringOpt } from '../args';
import type { Command } from '../command';
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
 * on a line that scrolled off a full-screen program's screen is `name[alternate]:N: text`.
 */
export function formatMatches(matches: SearchMatch[], context: number): string {
  const bySession = new Map<string, { name: string; rows: Map<number, Row> }>();
  for (const m of matches) {
    const key = m.source === 'transcript' ? `${m.session}\0transcript` : m.session;
    let entry = bySession.get(key);
    const name = printable(m.name) + (m.source === 'transcript' ? '[transcript]' : '');
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
  usage: 'grep PATTERN [--session S] [--context N] [--limit N] [--ignore-case]',
  options: {
    session: { type: 'string', value: 'S', help: 'only this session (id or name)' },
    context: {
      type: 'string',
      value: 'N',
      help: `N lines of context around each match (at most ${SearchLimit.MaxContext})`,
    },
    limit: { type: 'string', value: 'N', help: `at most N matches (default ${SearchLimit.DefaultMatches})` },
    'ignore-case': { type: 'boolean', short: 'i', help: 'match upper and lower case alike' },
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
    const params: SearchParams = {
      pattern,
      flags,
      session: stringOpt(ctx.args, 'session'),
      context,
      limit: intOpt(ctx.args, 'limit', 1),
    };
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
