// Agents whose hooks do not say they wait at a permission prompt (Codex CLI, Gemini CLI): the daemon
// marks the session waiting once its screen shows the agent's prompt and its output has been quiet a
// moment (src/daemon/promptWatch.ts, attention.ts). A stand-in draws prompts captured from the real
// CLIs (test/fixtures) in sessions whose metadata names the agent, or none.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { HoldfastClient } from '../src/protocol/client';
import type { AttentionState, SessionAttention, SessionInfo } from '../src/protocol/messages';
import { startTestDaemon, TestDaemon, waitFor } from './helpers/daemon';

const FIXTURES = path.resolve(__dirname, '..', '..', 'test', 'fixtures');
const SCREENS = {
  codexPrompt: path.join(FIXTURES, 'codex-0.169.0', 'exec-prompt.json'),
  codexAfter: path.join(FIXTURES, 'codex-0.169.0', 'exec-after-approve.json'),
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
// Codex's notify hook (-c notify=[...]), put first by the daemon, is not used here.
const [screen, next, mode, file] = args[0] === '-c' ? args.slice(2) : args;
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
  const answer = await client.request('answer', { session: session.id, choice: 'approve' });
  assert.deepEqual(answer, { question: CODEX_QUESTION, sent: '1' });
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
      const answer = await next.request('answer', { session: session.id, choice: 'approve' });
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
