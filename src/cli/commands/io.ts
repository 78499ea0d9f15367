// Reading and driving a session from scripts: read, send, reply, wait.
import { DEFAULT_IDLE_MS } from '../../protocol/limits';
import type { AttentionState, WaitCondition } from '../../protocol/messages';
import { compilePattern } from '../../text/textPattern';
import { boolOpt, expectPositionals, intOpt, listOpt, parseIntArg, stringOpt } from '../args';
import type { Command } from '../command';
import { withClient } from '../connect';
import { riding } from '../../link/reconnect';
import { ExitCode, usageError } from '../errors';
import { KEY_NAMES_HELP, sendPayload } from '../../text/keys';
import { hasControl, printable } from '../../text/printable';
import { formatState } from '../output';

export const readCommand: Command = {
  name: 'read',
  summary: 'print the screen as plain text lines',
  usage: 'read ID [--scrollback N]',
  options: {
    scrollback: { type: 'string', value: 'N', help: 'also print up to N lines of scrollback above the screen' },
  },
  details: ['--json prints {"lines": [...], "cursor": {"x": X, "y": Y}}.'],
  async run(ctx) {
    expectPositionals(ctx.args, 1, 1, 'session ID or name');
    const scrollback = intOpt(ctx.args, 'scrollback', 0);
    const result = await withClient(ctx, (client) =>
      client.request('read', { session: ctx.args.positionals[0], scrollback }),
    );
    return { data: result, text: result.lines.map((l) => printable(l) + '\n').join('') };
  },
};

export const sendCommand: Command = {
  name: 'send',
  summary: 'type text and keys into a session',
  usage: 'send ID [--text T] [--key K]... [--enter]',
  options: {
    text: { type: 'string', value: 'T', help: 'text to type, as is' },
    key: {
      type: 'string',
      multiple: true,
      value: 'K',
      help: 'a key by name (repeatable, sent in order after the text)',
    },
    enter: { type: 'boolean', help: 'press Enter last' },
  },
  details: [`Keys: ${KEY_NAMES_HELP}.`, 'Example: holdfast send build --text "make test" --enter'],
  async run(ctx) {
    expectPositionals(ctx.args, 1, 1, 'session ID or name');
    const data = sendPayload(stringOpt(ctx.args, 'text'), listOpt(ctx.args, 'key'), boolOpt(ctx.args, 'enter'));
    if (data.length === 0) throw usageError('nothing to send: give --text, --key or --enter');
    await withClient(ctx, (client) => client.request('send', { session: ctx.args.positionals[0], data }));
    return { data: { sent: Buffer.byteLength(data, 'utf8') } };
  },
};

export const replyCommand: Command = {
  name: 'reply',
  summary: 'answer a session that waits: type one line of text, then Enter',
  usage: 'reply ID TEXT...',
  options: {},
  details: [
    'The words of TEXT are joined by one space. Keys and several lines: holdfast send.',
    'Example: holdfast reply agent-1 "yes, go on"',
  ],
  async run(ctx) {
    expectPositionals(ctx.args, 2, Infinity, 'session ID or name, then the text');
    const [session, ...words] = ctx.args.positionals;
    const text = words.join(' ');
    if (hasControl(text)) throw usageError('reply types one line of text; use holdfast send for keys and lines');
    await withClient(ctx, (client) => client.request('send', { session, data: `${text}\r` }));
    return { data: { sent: Buffer.byteLength(text, 'utf8') + 1 } };
  },
};

/** Attention states a wait can name: the session needs you, finished its turn, or works. */
const ATTENTION_WAITS: readonly AttentionState[] = ['waiting', 'done', 'running'];

/** exit | idle | idle:MS | text:REGEX | waiting | done | running */
export function parseWaitCondition(raw: string): WaitCondition {
  if (raw === 'exit') return { kind: 'exit' };
  if ((ATTENTION_WAITS as readonly string[]).includes(raw))
    return { kind: 'attention', states: [raw as AttentionState] };
  if (raw === 'idle') return { kind: 'idle', ms: DEFAULT_IDLE_MS };
  if (raw.startsWith('idle:')) return { kind: 'idle', ms: parseIntArg(raw.slice(5), 'idle:MS', 1) };
  if (raw.startsWith('text:')) {
    const pattern = raw.slice(5);
    if (pattern === '') throw usageError('text: needs a regular expression, e.g. --for "text:\\$ $"');
    try {
      compilePattern(pattern);
    } catch (err) {
      throw usageError(`invalid regular expression in --for: ${(err as Error).message}`);
    }
    return { kind: 'text', pattern };
  }
  throw usageError(`--for takes exit, idle, idle:MS, text:REGEX, waiting, done or running, not "${raw}"`);
}

function describeCondition(c: WaitCondition): string {
  if (c.kind === 'exit') return 'exit';
  if (c.kind === 'idle') return `${c.ms} ms of quiet`;
  if (c.kind === 'attention') return c.states.join(' or ');
  return `text /${c.pattern}/`;
}

export const waitCommand: Command = {
  name: 'wait',
  summary: 'wait until a session exits, goes quiet, shows text, or needs you',
  usage: 'wait ID --for exit|idle[:MS]|text:REGEX|waiting|done|running [--history] [--timeout-ms N]',
  options: {
    for: {
      type: 'string',
      value: 'COND',
      help:
        `exit; idle (no output for ${DEFAULT_IDLE_MS} ms) or idle:MS; text:REGEX (RE2 syntax, linear ` +
        'time; a line of the screen)',
    },
    history: { type: 'boolean', help: 'text: also match the lines scrolled above the screen' },
    'timeout-ms': { type: 'string', value: 'N', help: 'give up after N ms with exit code 124 (default: wait forever)' },
  },
  details: [
    "waiting, done and running are the session's attention (`holdfast list` shows it): waiting for you, its turn" +
      ' or command done, working.',
    '--json prints {"met": true|false, "session": SessionInfo}.',
  ],
  async run(ctx) {
    expectPositionals(ctx.args, 1, 1, 'session ID or name');
    const raw = stringOpt(ctx.args, 'for');
    if (raw === undefined) throw usageError('wait needs --for exit, idle[:MS], text:REGEX, waiting, done or running');
    const parsed = parseWaitCondition(raw);
    const condition: WaitCondition =
      parsed.kind === 'text' && boolOpt(ctx.args, 'history') ? { ...parsed, history: true } : parsed;
    const timeoutMs = intOpt(ctx.args, 'timeout-ms', 0);
    // A lost connection (a handoff, ssh gone) is reconnected and the wait asked again for the time left.
    const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
    const result = await riding(
      ctx.link,
      (client) =>
        client.request('wait', {
          session: ctx.args.positionals[0],
          condition,
          timeoutMs: deadline === undefined ? undefined : Math.max(1, deadline - Date.now()),
        }),
      { say: (line) => ctx.io.stderr(`holdfast: ${line}\n`), deadline },
    );
    if (result.met) return { data: result, text: condition.kind === 'exit' ? formatState(result.session) : undefined };
    // Not met: either the time ran out, or the program ended first and the condition can never hold.
    if (condition.kind !== 'exit' && result.session.state === 'exited') {
      return {
        data: result,
        note: `session ${result.session.id} ${formatState(result.session)} before ${describeCondition(condition)}`,
        exitCode: ExitCode.Failed,
      };
    }
    const after = timeoutMs === undefined ? "the daemon's longest wait" : `${timeoutMs} ms`;
    return {
      data: result,
      note: `timed out after ${after} waiting for ${describeCondition(condition)}`,
      exitCode: ExitCode.TimedOut,
    };
  },
};
