// Agent profiles (argv templating, the holdfast.agents setting, missing binaries) and which
// archived sessions are offered for resume.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  BUILTIN_AGENTS,
  findProfile,
  missingAgentMessage,
  readAgentProfiles,
  resumeTemplate,
} from '../src/extension/agents';
import { archiveAction } from '../src/extension/archives';
import { agentLaunch, findExecutable } from '../src/agents/agentLaunch';
import type { SessionInfo } from '../src/protocol/messages';
import { resumeArgv } from '../src/agents/agents';
import { sessionInfo } from './helpers/sessionInfo';

const claude = BUILTIN_AGENTS.find((p) => p.id === 'claude')!;

test('Claude Code starts with a generated --session-id and resumes it with --resume', () => {
  const launch = agentLaunch(claude, () => '0b4f2a52-7c9e-4d8f-9a3e-5b6c7d8e9f01');
  assert.deepEqual(launch.argv, ['claude', '--session-id', '0b4f2a52-7c9e-4d8f-9a3e-5b6c7d8e9f01']);
  assert.deepEqual(launch.agent, {
    profile: 'claude',
    name: 'Claude Code',
    icon: 'sparkle',
    resumeArgv: ['claude', '--resume', '{id}'],
    sessionId: '0b4f2a52-7c9e-4d8f-9a3e-5b6c7d8e9f01',
  });
  // The daemon builds the resume command from what the extension recorded.
  assert.deepEqual(resumeArgv({ agent: launch.agent }), ['claude', '--resume', '0b4f2a52-7c9e-4d8f-9a3e-5b6c7d8e9f01']);
});

test('each launch gets its own id (a real UUID by default)', () => {
  const a = agentLaunch(claude).agent.sessionId!;
  const b = agentLaunch(claude).agent.sessionId!;
  assert.match(a, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.notEqual(a, b);
});

test('Codex records no id at start (its hook reports one) and resumes its latest conversation until then', () => {
  const profile = BUILTIN_AGENTS.find((p) => p.id === 'codex')!;
  const launch = agentLaunch(profile, () => assert.fail('no id is generated'));
  assert.deepEqual(launch.argv, ['codex']);
  assert.equal(launch.agent.sessionId, undefined);
  assert.deepEqual(resumeArgv({ agent: launch.agent }), ['codex', 'resume', '--last']);
});

test('Gemini CLI starts with a generated --session-id and resumes it with --resume', () => {
  const gemini = BUILTIN_AGENTS.find((p) => p.id === 'gemini')!;
  const launch = agentLaunch(gemini, () => 'c0ffee00-1111-4222-8333-444455556666');
  assert.deepEqual(launch.argv, ['gemini', '--session-id', 'c0ffee00-1111-4222-8333-444455556666']);
  assert.deepEqual(resumeArgv({ agent: launch.agent }), ['gemini', '--resume', 'c0ffee00-1111-4222-8333-444455556666']);
});

test('a template with {id} but no recorded id is not resumable', () => {
  assert.equal(
    resumeArgv({ agent: { profile: 'claude', resumeArgv: ['claude', '--resume', '{id}'] } }),
    'no agent session id was recorded',
  );
  assert.equal(resumeArgv({}), 'it is not an agent session (no metadata.agent)');
});

test('holdfast.agents adds custom profiles and overrides built-ins by id', () => {
  const { profiles, errors } = readAgentProfiles([
    {
      id: 'claude',
      name: 'Claude (work)',
      argv: ['/opt/claude', '--session-id', '{id}'],
      resumeArgv: ['/opt/claude', '--resume', '{id}'],
    },
    { name: 'My Bot', argv: ['bot', '--new', '{id}'], resumeArgv: ['bot', '--continue', '{id}'], icon: 'robot' },
    { name: 'Plain', argv: ['plain'] },
  ]);
  assert.deepEqual(errors, []);
  assert.deepEqual(
    profiles.map((p) => p.id),
    ['claude', 'codex', 'gemini', 'my-bot', 'plain'],
  );
  assert.deepEqual(profiles[0].argv, ['/opt/claude', '--session-id', '{id}']);
  assert.equal(profiles[0].sessionId, 'generate');
  assert.equal(profiles[0].icon, 'sparkle', 'an override keeps what it does not set');
  const bot = profiles[3];
  assert.equal(bot.sessionId, 'generate', '{id} in the templates means Holdfast generates it');
  assert.deepEqual(agentLaunch(bot, () => 'X').argv, ['bot', '--new', 'X']);
  assert.deepEqual(profiles[4].resumeArgv, []);
  assert.equal(profiles[4].sessionId, 'none');
});

test('bad holdfast.agents entries are reported one line each, and the good ones kept', () => {
  const { profiles, errors } = readAgentProfiles([
    { argv: ['x'] },
    { name: 'NoArgv' },
    'str',
    { name: 'Bad', argv: ['b'], resumeArgv: ['b', '{id}'], sessionId: 'none' },
    { name: 'Ok', argv: ['ok'] },
  ]);
  assert.deepEqual(errors, [
    'holdfast.agents[0]: needs a "name"',
    'holdfast.agents[1]: "NoArgv" needs "argv", a non-empty list of strings such as ["my-agent", "--flag"]',
    'holdfast.agents[2]: must be an object',
    'holdfast.agents[3]: "Bad": "resumeArgv" uses {id} but "sessionId" is "none", so no id would be known',
  ]);
  assert.deepEqual(
    profiles.map((p) => p.id),
    ['claude', 'codex', 'gemini', 'ok'],
  );
  assert.deepEqual(readAgentProfiles({}).errors, ['holdfast.agents must be a list of agent profiles']);
});

test('a missing agent binary is found missing, and the message names it and the setting', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hf-agents-'));
  try {
    const bin = path.join(dir, 'claude');
    fs.writeFileSync(bin, '#!/bin/sh\n', { mode: 0o755 });
    fs.writeFileSync(path.join(dir, 'codex'), 'not executable', { mode: 0o644 });
    assert.equal(findExecutable('claude', `/nonexistent:${dir}`, '/'), bin);
    assert.equal(findExecutable('codex', dir, '/'), undefined, 'not executable');
    assert.equal(findExecutable('gemini', dir, '/'), undefined);
    assert.equal(findExecutable('./claude', '', dir), bin, 'a path is taken relative to the directory');
    const message = missingAgentMessage(claude);
    assert.match(message, /`claude`/);
    assert.match(message, /holdfast\.agents/);
    assert.ok(!message.includes('\n'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

function session(state: 'running' | 'exited', metadata: Record<string, unknown>): SessionInfo {
  return sessionInfo('s1', { state, metadata });
}

test('archives: a running agent resumes, a finished one or a shell relaunches, a live session neither', () => {
  const agent = { profile: 'claude', resumeArgv: ['claude', '--resume', '{id}'], sessionId: 'u' };
  const from = (running: boolean) => ({ checkpoint: 'c', id: 'old', running, exit: null, writtenAt: 1 });
  assert.equal(archiveAction(session('exited', { agent, archivedFrom: from(true) })), 'resume');
  assert.equal(
    archiveAction(session('exited', { agent, archivedFrom: from(false) })),
    'relaunch',
    'it had finished before the crash',
  );
  assert.equal(archiveAction(session('exited', { archivedFrom: from(true) })), 'relaunch');
  assert.equal(
    archiveAction(session('exited', { agent: { ...agent, sessionId: undefined }, archivedFrom: from(true) })),
    'relaunch',
    'no id recorded for {id}',
  );
  assert.equal(
    archiveAction(
      session('exited', {
        agent: { profile: 'codex', resumeArgv: ['codex', 'resume', '--last'] },
        archivedFrom: from(true),
      }),
    ),
    'resume',
    'needs no id',
  );
  assert.equal(archiveAction(session('exited', { agent })), undefined, 'exited, not archived');
  assert.equal(archiveAction(session('running', { agent })), undefined);
});

test("resume: the built-in profile's or the client's command, never the recorded one; ids checked; own keys", () => {
  const crafted = { profile: 'claude', sessionId: 'abc-1', resumeArgv: ['sh', '-c', 'touch /tmp/pwned'] };
  assert.deepEqual(resumeArgv({ agent: crafted }), ['claude', '--resume', 'abc-1']);
  assert.deepEqual(
    resumeArgv({ agent: crafted }, ['/opt/claude', '--resume', '{id}']),
    ['/opt/claude', '--resume', 'abc-1'],
    "the client's own profile",
  );
  assert.match(resumeArgv({ agent: { ...crafted, profile: 'bot' } }) as string, /not built-in.*not trusted/);
  assert.match(resumeArgv({ agent: { ...crafted, profile: 'constructor' } }) as string, /not built-in/);
  assert.match(resumeArgv({ agent: { ...crafted, sessionId: 'a b' } }) as string, /characters other than/);
  assert.match(resumeArgv({ agent: { ...crafted, sessionId: '-x' } }) as string, /starts with "-"/);
  assert.match(resumeArgv({ agent: { ...crafted, sessionId: 'a'.repeat(300) } }) as string, /longer than 256/);
  assert.equal(findProfile(BUILTIN_AGENTS, '__proto__'), undefined);
  assert.equal(findProfile(BUILTIN_AGENTS, 'toString'), undefined);
  // A setting entry's inherited fields are not read.
  const inherited = Object.create({ argv: ['sh', '-c', 'inherited'] }) as Record<string, unknown>;
  inherited.name = 'Inherited';
  assert.deepEqual(readAgentProfiles([inherited]).errors, [
    'holdfast.agents[0]: "Inherited" needs "argv", a non-empty list of strings such as ["my-agent", "--flag"]',
  ]);
  const { profiles } = readAgentProfiles([
    { id: 'bot', name: 'Bot', argv: ['bot'], resumeArgv: ['bot', '--continue', '{id}'] },
  ]);
  assert.deepEqual(resumeTemplate(profiles, 'bot'), ['bot', '--continue', '{id}']);
  assert.equal(resumeTemplate(profiles, 'hasOwnProperty'), undefined);
  // Offered: a custom profile (its client gives the command), not a bad id.
  const from = { checkpoint: 'c', id: 'old', running: true, exit: null, writtenAt: 1 };
  assert.equal(
    archiveAction(session('exited', { agent: { profile: 'bot', sessionId: 'x1' }, archivedFrom: from })),
    'resume',
  );
  assert.equal(
    archiveAction(session('exited', { agent: { profile: 'bot', sessionId: 'x 1' }, archivedFrom: from })),
    'relaunch',
  );
});
