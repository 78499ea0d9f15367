// A full-screen Claude Code stand-in for the e2e (run as `node claudeStandIn.js --session-id ID`, with the
// hook options Holdfast puts after the program's name, which it ignores). Like Claude Code 2.1 it
// draws on the alternate screen (fullScreenStandIn.ts) and appends its conversation to
// ~/.claude/projects/<slug of its directory>/<session id>.jsonl, one JSON record per line, each
// content block of an answer its own record. Its answer's tool result holds the word in
// $HOLDFAST_STAND_IN_WORD, which it never draws: only the transcript has it.
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runFullScreen } from './fullScreenStandIn';

const args = process.argv.slice(2);
const sessionId = args[args.indexOf('--session-id') + 1];
const word = process.env.HOLDFAST_STAND_IN_WORD ?? '';
const cwd = process.cwd();
// Claude Code's project folder (its rule, written out here rather than taken from Holdfast's transcripts.ts,
// so that the test checks Holdfast against it): the directory with every character other than [A-Za-z0-9] made "-".
const transcript = path.join(
  os.homedir(),
  '.claude',
  'projects',
  cwd.replace(/[^a-zA-Z0-9]/g, '-'),
  `${sessionId}.jsonl`,
);

let parentUuid: string | null = null;

function append(record: Record<string, unknown>): void {
  fs.appendFileSync(transcript, JSON.stringify(record) + '\n');
}

/** A user or assistant record with the fields Claude Code writes around the message. */
function message(type: 'user' | 'assistant', body: Record<string, unknown>, extra: Record<string, unknown> = {}): void {
  const uuid = randomUUID();
  append({
    parentUuid,
    isSidechain: false,
    userType: 'external',
    cwd,
    sessionId,
    version: '2.1.0',
    gitBranch: '',
    type,
    message: body,
    uuid,
    timestamp: new Date().toISOString(),
    ...extra,
  });
  parentUuid = uuid;
}

function assistantBlock(messageId: string, block: Record<string, unknown>): void {
  const body = { id: messageId, type: 'message', role: 'assistant', model: 'claude-stand-in', content: [block] };
  message('assistant', { ...body, stop_reason: null, usage: { input_tokens: 12, output_tokens: 34 } });
}

/** Records the turn; the screen shows it with the tool's output collapsed, as Claude Code does. */
function answer(prompt: string): string[] {
  message('user', { role: 'user', content: prompt });
  const first = `msg_${randomUUID()}`;
  const toolId = `toolu_${randomUUID().replace(/-/g, '')}`;
  const command = 'grep -n "timed out" ci.log';
  assistantBlock(first, { type: 'text', text: 'Let me look at the CI log.' });
  assistantBlock(first, { type: 'tool_use', id: toolId, name: 'Bash', input: { command } });
  const stdout = [
    `812: test ${word} (retry.test.ts) timed out after 30s`,
    '977: test upload (io.test.ts) timed out after 30s',
  ].join('\n');
  message(
    'user',
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolId, content: stdout, is_error: false }] },
    { toolUseResult: { stdout, stderr: '', interrupted: false, isImage: false } },
  );
  const done = 'The flaky one is in retry.test.ts: it times out under load.';
  assistantBlock(`msg_${randomUUID()}`, { type: 'text', text: done });
  return ['● Let me look at the CI log.', `● Bash(${command})`, '  ⎿  2 lines (ctrl+o to expand)', `● ${done}`];
}

fs.mkdirSync(path.dirname(transcript), { recursive: true });
append({ type: 'file-history-snapshot', messageId: randomUUID(), snapshot: { trackedFileBackups: {} } });
runFullScreen('✻ Claude Code stand-in', answer);
