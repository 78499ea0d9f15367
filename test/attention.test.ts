// Whether a session needs you (src/daemon/sessions/attention.ts), the hook options each agent gets
// (src/agents/agents.ts) and what `holdfast notify` reads from a hook's payload.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { readPayload } from '../src/cli/commands/notify';
import { Attention, OUTPUT_AFTER_BELL_MS } from '../src/daemon/sessions/attention';
import { onlyTerminalReports } from '../src/daemon/sessions/terminalReports';
import { agentHookArgs, BUILTIN_AGENTS, resumeArgv, withAgentHooks } from '../src/agents/agents';
import { shellQuote } from '../src/text/shellQuote';
import type { SessionAttention } from '../src/protocol/messages';

function tracker(): { attention: Attention; changes: SessionAttention[] } {
  const changes: SessionAttention[] = [];
  return { attention: new Attention(0, (a) => changes.push(a)), changes };
}

test('output: running while it flows, idle after a quiet spell', () => {
  const { attention, changes } = tracker();
  assert.equal(attention.value.state, 'idle');
  attention.burst(10);
  attention.quiet(2100, 100);
  assert.deepEqual(
    changes.map((c) => [c.state, c.since, c.source]),
    [
      ['running', 10, 'output'],
      ['idle', 2100, 'output'],
    ],
  );
});

test('a bell waits until a new burst of output answers it, or its own burst goes on past it', () => {
  const { attention } = tracker();
  attention.burst(0);
  attention.bell(100);
  assert.deepEqual(attention.value, { state: 'waiting', since: 100, source: 'bell' });
  attention.quiet(2200, 200); // the prompt's own redraw ended soon after the bell: still waiting
  assert.equal(attention.value.state, 'waiting');
  attention.burst(5000); // the answer's output
  assert.equal(attention.value.state, 'running');

  attention.bell(6000);
  attention.quiet(6000 + OUTPUT_AFTER_BELL_MS + 2500, 6000 + OUTPUT_AFTER_BELL_MS + 500);
  assert.equal(attention.value.state, 'idle', 'output went on well past the bell: it moved on');
});

test('typing into a session that waits means it is being answered', () => {
  const { attention } = tracker();
  attention.bell(10);
  attention.input(20);
  assert.deepEqual(attention.value, { state: 'running', since: 20, source: 'input' });
  attention.input(30); // running stays running
  assert.equal(attention.value.since, 20);
});

test('shell prompt marks: C runs a command, D ends it, and quiet during a command is still running', () => {
  const { attention } = tracker();
  attention.prompt('A', 0);
  assert.equal(attention.value.state, 'idle');
  attention.prompt('C', 10);
  attention.quiet(5000, 100);
  assert.deepEqual(attention.value, { state: 'running', since: 10, source: 'prompt' });
  attention.prompt('D', 6000);
  assert.equal(attention.value.state, 'done');
  attention.burst(7000); // the next prompt's output does not make it run
  assert.equal(attention.value.state, 'done');
});

test("an agent's hook is believed over output and quiet until its next report", () => {
  const { attention } = tracker();
  attention.report('running', 10);
  attention.quiet(5000, 100);
  assert.equal(attention.value.state, 'running');
  attention.report('waiting', 6000);
  attention.burst(6500); // redraws while it waits
  assert.deepEqual(attention.value, { state: 'waiting', since: 6000, source: 'hook' });
  attention.report('done', 7000);
  assert.equal(attention.value.state, 'done');
});

test("a permission prompt on the screen: waiting over a hook's word, until it goes or is answered", () => {
  const { attention, changes } = tracker();
  const prompt = { question: 'Allow?', reason: 'touch x · Allow?', area: 'a1' };
  attention.report('done', 10); // Codex's hook: a turn ended
  attention.permissionPrompt(prompt, 20);
  const atPrompt = { state: 'waiting', since: 20, source: 'screen', reason: prompt.reason, reasonFrom: 'screen' };
  assert.deepEqual(attention.value, { ...atPrompt, permissionPrompt: true });
  attention.burst(30); // its own redraw: the watch decides, not output
  attention.quiet(2500, 30);
  attention.permissionPrompt(prompt, 2600); // told again after a change: the same wait
  assert.equal(attention.value.since, 20);
  assert.equal(changes.length, 2);
  attention.permissionPrompt(undefined, 3000);
  assert.deepEqual(attention.value, { state: 'running', since: 3000, source: 'screen' });
  attention.burst(3100); // the hook's word still holds output off
  attention.quiet(6000, 3100);
  assert.equal(attention.value.state, 'running');
  attention.report('done', 7000);
  assert.equal(attention.value.state, 'done');

  attention.permissionPrompt(prompt, 8000);
  attention.input(8100); // answered
  assert.deepEqual(attention.value, { state: 'running', since: 8100, source: 'input' });
  attention.permissionPrompt(undefined, 8600); // its end, after the answer: nothing more to say
  assert.equal(attention.value.source, 'input');
  attention.permissionPrompt(prompt, 9000); // typed into, and still at the prompt: waiting again
  assert.equal(attention.value.state, 'waiting');
});

test("Claude Code's hook says it waits: the screen's prompt is the same wait, whichever comes first", () => {
  const prompt = { question: 'Do you want to proceed?', reason: 'Do you want to proceed?', area: 'c1' };
  const hookFirst = tracker();
  hookFirst.attention.report('waiting', 10);
  hookFirst.attention.permissionPrompt(prompt, 600);
  assert.deepEqual(hookFirst.attention.value, {
    state: 'waiting',
    since: 10,
    source: 'hook',
    reason: prompt.reason,
    reasonFrom: 'screen',
    permissionPrompt: true,
  });
  hookFirst.attention.permissionPrompt(undefined, 900); // gone: the hook's wait stands, unmarked
  assert.deepEqual(hookFirst.attention.value, {
    state: 'waiting',
    since: 10,
    source: 'hook',
    reason: prompt.reason,
    reasonFrom: 'screen',
  });
  const screenFirst = tracker();
  screenFirst.attention.permissionPrompt(prompt, 10);
  screenFirst.attention.report('waiting', 600);
  assert.equal(screenFirst.attention.value.source, 'screen');
  assert.equal(screenFirst.changes.length, 1);
  screenFirst.attention.report('done', 900);
  assert.deepEqual(screenFirst.attention.value, { state: 'done', since: 900, source: 'hook' });
});

test("a successor's restored wait at a prompt (its mark not handed) is marked again, since kept", () => {
  const { attention } = tracker();
  attention.restore({ state: 'waiting', since: 50, source: 'screen', reason: 'Allow?', reasonFrom: 'screen' });
  attention.permissionPrompt({ question: 'Allow?', reason: 'Allow?', area: 'a1' }, 900);
  assert.equal(attention.value.since, 50);
  assert.equal(attention.value.permissionPrompt, true);
});

test("the agent's hook and its screen agree on a prompt: only then hookAgrees, for that prompt alone", () => {
  const asked = { question: 'Do you want to proceed?', reason: 'touch x · Do you want to proceed?', area: 'p1' };
  const other = { question: 'Do you want to proceed?', reason: 'rm -rf ~ · Do you want to proceed?', area: 'p2' };
  const { attention } = tracker();
  // A program drew the layout: the screen alone, no hook.
  attention.permissionPrompt(asked, 10);
  assert.equal(attention.value.permissionPrompt, true);
  assert.equal(attention.value.hookAgrees, undefined);
  assert.equal(attention.agreedPrompt, undefined);
  // Its PermissionRequest before it draws the prompt (keys typed since the last prompt made it forget that one).
  attention.input(20);
  attention.report('running', 30, true);
  attention.permissionPrompt(asked, 40);
  assert.deepEqual(attention.value, {
    state: 'waiting',
    since: 40,
    source: 'screen',
    reason: asked.reason,
    reasonFrom: 'screen',
    permissionPrompt: true,
    hookAgrees: true,
  });
  assert.equal(attention.agreedPrompt, 'p1');
  // The terminal's focus and mouse reports answer nothing: still at the prompt (the palette took the focus).
  attention.input(50, false);
  assert.equal(attention.agreedPrompt, 'p1');
  // Its permission_prompt notification later: the same wait.
  attention.report('waiting', 6000, true);
  assert.equal(attention.value.since, 40);
  assert.equal(attention.value.hookAgrees, true);
  // Something draws another prompt over it: the hook's word was not for that one.
  attention.permissionPrompt(other, 6100);
  assert.equal(attention.value.permissionPrompt, true);
  assert.equal(attention.value.hookAgrees, undefined);
  assert.equal(attention.agreedPrompt, undefined);
});

test("a hook's word ends with its prompt or a keystroke; one said before the next prompt outlives the last", () => {
  const first = { question: 'Q?', reason: 'a · Q?', area: 'f' };
  const second = { question: 'Q?', reason: 'b · Q?', area: 's' };
  const { attention } = tracker();
  attention.report('running', 10, true);
  attention.permissionPrompt(first, 20);
  attention.permissionPrompt(undefined, 30); // answered in the terminal: gone
  attention.permissionPrompt(first, 40); // the same layout again, asked by nobody
  assert.equal(attention.agreedPrompt, undefined);
  attention.report('running', 50, true);
  attention.permissionPrompt(first, 60);
  attention.input(70); // Approve's "1"
  assert.equal(attention.agreedPrompt, undefined);
  assert.deepEqual(attention.value, { state: 'running', since: 70, source: 'input' });
  attention.report('running', 80, true); // the next tool's request, before the first prompt's end is seen
  attention.permissionPrompt(undefined, 90);
  attention.permissionPrompt(second, 100);
  assert.equal(attention.agreedPrompt, 's');
  attention.report('done', 200); // any other report ends it
  attention.permissionPrompt(second, 300);
  assert.equal(attention.agreedPrompt, undefined);
  assert.equal(attention.hookAsksFor('s'), false);
  // `answer` reads the screen before the watch tells the prompt: the first one seen is the one asked for.
  attention.input(310);
  attention.report('running', 320, true);
  assert.equal(attention.hookAsksFor('t'), true);
  assert.equal(attention.hookAsksFor('s'), false, 'bound to that one');
  // A successor: a wait the hook agreed on is agreed again for the prompt its watch tells first.
  const successor = tracker();
  successor.attention.restore({ ...attention.value, hookAgrees: true, permissionPrompt: true });
  successor.attention.permissionPrompt(second, 400);
  assert.equal(successor.attention.agreedPrompt, 's');
});

test('no change, no event', () => {
  const { attention, changes } = tracker();
  attention.quiet(10, 0);
  attention.input(20);
  attention.report('done', 30);
  attention.report('done', 40);
  assert.equal(changes.length, 1);
});

const NOTIFY = ['/usr/bin/env', 'ELECTRON_RUN_AS_NODE=1', '/opt/VS Code/code', "/home/o'neil/cli.js", 'notify'];
const profile = (id: string) => BUILTIN_AGENTS.find((p) => p.id === id)!;

test('Claude Code gets its hooks as --settings JSON, each command quoted for sh', () => {
  const args = agentHookArgs(profile('claude'), NOTIFY);
  assert.equal(args[0], '--settings');
  const settings = JSON.parse(args[1]) as { hooks: Record<string, { hooks: { type: string; command: string }[] }[]> };
  assert.deepEqual(Object.keys(settings.hooks).sort(), [
    'Notification',
    'PermissionRequest',
    'Stop',
    'UserPromptSubmit',
  ]);
  const command = settings.hooks.Notification[0].hooks[0].command;
  // sh reads the command back into exactly the words it came from.
  const words = execFileSync('sh', ['-c', `printf '%s\\n' ${command}`], { encoding: 'utf8' });
  assert.deepEqual(words.trimEnd().split('\n'), [...NOTIFY, '--from', 'claude', '--state', 'waiting']);
  assert.equal(shellQuote("it's"), `'it'\\''s'`);
});

test('Codex gets its notify program as a TOML array in -c, and its hook reports the thread id', () => {
  const args = agentHookArgs(profile('codex'), NOTIFY);
  assert.equal(args[0], '-c');
  assert.ok(args[1].startsWith('notify=['));
  assert.deepEqual(JSON.parse(args[1].slice('notify='.length)), [...NOTIFY, '--from', 'codex']);
  assert.deepEqual(withAgentHooks(['codex', 'resume', 'abc'], profile('codex'), NOTIFY).slice(0, 2), ['codex', '-c']);
  assert.deepEqual(withAgentHooks(['gemini'], profile('gemini'), NOTIFY), ['gemini'], 'Gemini has no per-run hooks');
  assert.deepEqual(withAgentHooks(['claude'], profile('claude'), undefined), ['claude']);

  const payload = JSON.stringify({
    type: 'agent-turn-complete',
    'thread-id': '0199a213-81c0-7800-8aa1-bbab2a035a53',
    'turn-id': '1',
    cwd: '/w',
    'input-messages': ['hi'],
    'last-assistant-message': 'hello',
  });
  assert.deepEqual(readPayload('codex', payload), {
    state: 'done',
    conversationId: '0199a213-81c0-7800-8aa1-bbab2a035a53',
    permission: false,
  });
  assert.deepEqual(readPayload('claude', '{"session_id":"s-1","hook_event_name":"Stop"}'), {
    state: undefined,
    conversationId: 's-1',
    permission: false,
  });
  // Claude Code asks for a permission: its PermissionRequest, and its notification of the prompt (6 s on).
  const asks = (fields: object) => readPayload('claude', JSON.stringify({ session_id: 's-1', ...fields })).permission;
  assert.equal(asks({ hook_event_name: 'PermissionRequest', tool_name: 'Bash' }), true);
  assert.equal(asks({ hook_event_name: 'Notification', notification_type: 'permission_prompt' }), true);
  assert.equal(asks({ hook_event_name: 'Notification', notification_type: 'idle_prompt' }), false);
  assert.equal(readPayload('codex', JSON.stringify({ hook_event_name: 'PermissionRequest' })).permission, false);
  const none = { state: undefined, conversationId: undefined, permission: false };
  assert.deepEqual(readPayload('codex', 'not json'), none);
  assert.deepEqual(readPayload(undefined, payload), none);
});

test('resume: Codex continues the thread its hook reported, or its latest before any; Gemini its generated id', () => {
  const codex = { profile: 'codex' };
  assert.deepEqual(resumeArgv({ agent: codex }), ['codex', 'resume', '--last']);
  const thread = '0199a213-81c0';
  assert.deepEqual(resumeArgv({ agent: { ...codex, sessionId: thread } }), ['codex', 'resume', thread]);
  assert.equal(
    resumeArgv({ agent: { ...codex, sessionId: '-rf' } }),
    'its agent session id starts with "-"',
    'a reported id is checked like a recorded one',
  );
  assert.deepEqual(resumeArgv({ agent: { profile: 'gemini', sessionId: 'c0ffee00-1111-4222-8333-444455556666' } }), [
    'gemini',
    '--resume',
    'c0ffee00-1111-4222-8333-444455556666',
  ]);
});

test("a terminal's focus and mouse reports and its answers to queries are not typing; anything else is", () => {
  const reports = [
    '\x1b[I',
    '\x1b[O',
    '\x1b[O\x1b[I',
    '\x1b[<35;80;24M',
    '\x1b[<0;1;1M\x1b[<0;1;1m',
    '\x1b[M #!',
    '\x1b[32;10;5M',
    // The answers VS Code's terminal gave Claude Code's queries as the palette took the focus.
    '\x1b[6;17;8t',
    '\x1b[?1;2c',
    '\x1b[?997;2n',
    '\x1b[>0;276;0c\x1b[12;5R\x1b[?2004;1$y',
    '\x1b]11;rgb:1e1e/1e1e/1e1e\x1b\\',
    '\x1bP>|xterm.js(5.5.0)\x1b\\',
  ];
  for (const data of reports) {
    assert.ok(onlyTerminalReports(data), JSON.stringify(data));
    assert.ok(onlyTerminalReports(Buffer.from(data, 'latin1')), JSON.stringify(data));
  }
  // Typing, and the keys that look most like reports: arrows, F-keys, Home, ctrl+arrows, a kitty-encoded key.
  const typed = ['', '1', '\r', '\x1b', '\x1b[A', '\x1b[I1', '1\x1b[O', '\x1b[<0;1;1M1', '\x1b[M #', '\x1b[200~'];
  typed.push('\x1bOP', '\x1b[15~', '\x1b[H', '\x1b[1;5C', '\x1b[97;5u', '\x1b]11;rgb:0/0/0');
  for (const data of typed) assert.ok(!onlyTerminalReports(data), JSON.stringify(data));
  assert.ok(!onlyTerminalReports('\x1b[I'.repeat(2000)), 'a long input is typing, whatever it holds');
});
