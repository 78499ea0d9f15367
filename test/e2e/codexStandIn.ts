// A full-screen Codex CLI stand-in for the e2e (run as `node codexStandIn.js -c notify=[...]`, the option
// Holdfast puts after the program's name). Like Codex 0.169 it picks its own thread id, writes the thread
// to ~/.codex/sessions/YYYY/MM/DD/rollout-<local start time>-<thread id>.jsonl ({timestamp, type, payload}
// records) and, when a turn ends, runs its notify program with the turn's JSON as the last argument, which
// is how Holdfast learns the id. Its tool call holds the word in $HOLDFAST_STAND_IN_WORD, never drawn.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runFullScreen } from './fullScreenStandIn';

const args = process.argv.slice(2);
const notifySetting = args.find((arg, i) => args[i - 1] === '-c' && arg.startsWith('notify='));
const notify = notifySetting ? (JSON.parse(notifySetting.slice('notify='.length)) as string[]) : [];
const word = process.env.HOLDFAST_STAND_IN_WORD ?? '';
const threadId = randomUUID();
const cwd = process.cwd();

const started = new Date();
const two = (n: number) => String(n).padStart(2, '0');
const [year, month, day] = [String(started.getFullYear()), two(started.getMonth() + 1), two(started.getDate())];
const time = [started.getHours(), started.getMinutes(), started.getSeconds()].map(two).join('-');
const rollout = path.join(
  os.homedir(),
  '.codex',
  'sessions',
  year,
  month,
  day,
  `rollout-${year}-${month}-${day}T${time}-${threadId}.jsonl`,
);

function record(type: string, payload: Record<string, unknown>): void {
  fs.appendFileSync(rollout, JSON.stringify({ timestamp: new Date().toISOString(), type, payload }) + '\n');
}

function call(name: string, command: string[]): void {
  const callId = `call_${randomUUID().replace(/-/g, '')}`;
  record('response_item', { type: 'function_call', name, arguments: JSON.stringify({ command }), call_id: callId });
  const output = JSON.stringify({ output: 'ci.log:812: timed out', metadata: { exit_code: 0 } });
  record('response_item', { type: 'function_call_output', call_id: callId, output });
}

/** Records the turn and reports it; the screen shows the commands collapsed, as Codex does. */
function answer(prompt: string): string[] {
  record('event_msg', { type: 'user_message', message: prompt, images: [], kind: 'plain' });
  record('turn_context', { cwd, approval_policy: 'on-request', model: 'codex-stand-in', summary: 'auto' });
  call('shell', ['bash', '-lc', `grep -n ${word} ci.log`]);
  const done = 'The upload test times out: ci.log line 812.';
  record('event_msg', { type: 'agent_message', message: done });
  record('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: done }] });
  const turn = { type: 'agent-turn-complete', 'thread-id': threadId, 'turn-id': randomUUID(), cwd };
  const payload = JSON.stringify({ ...turn, 'input-messages': [prompt], 'last-assistant-message': done });
  if (notify.length > 0) spawnSync(notify[0], [...notify.slice(1), payload], { stdio: 'ignore' });
  return ['• Ran 1 command (ctrl+t to view)', `• ${done}`];
}

fs.mkdirSync(path.dirname(rollout), { recursive: true });
record('session_meta', {
  id: threadId,
  timestamp: started.toISOString(),
  cwd,
  originator: 'codex_cli_rs',
  cli_version: '0.169.0',
  source: 'cli',
});
runFullScreen('>_ Codex stand-in', answer);
