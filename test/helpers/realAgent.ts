// What the tests of Approve / Deny against the real agents share (agents-real-prompt*.test.ts): where
// scripts/setup-agents.sh installed the CLIs, reading a session's screen once something is on it, waiting
// for the session to be marked at its prompt, and answering a prompt once shown.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before } from 'node:test';
import type { HoldfastClient } from '../../src/client/client';
import { type CliRun, isOneErrorLine, runCli } from './cli';
import { startTestDaemon, type TestDaemon } from './daemon';

/** The installed CLIs' commands (claude, codex, gemini). */
export const AGENTS_BIN = path.resolve(__dirname, '..', '..', '..', '.vscode-test', 'agents', 'node_modules', '.bin');

/** What a real-agent test file's tests share: one daemon and client, and what to undo after them. */
export interface RealAgentFile {
  readonly daemon: TestDaemon;
  readonly client: HoldfastClient;
  /** Run after the file's tests, last pushed first, before the daemon stops. */
  readonly cleanups: (() => Promise<void> | void)[];
}

/** Any key of the right shape: the stand-in API takes it, and Claude Code asks nothing once it is approved. */
const CLAUDE_API_KEY = 'sk-ant-api03-holdfast-test-key-0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * Makes `home` one where Claude Code has done its first run (onboarding, the key approved, the folder `work`
 * trusted) and asks before tools (its default mode is auto, which would not ask).
 */
export function writeClaudeHome(home: string, work: string): void {
  fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
  const config = {
    hasCompletedOnboarding: true,
    theme: 'dark',
    customApiKeyResponses: { approved: [CLAUDE_API_KEY.slice(-20)], rejected: [] },
    projects: { [work]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
  };
  fs.writeFileSync(path.join(home, '.claude.json'), JSON.stringify(config));
  const settings = { permissions: { defaultMode: 'default' } };
  fs.writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify(settings));
}

/** The environment Claude Code runs with in `home`, against the stand-in API at `apiUrl` (fakeAnthropicApi.ts). */
export function claudeEnv(home: string, apiUrl: string): Record<string, string> {
  return {
    HOME: home,
    ANTHROPIC_BASE_URL: apiUrl,
    ANTHROPIC_API_KEY: CLAUDE_API_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
  };
}

/** Starts a daemon before the file's tests (once `binary` is known to be installed) and stops it after. */
export function realAgentFile(binary: string): RealAgentFile {
  let daemon: TestDaemon | undefined;
  let client: HoldfastClient | undefined;
  const cleanups: (() => Promise<void> | void)[] = [];
  before(async () => {
    assert.ok(fs.existsSync(binary), `${binary} is missing: run scripts/setup-agents.sh`);
    daemon = await startTestDaemon();
    client = await daemon.connect();
  });
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    await daemon?.stop();
    if (daemon) fs.rmSync(daemon.dir, { recursive: true, force: true });
  });
  return {
    get daemon() {
      assert.ok(daemon, 'the daemon starts before the tests');
      return daemon;
    },
    get client() {
      assert.ok(client, 'the daemon starts before the tests');
      return client;
    },
    cleanups,
  };
}

/** The session's screen rows once `pattern` (RE2) is on it. */
export async function rowsWith(client: HoldfastClient, id: string, pattern: string): Promise<string[]> {
  const condition = { kind: 'text' as const, pattern };
  const { met } = await client.request('wait', { session: id, condition, timeoutMs: 60_000 });
  const { lines } = await client.request('read', { session: id });
  assert.ok(met, `no /${pattern}/ on the screen:\n${lines.join('\n')}`);
  return lines;
}

/** The session's screen, one string, once `pattern` (RE2) is on it. */
export async function screenWith(client: HoldfastClient, id: string, pattern: string): Promise<string> {
  return (await rowsWith(client, id, pattern)).join('\n');
}

/** Resolves once the session is waiting at its permission prompt, as its screen shows it (promptWatch.ts). */
export async function markedAtPrompt(client: HoldfastClient, id: string, question: string): Promise<void> {
  const condition = { kind: 'attention' as const, states: ['waiting' as const] };
  const { met } = await client.request('wait', { session: id, condition, timeoutMs: 20_000 });
  assert.ok(met, 'the session at its prompt is waiting');
  const { attention } = (await client.request('show', { session: id })).session;
  assert.deepEqual([attention.source, attention.permissionPrompt], ['screen', true], JSON.stringify(attention));
  assert.ok(attention.reason?.endsWith(question), attention.reason);
}

/**
 * With HOLDFAST_FIXTURES=DIR set, saves a screen's rows as DIR/NAME.json: how the screens in
 * test/fixtures were captured from the real CLIs (the permission-prompt tests read them).
 */
export function saveScreen(name: string, rows: readonly string[]): void {
  const dir = process.env.HOLDFAST_FIXTURES;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${name}.json`), `${JSON.stringify(rows, null, 1)}\n`);
}

/**
 * `holdfast approve|deny ID` where the agent's hook does not say it asks (Codex, Gemini): the first run
 * sends nothing and prints the prompt's block with the command that answers it (--shown DIGEST); that
 * command's run is returned.
 */
export async function answerShown(
  env: NodeJS.ProcessEnv,
  verb: 'approve' | 'deny',
  id: string,
  extra: string[] = [],
): Promise<CliRun> {
  const first = await runCli(env, [verb, id]);
  assert.equal(first.code, 1, first.stderr);
  assert.ok(isOneErrorLine(first.stderr), first.stderr);
  assert.match(first.stderr, /its agent's own hook has not said it asks/);
  assert.ok(first.stdout.trim().split('\n').length >= 3, `the prompt's block is printed:\n${first.stdout}`);
  const digest = new RegExp(`holdfast ${verb} ${id} --shown ([0-9a-f]{16})$`, 'm').exec(first.stderr)?.[1];
  assert.ok(digest, first.stderr);
  return runCli(env, [verb, id, '--shown', digest, ...extra]);
}
