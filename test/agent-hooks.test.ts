// Agents report their state through their own hooks, set per run by the daemon: stand-ins for
// Claude Code and Codex CLI read the options exactly as the real CLIs do (Claude's --settings
// JSON, run with sh and the event's JSON on stdin; Codex's -c notify=[...] array, run with its
// payload appended), and the session's attention follows, pushed as events.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { HoldfastClient } from '../src/client/client';
import type { DaemonEvent, SessionAttention, SessionInfo } from '../src/protocol/messages';
import { resumeArgv } from '../src/agents/agents';
import { attentionWhere } from './helpers/attention';
import { cliOk, runCli } from './helpers/cli';
import { CLI_SCRIPT, startTestDaemon, type TestDaemon, waitForText } from './helpers/daemon';
import { record } from './helpers/reliability';

const CLAUDE = String.raw`#!/usr/bin/env node
const { execFileSync } = require('node:child_process');
const args = process.argv.slice(2);
const at = args.indexOf('--settings');
const settings = JSON.parse(args[at + 1]);
const rest = args.filter((_, i) => i !== at && i !== at + 1);
const sessionId = rest[rest.indexOf('--session-id') + 1];
console.log('claude argv: ' + JSON.stringify(rest));
console.log('hooks: ' + Object.keys(settings.hooks).sort().join(','));
const fire = (event) => {
  for (const matcher of settings.hooks[event] || [])
    for (const hook of matcher.hooks)
      execFileSync('sh', ['-c', hook.command], {
        input: JSON.stringify({ session_id: sessionId, hook_event_name: event }),
      });
  console.log('fired ' + event);
};
const events = { prompt: 'UserPromptSubmit', ask: 'Notification', finish: 'Stop' };
process.stdin.setEncoding('utf8');
process.stdin.on('data', (line) => fire(events[line.trim()]));
`;

const CODEX = String.raw`#!/usr/bin/env node
const { execFileSync } = require('node:child_process');
const args = process.argv.slice(2);
const at = args.indexOf('-c');
const value = args[at + 1];
if (!value.startsWith('notify=')) throw new Error('no notify: ' + value);
const notify = JSON.parse(value.slice('notify='.length));
console.log('codex argv: ' + JSON.stringify(args.filter((_, i) => i !== at && i !== at + 1)));
process.stdin.setEncoding('utf8');
process.stdin.on('data', () => {
  const payload = { type: 'agent-turn-complete', 'thread-id': '0199a213-81c0-7800-8aa1-bbab2a035a53', 'turn-id': '7',
    cwd: process.cwd(), 'input-messages': ['hi'], 'last-assistant-message': 'done' };
  execFileSync(notify[0], [...notify.slice(1), JSON.stringify(payload)]);
  console.log('turn complete');
});
`;

let daemon: TestDaemon;

/** `holdfast ARGS` against the test's daemon; its stdout (fails the test on a non-zero exit). */
async function cli(args: string[]): Promise<string> {
  return cliOk(daemon.env, args);
}
let client: HoldfastClient;
let bin: string;
const attention: { id: string; attention: SessionAttention }[] = [];

before(async () => {
  daemon = await startTestDaemon();
  bin = path.join(daemon.dir, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'claude'), CLAUDE, { mode: 0o755 });
  fs.writeFileSync(path.join(bin, 'codex'), CODEX, { mode: 0o755 });
  client = await daemon.connect();
  client.onEvent((event: DaemonEvent) => {
    if (event.type === 'attention') attention.push({ id: event.id, attention: event.attention });
  });
  await client.request('subscribe', {});
});
after(() => daemon.stop());

async function start(argv: string[], agent: Record<string, unknown>): Promise<SessionInfo> {
  const { session } = await client.request('create', {
    argv,
    env: { PATH: `${bin}:${process.env.PATH}` },
    metadata: { agent },
  });
  return session;
}

/**
 * Resolves once the session's attention is `state` from `source`: listening first, then asking, so no
 * event falls between.
 */
async function untilState(id: string, state: string, source: string): Promise<SessionAttention> {
  const matches = (a: SessionAttention) => a.state === state && a.source === source;
  return attentionWhere(client, id, matches, () => `no ${state} from ${source}: ${JSON.stringify(attention)}`);
}

async function send(id: string, line: string, echo: string): Promise<void> {
  await client.request('send', { session: id, data: `${line}\r` });
  const { met } = await waitForText(client, id, echo, 20_000);
  assert.ok(met, `no "${echo}"`);
}

test('Claude Code: --settings hooks report running, waiting and done, and the conversation id', async () => {
  assert.ok(fs.existsSync(CLI_SCRIPT), 'the hook runs dist/cli.js notify');
  const id = '0b4f2a52-7c9e-4d8f-9a3e-5b6c7d8e9f01';
  const session = await start(['claude', '--session-id', id], { profile: 'claude', sessionId: id });
  const { met } = await waitForText(
    client,
    session.id,
    'hooks: Notification,PermissionRequest,Stop,UserPromptSubmit',
    20_000,
  );
  const { lines } = await client.request('read', { session: session.id });
  assert.ok(met, `the stand-in got --settings with four hooks:\n${lines.join('\n')}`);
  assert.ok(
    lines.some((l) => l.includes(`claude argv: ["--session-id","${id}"]`)),
    lines.join('\n'),
  );

  await send(session.id, 'prompt', 'fired UserPromptSubmit');
  assert.equal((await untilState(session.id, 'running', 'hook')).source, 'hook');
  await send(session.id, 'ask', 'fired Notification');
  await untilState(session.id, 'waiting', 'hook');
  await send(session.id, 'finish', 'fired Stop');
  await untilState(session.id, 'done', 'hook');
  const { session: info } = await client.request('show', { session: session.id });
  assert.equal(info.attention.state, 'done');
  // The CLI says so too: list's STATE, show's attention line, and a wait for it.
  assert.match(await cli(['list']), new RegExp(`^${session.id} .* done `, 'm'));
  assert.match(await cli(['show', session.id]), /^attention: +done \(hook, since /m);
  assert.match(await cli(['wait', session.id, '--for', 'done', '--json']), /"met": ?true/);
  assert.equal((info.metadata.agent as { sessionId: string }).sessionId, id);
});

test('Codex CLI: its notify program reports each finished turn and the thread id that resume continues', async () => {
  const session = await start(['codex'], { profile: 'codex' });
  assert.deepEqual(resumeArgv(session.metadata), ['codex', 'resume', '--last'], 'no thread known yet');
  const { met } = await waitForText(client, session.id, 'codex argv: \\[\\]', 20_000);
  assert.ok(met);
  await send(session.id, 'go', 'turn complete');
  await untilState(session.id, 'done', 'hook');
  const { session: info } = await client.request('show', { session: session.id });
  assert.deepEqual(resumeArgv(info.metadata), ['codex', 'resume', '0199a213-81c0-7800-8aa1-bbab2a035a53']);
});

/** A Codex stand-in that has started: its environment is its own (no longer the forking daemon's). */
async function startCodex(): Promise<SessionInfo> {
  const session = await start(['codex'], { profile: 'codex' });
  const pattern = 'codex argv: \\[\\]';
  const { met } = await client.request('wait', { session: session.id, condition: { kind: 'text', pattern } });
  assert.ok(met);
  return session;
}

/** A variable of a session's program, as the kernel has its environment. */
function sessionVariable(pid: number, name: string): string | undefined {
  const vars = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  return vars.find((v) => v.startsWith(`${name}=`))?.slice(name.length + 1);
}

test('a bad report gets a clear one-line error and changes nothing', async () => {
  const session = await startCodex();
  const credential = sessionVariable(session.pid, 'HOLDFAST_NOTIFY_TOKEN');
  assert.match(credential ?? '', /^[0-9a-f]{64}$/);
  await assert.rejects(client.request('notify', { session: session.id, state: 'sleeping' as 'done' }), /state/);
  await assert.rejects(
    client.request('notify', { session: session.id, state: 'done', conversationId: '--rm -rf', credential }),
    /agent session id/,
  );
  const { session: info } = await client.request('show', { session: session.id });
  assert.notEqual(info.attention.source, 'hook');
  assert.equal((info.metadata.agent as { sessionId?: string }).sessionId, undefined);
});

test('a burst changes attention with its own event only: no session event, so no checkpoint write', async () => {
  const { session } = await client.request('create', { argv: ['sh', '-c', 'read go; echo burst; exec sleep 1000'] });
  await untilState(session.id, 'idle', 'output');
  const seen: string[] = [];
  const sub = client.onEvent((event) => {
    if ('id' in event && event.id === session.id) seen.push(event.type);
    if (event.type === 'session' && event.session.id === session.id) seen.push('session');
  });
  try {
    await client.request('send', { session: session.id, data: 'go\r' });
    await untilState(session.id, 'running', 'output');
    await untilState(session.id, 'idle', 'output');
    assert.ok(seen.includes('attention'), seen.join(','));
    assert.ok(!seen.includes('session'), `no session event: ${seen.join(',')}`);
  } finally {
    sub.dispose();
  }
});

test("a hook reports only for its own session: another session's or no credential is refused", async () => {
  const victim = await startCodex();
  const other = await startCodex();
  const inOther: NodeJS.ProcessEnv = {
    ...daemon.env,
    HOLDFAST_SESSION: other.id,
    HOLDFAST_NOTIFY_TOKEN: sessionVariable(other.pid, 'HOLDFAST_NOTIFY_TOKEN'),
  };
  const forged = [
    'notify',
    '--session',
    victim.id,
    '--from',
    'codex',
    '{"type":"agent-turn-complete","thread-id":"forged"}',
  ];
  const bare = { ...daemon.env };
  delete bare.HOLDFAST_NOTIFY_TOKEN;
  for (const env of [inOther, bare]) {
    const result = await runCli(env, forged);
    assert.equal(result.code, 1, 'a forged report is refused');
    assert.match(
      result.stderr,
      /^holdfast: not recorded: a report for session \w+ needs its own HOLDFAST_NOTIFY_TOKEN/,
    );
  }
  const { session: info } = await client.request('show', { session: victim.id });
  assert.notEqual(info.attention.source, 'hook');
  assert.deepEqual(resumeArgv(info.metadata), ['codex', 'resume', '--last']);
  record({
    item: 'hostile',
    name:
      '`holdfast notify --session B --from codex \'{"thread-id":"forged"}\'` from session A, ' +
      'and with no credential',
    value: "refused (auth: B's own HOLDFAST_NOTIFY_TOKEN needed); B's attention and resume command unchanged",
  });
  // Its own credential is accepted.
  const own = { ...daemon.env, HOLDFAST_NOTIFY_TOKEN: sessionVariable(victim.pid, 'HOLDFAST_NOTIFY_TOKEN') };
  await cliOk(own, ['notify', '--session', victim.id, '--state', 'waiting']);
  await untilState(victim.id, 'waiting', 'hook');
});

test("what the notify credential does not stop: a process of the user reads another session's from /proc", async () => {
  const victim = await startCodex();
  // Session A, a plain shell of the user's: B's environment is readable to any process running as the user.
  const steal =
    `token=$(tr '\\0' '\\n' < /proc/${victim.pid}/environ | sed -n 's/^HOLDFAST_NOTIFY_TOKEN=//p'); ` +
    `HOLDFAST_NOTIFY_TOKEN=$token ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI_SCRIPT)} notify ` +
    `--session ${victim.id} --from codex '{"type":"agent-turn-complete","thread-id":"stolen-1"}' && echo RE''PORTED; ` +
    'exec sleep 60';
  const { session: thief } = await client.request('create', { argv: ['sh', '-c', steal] });
  assert.ok((await waitForText(client, thief.id, '^REPORTED$', 20_000)).met, 'the report from session A went through');
  const { session: info } = await client.request('show', { session: victim.id });
  assert.deepEqual(resumeArgv(info.metadata), ['codex', 'resume', 'stolen-1']);
  record({
    item: 'hostile',
    name: "session A's shell reads B's HOLDFAST_NOTIFY_TOKEN from /proc/PID/environ and reports for B",
    value:
      "accepted: B's attention and resume id changed (any process of the user can; docs/security.md says so " +
      'now, it claimed a process in one session could not)',
  });
  await client.request('kill', { session: thief.id, remove: true });
});
