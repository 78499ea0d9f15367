// Why a session waits (src/daemon/common/attentionReason.ts, attentionExplainer.ts): the last text on its
// screen or its agent's last message from its transcript, carried in its attention; shown by
// `holdfast list`/`show`; `holdfast reply` answers it.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { summarize, summaryLine } from '../src/mcp/mcpTool';
import { MAX_REASON_CHARS, screenReason, transcriptReason } from '../src/daemon/common/attentionReason';
import { SessionActivity } from '../src/daemon/sessions/sessionActivity';
import type { HoldfastClient } from '../src/client/client';
import type { DaemonEvent, SessionAttention } from '../src/protocol/messages';
import { claudeLines } from '../src/agents/transcriptFormats';
import { claudeProjectSlug } from '../src/agents/transcripts';
import { isOneErrorLine, runCli } from './helpers/cli';
import { attentionWhere } from './helpers/attention';
import { startTestDaemon, tempDir, type TestDaemon, waitForText } from './helpers/daemon';
import { sessionInfo } from './helpers/sessionInfo';

test('the screen: its last lines of text, frames and blank rows left out, printable, at most 200 characters', () => {
  const rows = ['old output', 'Build finished.', '', '╭──────────╮', '│ Deploy? [y/N] │', '╰──────────╯', '   ', ''];
  assert.equal(screenReason(rows), 'old output · Build finished. · Deploy? [y/N]');
  assert.equal(screenReason(['', '───', '  ']), undefined);
  assert.equal(screenReason(['bell\x07 and \x1b[31mred']), 'bell\\u{7} and \\u{1b}[31mred');
  const long = screenReason(Array.from({ length: 30 }, (_, i) => `line ${i} ${'x'.repeat(20)}`))!;
  assert.equal(long.length, MAX_REASON_CHARS);
  assert.ok(long.startsWith('…') && long.endsWith(`line 29 ${'x'.repeat(20)}`), long);
});

const claudeRecord = (type: 'user' | 'assistant', content: unknown) =>
  JSON.stringify({ type, message: { role: type, content } });

test("a transcript: the end of the agent's last message, unless a tool call or the user spoke last", () => {
  const asked = [
    claudeRecord('user', 'tidy the tests'),
    claudeRecord('assistant', [{ type: 'text', text: 'I found two ways.\n\nShall I merge them into one file?' }]),
  ].join('\n');
  assert.equal(transcriptReason(claudeLines(asked)), 'I found two ways. · Shall I merge them into one file?');
  const tool = asked + '\n' + claudeRecord('assistant', [{ type: 'tool_use', name: 'Bash', input: { command: 'rm' } }]);
  assert.equal(transcriptReason(claudeLines(tool)), undefined);
  assert.equal(transcriptReason(claudeLines(asked + '\n' + claudeRecord('user', 'yes'))), undefined);
  assert.equal(transcriptReason([]), undefined);
});

test("a reason is told with the attention it explains, and a transcript's is not replaced by the screen's", () => {
  const events: SessionAttention[] = [];
  const host = {
    id: 's1',
    fire: (event: DaemonEvent) => void (event.type === 'attention' && events.push(event.attention)),
    attentionChanged: () => undefined,
    quiet: () => undefined,
  };
  const activity = new SessionActivity(host, Date.now() - 10_000);
  try {
    activity.rang();
    const waiting = activity.attentionNow;
    assert.equal(waiting.state, 'waiting');
    activity.explain(waiting.since - 1, 'for an older wait', 'screen');
    assert.equal(activity.attentionNow.reason, undefined, 'another attention is not explained');
    activity.explain(waiting.since, 'Continue?', 'screen');
    activity.explain(waiting.since, 'Shall I go on?', 'transcript');
    activity.explain(waiting.since, 'Continue? [y]', 'screen');
    assert.deepEqual(
      events.map((e) => [e.state, e.reason, e.reasonFrom]),
      [
        ['waiting', undefined, undefined],
        ['waiting', 'Continue?', 'screen'],
        ['waiting', 'Shall I go on?', 'transcript'],
      ],
    );
  } finally {
    activity.dispose();
  }
});

test('MCP list_sessions carries the reason of a session that waits', () => {
  const attention = { state: 'waiting', since: 1, source: 'bell', reason: 'Proceed? \\u{1b}', reasonFrom: 'screen' };
  const summary = summarize(sessionInfo('s1', { attention } as never));
  assert.equal(summary.reason, 'Proceed? \\u{1b}');
  assert.match(summaryLine(summary), /waiting .* reason="Proceed\? \\u\{1b\}"$/);
});

describe('a daemon tells why a session waits', () => {
  let home: string;
  let cwd: string;
  let daemon: TestDaemon;
  let client: HoldfastClient;
  const conversation = '3f1c2b7a-9d4e-4a61-8b2f-6c5d4e3f2a10';
  before(async () => {
    home = fs.realpathSync(tempDir('hf-home-'));
    cwd = path.join(home, 'project');
    fs.mkdirSync(cwd);
    daemon = await startTestDaemon([], '--persistent', { HOME: home }); // it reads this home's agent folders
    client = await daemon.connect();
    await client.request('subscribe', {});
  });
  after(async () => {
    await daemon.stop();
    fs.rmSync(daemon.dir, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  test('a bell: the last text on the screen, in list and show; reply types the answer and Enter', async () => {
    const script =
      "printf 'Build finished.\\n\\342\\225\\255\\342\\224\\200\\342\\225\\256\\nDeploy to prod? [y/N] \\a'; " +
      'read answer; echo "answer:$answer"; exec sleep 1000';
    const { session } = await client.request('create', { name: 'deploy', argv: ['sh', '-c', script], cwd });
    const waiting = await attentionWhere(client, session.id, (a) => a.state === 'waiting' && !!a.reason);
    assert.equal(waiting.reason, 'Build finished. · Deploy to prod? [y/N]');
    assert.equal(waiting.reasonFrom, 'screen');

    const list = await runCli(daemon.env, ['list']);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^ID .* REASON$/m);
    assert.match(list.stdout, /deploy .*waiting .*Build finished\. · Deploy to prod\? \[y\/N\]$/m);
    const show = await runCli(daemon.env, ['show', session.id]);
    assert.match(show.stdout, /^reason: +Build finished\. · Deploy to prod\? \[y\/N\] \(from the screen\)$/m);

    const reply = await runCli(daemon.env, ['reply', 'deploy', 'yes,', 'ship it']);
    assert.equal(reply.code, 0, reply.stderr);
    const { met } = await waitForText(client, session.id, '^answer:yes, ship it$', 20_000);
    assert.ok(met, 'the program read the reply as one line');
    await attentionWhere(client, session.id, (a) => a.state !== 'waiting');
  });

  test('reply: one line of error for a bad id, an exited session or a control character', async () => {
    const missing = await runCli(daemon.env, ['reply', 'no-such-session', 'hello']);
    assert.notEqual(missing.code, 0);
    assert.ok(isOneErrorLine(missing.stderr), missing.stderr);
    assert.match(missing.stderr, /no session "no-such-session"/);

    const { session } = await client.request('create', { argv: ['true'], cwd });
    await client.request('wait', { session: session.id, condition: { kind: 'exit' }, timeoutMs: 20_000 });
    const exited = await runCli(daemon.env, ['reply', session.id, 'hello']);
    assert.notEqual(exited.code, 0);
    assert.ok(isOneErrorLine(exited.stderr), exited.stderr);
    assert.match(exited.stderr, /has exited/);

    const control = await runCli(daemon.env, ['reply', session.id, 'two\nlines']);
    assert.notEqual(control.code, 0);
    assert.ok(isOneErrorLine(control.stderr), control.stderr);
    assert.match(control.stderr, /holdfast send/);
  });

  test("an agent: the end of its last message, read from its transcript off the daemon's main thread", async () => {
    const dir = path.join(home, '.claude', 'projects', claudeProjectSlug(cwd));
    fs.mkdirSync(dir, { recursive: true });
    const question = 'Both fixes pass the tests.\n\nShould I also update the changelog?';
    const lines = [
      claudeRecord('user', 'fix the flaky test'),
      claudeRecord('assistant', [{ type: 'text', text: question }]),
    ];
    fs.writeFileSync(path.join(dir, `${conversation}.jsonl`), lines.join('\n') + '\n');
    // A stand-in for the agent (the daemon adds Claude Code's hook options, which it ignores): draws its
    // input box, rings, waits.
    const agent = path.join(home, 'claude');
    fs.writeFileSync(agent, "#!/bin/sh\nprintf '> \\n? for shortcuts\\a'\nexec sleep 1000\n", { mode: 0o755 });
    const { session } = await client.request('create', {
      name: 'agent',
      argv: [agent],
      cwd,
      metadata: { agent: { profile: 'claude', sessionId: conversation } },
    });
    const told = await attentionWhere(client, session.id, (a) => a.reasonFrom === 'transcript');
    assert.equal(told.state, 'waiting');
    assert.equal(told.reason, 'Both fixes pass the tests. · Should I also update the changelog?');
    const { session: shown } = await client.request('show', { session: session.id });
    assert.equal(shown.attention.reason, told.reason, 'kept with the attention');
  });
});
