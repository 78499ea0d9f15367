// What the tests of Approve / Deny against the real agents share (agents-real-prompt*.test.ts): where
// scripts/setup-agents.sh installed the CLIs, reading a session's screen once something is on it, and
// waiting for the session to be marked at its prompt.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { HoldfastClient } from '../../src/protocol/client';

/** The installed CLIs' commands (claude, codex, gemini). */
export const AGENTS_BIN = path.resolve(__dirname, '..', '..', '..', '.vscode-test', 'agents', 'node_modules', '.bin');

/** The session's screen rows once `pattern` (RE2) is on it. */
export async function rowsWith(client: HoldfastClient, id: string, pattern: string): Promise<string[]> {
  const condition = { kind: 'text' as const, pattern };
  const { met } = await client.request('wait', { session: id, condition, timeoutMs: 60_000 });
  assert.ok(met, `no /${pattern}/ on the screen`);
  return (await client.request('read', { session: id })).lines;
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
