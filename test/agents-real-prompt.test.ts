// Approve / Deny against the real Claude Code (scripts/setup-agents.sh installs 2.1.328): it runs in a
// daemon session, as New Agent starts it (its hooks included), against a local stand-in of the Messages
// API (helpers/fakeAnthropicApi.ts) whose answer is a Bash call, so it stops at its permission prompt.
// `holdfast approve` runs the tool, `holdfast deny` refuses it, and `answer` where no prompt is sends nothing.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { SessionInfo } from '../src/protocol/messages';
import { isOneErrorLine, runCli } from './helpers/cli';
import { tempDir, waitFor } from './helpers/daemon';
import { claudeEnv, realAgentFile, writeClaudeHome } from './helpers/realAgent';
import { type FakeAnthropicApi, startFakeAnthropicApi } from './helpers/fakeAnthropicApi';
import { record } from './helpers/reliability';

const CLAUDE = path.resolve(__dirname, '..', '..', '.vscode-test', 'agents', 'node_modules', '.bin', 'claude');
const PROMPT = 'Do you want to proceed\\?';

const rig = realAgentFile(CLAUDE);

/**
 * A HOME where Claude Code has done its first run (onboarding, the key approved, the folder trusted) and
 * asks before tools (its default mode is auto, which would not ask), and a folder to work in.
 */
function claudeHome(): { home: string; work: string } {
  const home = tempDir('hf-claude-');
  const work = path.join(home, 'work');
  fs.mkdirSync(work);
  writeClaudeHome(home, work);
  rig.cleanups.push(() => fs.rmSync(home, { recursive: true, force: true }));
  return { home, work };
}

interface ClaudeRun {
  session: SessionInfo;
  api: FakeAnthropicApi;
  /** The file the tool call creates. */
  target: string;
}

/** Claude Code in a session, asked to create a file, once its permission prompt is on the screen. */
async function claudeAtPrompt(name: string): Promise<ClaudeRun> {
  const { home, work } = claudeHome();
  const target = path.join(work, 'made-by-the-tool');
  const api = await startFakeAnthropicApi({
    name: 'Bash',
    input: { command: `touch ${target}`, description: 'Create the file' },
  });
  rig.cleanups.push(() => api.close());
  const conversation = randomUUID();
  const { session } = await rig.client.request('create', {
    name,
    argv: [CLAUDE, '--session-id', conversation, 'Create the file please'],
    cwd: work,
    cols: 100,
    rows: 30,
    env: claudeEnv(home, api.url),
    metadata: { agent: { profile: 'claude', sessionId: conversation } },
  });
  rig.cleanups.push(() => rig.client.request('kill', { session: session.id, remove: true }).then(() => undefined));
  const condition = { kind: 'text' as const, pattern: PROMPT };
  const shown = await rig.client.request('wait', { session: session.id, condition, timeoutMs: 90_000 });
  assert.ok(shown.met, `no permission prompt; the stand-in saw ${api.paths.join(', ')}`);
  // Its PermissionRequest hook reports a moment after the prompt is drawn: only then does answer send at once.
  await waitFor(
    async () => (await rig.client.request('show', { session: session.id })).session.attention?.hookAgrees === true,
    30_000,
    "Claude Code's hook to say it asks",
  );
  return { session, api, target };
}

/** The session's screen once `pattern` is on it. */
async function screenWith(id: string, pattern: string): Promise<string> {
  const condition = { kind: 'text' as const, pattern };
  const { met } = await rig.client.request('wait', { session: id, condition, timeoutMs: 60_000 });
  assert.ok(met, `no /${pattern}/ on the screen`);
  return (await rig.client.request('read', { session: id })).lines.join('\n');
}

test('approve: the prompt is recognised, marked in its attention, and "1" runs the tool', async () => {
  const { session, api, target } = await claudeAtPrompt('approve-me');
  // Its PermissionRequest hook says it asks; the daemon's look at the screen marks the prompt: they agree.
  const attention = async () => (await rig.client.request('show', { session: session.id })).session.attention;
  await waitFor(
    async () => (await attention()).hookAgrees === true,
    60_000,
    'the attention to mark the permission prompt its hook asked for',
  );
  // The terminal's focus reports (VS Code sends them as the palette takes the focus) and its answers to the
  // queries Claude Code asks then answer nothing.
  for (const data of ['\x1b[O', '\x1b[6;17;8t', '\x1b[?1;2c', '\x1b[?997;2n', '\x1b[I\x1b[O'])
    await rig.client.request('send', { session: session.id, data });
  const waiting = await attention();
  assert.equal(waiting.state, 'waiting');
  assert.equal(waiting.permissionPrompt, true);
  assert.equal(waiting.hookAgrees, true);
  record({
    item: 'hostile',
    name:
      'the real Claude Code at its prompt, the focus reports and query answers VS Code sends as the command ' +
      'palette opens; ' +
      "then the palette's Deny with the tab in front (e2e attention)",
    value:
      "still waiting at its prompt, hookAgrees: a terminal's reports and answers are not typing; the palette " +
      'answers the ' +
      'active tab\'s prompt (was: running, and "no session is at a permission prompt")',
  });
  // Whichever said it first: the hook, or the daemon's own look at the quiet screen (promptWatch.ts).
  assert.ok(['hook', 'screen'].includes(waiting.source), waiting.source);
  // The reason is the question and what it asks about, not the list of choices below it.
  assert.ok(waiting.reason?.endsWith(`touch ${target} · Do you want to proceed?`), waiting.reason);
  assert.equal(fs.existsSync(target), false, 'nothing ran before the answer');
  const approved = await runCli(rig.daemon.env, ['approve', session.id]);
  assert.equal(approved.code, 0, approved.stderr);
  assert.equal(approved.stdout, 'approved: Do you want to proceed?\n');
  await waitFor(() => fs.existsSync(target), 60_000, 'the approved tool to create its file');
  await waitFor(() => api.toolCalls.answered === 1, 60_000, "the tool's result to reach the API");
  assert.match(await screenWith(session.id, 'Ran 1 shell command'), /Ran 1 shell command/);
  // No prompt on its screen now: a second approve is refused.
  const again = await runCli(rig.daemon.env, ['approve', session.id]);
  assert.equal(again.code, 1);
  assert.ok(isOneErrorLine(again.stderr), again.stderr);
  assert.match(again.stderr, /shows no permission prompt of Claude Code 2\.1\.328: nothing was sent/);
  const shown = await rig.client.request('show', { session: session.id });
  assert.equal(shown.session.attention.permissionPrompt, undefined, 'the mark went with the prompt');
});

test('deny: "No" is chosen by its number and the tool does not run', async () => {
  const { session, api, target } = await claudeAtPrompt('deny-me');
  const denied = await runCli(rig.daemon.env, ['deny', session.id, '--json']);
  assert.equal(denied.code, 0, denied.stderr);
  assert.deepEqual(JSON.parse(denied.stdout), { question: 'Do you want to proceed?', sent: '4' });
  const screen = await screenWith(session.id, 'Did not run 1 call');
  assert.match(screen, /Interrupted · What should Claude do instead\?/);
  assert.equal(fs.existsSync(target), false, 'the denied tool did not run');
  assert.equal(api.toolCalls.answered, 0);
});

test('answer where no prompt is: no-prompt, and nothing is typed', async () => {
  const { session } = await rig.client.request('create', { name: 'no-agent', argv: ['cat'], cols: 80, rows: 10 });
  rig.cleanups.push(() => rig.client.request('kill', { session: session.id, remove: true }).then(() => undefined));
  await assert.rejects(rig.client.request('answer', { session: session.id, choice: 'approve' }), (err: Error) => {
    assert.equal((err as Error & { code?: string }).code, 'no-prompt');
    const known = 'Claude Code 2.1.328, Codex CLI 0.169.0, Gemini CLI 0.61.0';
    assert.ok(err.message.includes(`runs no agent whose permission prompt Holdfast knows (${known})`), err.message);
    return true;
  });
  const denied = await runCli(rig.daemon.env, ['deny', session.id]);
  assert.equal(denied.code, 1);
  assert.ok(isOneErrorLine(denied.stderr), denied.stderr);
  // `cat` echoes what it is sent: the first thing on its screen is the marker sent after the refusals.
  await rig.client.request('send', { session: session.id, data: 'marker\r' });
  const screen = await screenWith(session.id, '^marker$');
  assert.equal(screen.split('\n')[0], 'marker');
  const bad = await runCli(rig.daemon.env, ['approve']);
  assert.equal(bad.code, 2);
  assert.ok(isOneErrorLine(bad.stderr), bad.stderr);
});
