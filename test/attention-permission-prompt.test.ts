// Agents whose hooks do not say they wait at a permission prompt (Codex CLI, Gemini CLI): the daemon
// marks the session waiting once its screen shows the agent's prompt and its output has been quiet a
// moment (src/daemon/emulator/promptWatch.ts, attention.ts). A stand-in draws prompts captured from the real
// CLIs (test/fixtures) in sessions whose metadata names the agent, or none. Any program can draw them, so
// `answer` sends keys only where the agent's own hook said it asks, or to the block a client showed first.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { findPermissionPrompt, promptArea, promptAreaDigest } from '../src/agents/permissionPrompt';
import { HoldfastClient, type RequestError } from '../src/client/client';
import type { AttentionState, SessionAttention, SessionInfo } from '../src/protocol/messages';
import { isOneErrorLine, runCli } from './helpers/cli';
import { record } from './helpers/reliability';
import { startTestDaemon, type TestDaemon, waitFor } from './helpers/daemon';

const FIXTURES = path.resolve(__dirname, '..', '..', 'test', 'fixtures');
const SCREENS = {
  codexPrompt: path.join(FIXTURES, 'codex-0.169.0', 'exec-prompt.json'),
  codexAfter: path.join(FIXTURES, 'codex-0.169.0', 'exec-after-approve.json'),
  claudePrompt: path.join(FIXTURES, 'claude-2.1.328', 'bash-prompt.json'),
  claudeAfter: path.join(FIXTURES, 'claude-2.1.328', 'bash-after-approve.json'),
  geminiPrompt: path.join(FIXTURES, 'gemini-0.61.0', 'shell-prompt.json'),
  geminiAfter: path.join(FIXTURES, 'gemini-0.61.0', 'shell-after-approve.json'),
};
const CODEX_QUESTION = 'Would you like to run the following command?';
const GEMINI_QUESTION = 'Allow execution of [Shell]?';

/**
 * Draws the screen (rows as JSON) in its first argument, then by its third: keys: each key typed is
 * appended to the file in its fourth and the screen in its second drawn; barrier: the second screen is
 * drawn once that file exists; busy: the first screen is drawn again every 50 ms for 2 s, then the second.
 */
const STAND_IN = String.raw`#!/usr/bin/env node
const fs = require('node:fs');
const args = process.argv.slice(2);
// The hook options the daemon puts first (Codex's -c notify=[...], Claude Code's --settings) are not used here.
const [screen, next, mode, file] = args[0] === '-c' || args[0] === '--settings' ? args.slice(2) : args;
const draw = (name) => process.stdout.write('\x1b[H\x1b[2J' + JSON.parse(fs.readFileSync(name, 'utf8')).join('\r\n'));
draw(screen);
if (mode === 'keys') {
  process.stdin.setRawMode(true);
  process.stdin.on('data', (key) => {
    fs.appendFileSync(file, key);
    draw(next);
  });
} else if (mode === 'barrier') {
  const timer = setInterval(() => fs.existsSync(file) && (clearInterval(timer), draw(next)), 20);
} else if (mode === 'busy') {
  let drawn = 0;
  const timer = setInterval(() => (++drawn < 40 ? draw(screen) : (clearInterval(timer), draw(next))), 50);
}
setInterval(() => {}, 1 << 30);
`;

let daemon: TestDaemon;
let client: HoldfastClient;
let script: string;
/** Every 'attention' event, by session. */
const told = new Map<string, SessionAttention[]>();

before(async () => {
  daemon = await startTestDaemon();
  script = path.join(daemon.dir, 'stand-in.js');
  fs.writeFileSync(script, STAND_IN, { mode: 0o755 });
  client = await daemon.connect();
  client.onEvent((event) => {
    if (event.type === 'attention') told.set(event.id, [...(told.get(event.id) ?? []), event.attention]);
  });
  await client.request('subscribe', {});
});
after(async () => {
  await daemon?.stop();
  if (daemon) fs.rmSync(daemon.dir, { recursive: true, force: true });
});

interface StandIn {
  name: string;
  screen: string;
  next: string;
  mode: 'keys' | 'barrier' | 'busy';
  /** The agent its metadata names, if any. */
  profile?: string;
}

/** The session, and the file its stand-in writes keys to or waits for. */
async function start(on: HoldfastClient, dir: string, run: StandIn): Promise<{ session: SessionInfo; file: string }> {
  const file = path.join(dir, `${run.name}.file`);
  const { session } = await on.request('create', {
    name: run.name,
    argv: [script, run.screen, run.next, run.mode, file],
    cols: 100,
    rows: 30,
    metadata: run.profile ? { agent: { profile: run.profile } } : {},
  });
  return { session, file };
}

/** The session's attention once its state is one of `states`. */
async function attentionWhen(on: HoldfastClient, id: string, states: AttentionState[]): Promise<SessionAttention> {
  const { met } = await on.request('wait', {
    session: id,
    condition: { kind: 'attention', states },
    timeoutMs: 20_000,
  });
  assert.ok(met, `session ${id} never got to ${states.join(' or ')}`);
  return (await on.request('show', { session: id })).session.attention;
}

async function textShows(on: HoldfastClient, id: string, pattern: string): Promise<void> {
  const { met } = await on.request('wait', { session: id, condition: { kind: 'text', pattern }, timeoutMs: 20_000 });
  assert.ok(met, `session ${id} never showed ${pattern}`);
}

/** What a client shows before answering: the digest of the prompt's block on the screen now. */
async function shownDigest(on: HoldfastClient, id: string, profile: string): Promise<string> {
  const { lines } = await on.request('read', { session: id });
  const prompt = findPermissionPrompt(profile, lines);
  assert.ok(prompt, `a ${profile} prompt on the screen`);
  return promptAreaDigest(promptArea(lines, prompt));
}

/** `answer` refused as `unconfirmed`, its message matching `why`. */
async function refusedUnconfirmed(answer: Promise<unknown>, why: RegExp): Promise<void> {
  await assert.rejects(answer, (err: Error) => {
    assert.equal((err as RequestError).code, 'unconfirmed');
    assert.match(err.message, why);
    assert.match(err.message, /nothing was sent$/);
    return true;
  });
}

function assertAtPrompt(attention: SessionAttention, question: string): void {
  assert.equal(attention.state, 'waiting', JSON.stringify(attention));
  assert.equal(attention.source, 'screen');
  assert.equal(attention.permissionPrompt, true);
  assert.ok(attention.reason?.endsWith(question), `the reason ends with the question: ${attention.reason}`);
}

test('Codex at its prompt: waiting with the mark and its question; approve sends "1" and it runs on', async () => {
  const { session, file } = await start(client, daemon.dir, {
    name: 'codex',
    screen: SCREENS.codexPrompt,
    next: SCREENS.codexAfter,
    mode: 'keys',
    profile: 'codex',
  });
  assertAtPrompt(await attentionWhen(client, session.id, ['waiting']), CODEX_QUESTION);
  // Codex's hook does not say it asks: nothing goes before the prompt was shown, nor to another block.
  await refusedUnconfirmed(client.request('answer', { session: session.id, choice: 'approve' }), /hook has not/);
  const elsewhere = { session: session.id, choice: 'approve' as const, shown: '0123456789abcdef' };
  await refusedUnconfirmed(client.request('answer', elsewhere), /not the prompt that was shown/);
  record({
    item: 'hostile',
    name: "answer at Codex's prompt (its hook cannot say it asks) without a digest, or with another block's",
    value: 'unconfirmed, nothing typed; answered once named by the digest of the block holdfast approve printed',
  });
  // `holdfast approve` prints the block and the command that answers it.
  const asked = await runCli(daemon.env, ['approve', session.id]);
  assert.equal(asked.code, 1, asked.stderr);
  assert.ok(isOneErrorLine(asked.stderr), asked.stderr);
  assert.match(asked.stdout, new RegExp(`^ {4}${CODEX_QUESTION.replace('?', '\\?')}$`, 'm'));
  const digest = /--shown ([0-9a-f]{16})$/m.exec(asked.stderr)?.[1];
  assert.equal(digest, await shownDigest(client, session.id, 'codex'));
  assert.equal(fs.existsSync(file), false, 'nothing was typed');
  const approved = await runCli(daemon.env, ['approve', session.id, '--shown', digest, '--json']);
  assert.equal(approved.code, 0, approved.stderr);
  assert.deepEqual(JSON.parse(approved.stdout), { question: CODEX_QUESTION, sent: '1' });
  const answered = await attentionWhen(client, session.id, ['running', 'idle']);
  assert.equal(answered.permissionPrompt, undefined);
  const events = told.get(session.id) ?? [];
  assert.ok(
    events.some((a) => a.state === 'running' && a.source === 'input'),
    `the answer ended the wait: ${JSON.stringify(events)}`,
  );
  await waitFor(() => fs.existsSync(file) && fs.readFileSync(file, 'utf8') === '1', 20_000, 'the stand-in to get 1');
  await textShows(client, session.id, 'You approved codex');
  const settled = await attentionWhen(client, session.id, ['idle', 'waiting']);
  assert.equal(settled.state, 'idle', 'the prompt is gone: nothing to wait on');
  assert.equal(settled.permissionPrompt, undefined);
});

test('Gemini at its prompt: waiting with the mark; once output draws it away, running again', async () => {
  const { session, file } = await start(client, daemon.dir, {
    name: 'gemini',
    screen: SCREENS.geminiPrompt,
    next: SCREENS.geminiAfter,
    mode: 'barrier',
    profile: 'gemini',
  });
  assertAtPrompt(await attentionWhen(client, session.id, ['waiting']), GEMINI_QUESTION);
  fs.writeFileSync(file, '');
  await textShows(client, session.id, 'Shell touch');
  const moved = await attentionWhen(client, session.id, ['running', 'idle']);
  assert.equal(moved.permissionPrompt, undefined);
  const events = told.get(session.id) ?? [];
  assert.ok(
    events.some((a) => a.state === 'running' && a.source === 'screen'),
    `the prompt's end was told: ${JSON.stringify(events)}`,
  );
});

test('the same prompt in a session that names no agent, or one whose prompt is unknown: never marked', async () => {
  const bare = { screen: SCREENS.codexPrompt, next: SCREENS.codexAfter, mode: 'keys' as const };
  const sessions = [
    (await start(client, daemon.dir, { ...bare, name: 'no-agent' })).session,
    (await start(client, daemon.dir, { ...bare, name: 'other-agent', profile: 'aider' })).session,
  ];
  for (const session of sessions) {
    await textShows(client, session.id, 'Press enter to confirm');
    // Idle comes 2 s after the output stopped, well after a prompt would have been marked (0.5 s).
    const settled = await attentionWhen(client, session.id, ['idle', 'waiting']);
    assert.equal(settled.state, 'idle', `${session.name}: ${JSON.stringify(settled)}`);
    assert.equal(settled.permissionPrompt, undefined);
  }
});

test('a session that keeps drawing its prompt is busy, not waiting', async () => {
  const { session } = await start(client, daemon.dir, {
    name: 'busy',
    screen: SCREENS.codexPrompt,
    next: SCREENS.codexAfter,
    mode: 'busy',
    profile: 'codex',
  });
  await textShows(client, session.id, 'You approved codex');
  const settled = await attentionWhen(client, session.id, ['idle', 'waiting']);
  assert.equal(settled.state, 'idle', JSON.stringify(settled));
  const events = told.get(session.id) ?? [];
  assert.ok(events.length > 0, 'its attention was told');
  assert.ok(!events.some((a) => a.state === 'waiting' || a.permissionPrompt), JSON.stringify(events));
});

test('a handoff: the successor takes a session waiting at its prompt, marks it again, and answers it', async () => {
  const own = await startTestDaemon();
  try {
    const first = await own.connect();
    const { session, file } = await start(first, own.dir, {
      name: 'handed',
      screen: SCREENS.codexPrompt,
      next: SCREENS.codexAfter,
      mode: 'keys',
      profile: 'codex',
    });
    assertAtPrompt(await attentionWhen(first, session.id, ['waiting']), CODEX_QUESTION);
    const letGo = new Promise<void>((resolve) => first.onClose(() => resolve()));
    await first.request('handoff', {});
    await letGo;
    const next = await HoldfastClient.connect({ socket: own.socket, client: 'test', version: 'test' });
    try {
      const marked = async () =>
        (await next.request('show', { session: session.id })).session.attention.permissionPrompt === true;
      await waitFor(marked, 20_000, 'the successor to mark the prompt');
      assertAtPrompt((await next.request('show', { session: session.id })).session.attention, CODEX_QUESTION);
      const shown = await shownDigest(next, session.id, 'codex');
      const answer = await next.request('answer', { session: session.id, choice: 'approve', shown });
      assert.equal(answer.sent, '1');
      await waitFor(() => fs.existsSync(file) && fs.readFileSync(file, 'utf8') === '1', 20_000, 'the key');
    } finally {
      next.close();
    }
  } finally {
    await own.stop();
    fs.rmSync(own.dir, { recursive: true, force: true });
  }
});

/** The notify credential of a session: what its agent's hooks report with (any process in it has it). */
function notifyCredential(session: SessionInfo): string {
  const environ = fs.readFileSync(`/proc/${session.pid}/environ`, 'utf8').split('\0');
  const credential = environ.find((v) => v.startsWith('HOLDFAST_NOTIFY_TOKEN='))?.split('=')[1];
  assert.ok(credential, 'the session has its notify credential');
  return credential;
}

test("a script draws Claude Code's prompt in a claude session: Approve types nothing till its hook says", async () => {
  const { session, file } = await start(client, daemon.dir, {
    name: 'claude-layout',
    screen: SCREENS.claudePrompt,
    next: SCREENS.claudeAfter,
    mode: 'keys',
    profile: 'claude',
  });
  const question = 'Do you want to proceed?';
  const attention = await attentionWhen(client, session.id, ['waiting']);
  assertAtPrompt(attention, question);
  assert.equal(attention.hookAgrees, undefined, 'the screen alone');
  await refusedUnconfirmed(client.request('answer', { session: session.id, choice: 'approve' }), /hook has not/);
  const cli = await runCli(daemon.env, ['approve', session.id]);
  assert.equal(cli.code, 1, cli.stderr);
  assert.match(cli.stdout, /^ {3}Bash command$/m);
  assert.match(cli.stdout, /^ {3}Esc to cancel · Tab to amend$/m);
  assert.equal(fs.existsSync(file), false, 'nothing reached the script');
  record({
    item: 'hostile',
    name: "a script printing Claude Code's prompt layout in a claude session: answer, holdfast approve",
    value:
      "unconfirmed, nothing typed: its agent's hook did not say it asks; the prompt's block printed with the " +
      'command that answers it (--shown DIGEST; VS Code shows it in a dialog first) (was: "1" typed into the script)',
  });
  // Its agent's hook says it asks (PermissionRequest, with the session's credential): now they agree.
  await client.request('notify', {
    session: session.id,
    state: 'running',
    permission: true,
    credential: notifyCredential(session),
  });
  await waitFor(
    async () => (await client.request('show', { session: session.id })).session.attention.hookAgrees === true,
    20_000,
    "the hook's word to meet the prompt",
  );
  const answer = await client.request('answer', { session: session.id, choice: 'approve' });
  assert.deepEqual(answer, { question, sent: '1' });
  await waitFor(() => fs.existsSync(file) && fs.readFileSync(file, 'utf8') === '1', 20_000, 'the approved key');
});
