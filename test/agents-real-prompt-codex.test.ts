// Approve / Deny against the real Codex CLI (scripts/setup-agents.sh installs 0.169.0): it runs in a
// daemon session with its hooks, its model provider a local stand-in of the Responses API
// (helpers/fakeResponsesApi.ts) whose answer is an exec_command call that asks for approval, so it
// stops at its approval prompt, where the session is marked waiting from its screen. `holdfast approve`
// runs the command, `holdfast deny` refuses it, and `answer` at its composer sends nothing.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { SessionInfo } from '../src/protocol/messages';
import { findPermissionPrompt } from '../src/agents/permissionPrompt';
import { isOneErrorLine, runCli } from './helpers/cli';
import { tempDir, waitFor } from './helpers/daemon';
import { type FakeResponsesApi, type FunctionCall, startFakeResponsesApi } from './helpers/fakeResponsesApi';
import { AGENTS_BIN, answerShown, realAgentFile, markedAtPrompt, rowsWith, saveScreen } from './helpers/realAgent';

const CODEX = path.join(AGENTS_BIN, 'codex');
/** The prompt's last row: it is drawn whole once this is on the screen. */
const FOOTER = 'Press enter to confirm or esc to cancel';
const RUN_QUESTION = 'Would you like to run the following command?';
const EDIT_QUESTION = 'Would you like to make the following edits?';

const rig = realAgentFile(CODEX);

/** A CODEX_HOME whose model provider is the stand-in (no login asked) and whose work folder is trusted. */
function codexHome(api: FakeResponsesApi): { home: string; work: string } {
  const home = tempDir('hf-codex-');
  const work = path.join(home, 'work');
  fs.mkdirSync(path.join(home, '.codex'), { recursive: true });
  fs.mkdirSync(work);
  const config = [
    'model = "fake-model"',
    'model_provider = "standin"',
    '[model_providers.standin]',
    'name = "Stand-in"',
    `base_url = ${JSON.stringify(api.url)}`,
    'wire_api = "responses"',
    `[projects.${JSON.stringify(work)}]`,
    'trust_level = "trusted"',
  ];
  fs.writeFileSync(path.join(home, '.codex', 'config.toml'), `${config.join('\n')}\n`);
  rig.cleanups.push(() => fs.rmSync(home, { recursive: true, force: true }));
  return { home, work };
}

interface CodexRun {
  session: SessionInfo;
  api: FakeResponsesApi;
  /** The file the tool call creates. */
  target: string;
}

interface CodexStart {
  name: string;
  /** What the stand-in asks Codex to do, given the file to create. */
  call: (target: string) => FunctionCall;
  cols: number;
  rows: number;
  /** Codex's sandbox; read-only makes an edit ask. */
  sandbox?: 'read-only';
  /** The pattern that says Codex is ready (its prompt by default). */
  until?: string;
}

/** Codex asks before running the command outside its sandbox (the approval policy asks when a call wants that). */
const escalatedTouch = (target: string): FunctionCall => ({
  name: 'exec_command',
  arguments: { cmd: `touch ${target}`, sandbox_permissions: 'require_escalated', justification: 'Create the file?' },
});

/** Codex takes an apply_patch in exec_command as an edit, which asks in a read-only sandbox. */
const patchAdding = (target: string): FunctionCall => ({
  name: 'exec_command',
  arguments: { cmd: `apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ${target}\n+made\n*** End Patch\nEOF\n` },
});

/** Codex in a session (as New Agent starts it, with its notify hook), once its approval prompt is drawn. */
async function codexAtPrompt(start: CodexStart): Promise<CodexRun> {
  const api = await startFakeResponsesApi(start.call('made-by-the-tool'));
  rig.cleanups.push(() => api.close());
  const { home, work } = codexHome(api);
  const sandbox = start.sandbox ? ['-s', start.sandbox] : [];
  const { session } = await rig.client.request('create', {
    name: start.name,
    // Its app-server daemon would outlive the session: the TUI runs its own in-process instead.
    argv: [CODEX, '--disable', 'daemon_auto_start', '-a', 'on-request', ...sandbox, 'Create the file please'],
    cwd: work,
    cols: start.cols,
    rows: start.rows,
    env: { HOME: home, CODEX_HOME: path.join(home, '.codex') },
    metadata: { agent: { profile: 'codex' } },
  });
  rig.cleanups.push(() => rig.client.request('kill', { session: session.id, remove: true }).then(() => undefined));
  const condition = { kind: 'text' as const, pattern: start.until ?? FOOTER };
  const shown = await rig.client.request('wait', { session: session.id, condition, timeoutMs: 90_000 });
  assert.ok(shown.met, `Codex did not get there; the stand-in saw ${api.paths.join(', ')}`);
  return { session, api, target: path.join(work, 'made-by-the-tool') };
}

/**
 * Presses Down at the prompt until its second choice is highlighted. Once in CI, under load, no second
 * choice was highlighted 60 s after a Down sent as soon as the prompt was drawn (that failure did not
 * show the screen): pressed again while the first choice is still highlighted, at most three times;
 * anything else on the screen fails, shown whole.
 */
async function highlightSecondChoice(id: string): Promise<string[]> {
  for (let press = 1; ; press++) {
    await rig.client.request('send', { session: id, data: '\x1b[B' });
    const condition = { kind: 'text' as const, pattern: '^› 2\\. Yes, and' };
    const { met } = await rig.client.request('wait', { session: id, condition, timeoutMs: 10_000 });
    const { lines } = await rig.client.request('read', { session: id });
    if (met) return lines;
    const stillFirst = lines.some((row) => row.startsWith('› 1. Yes, proceed'));
    assert.ok(
      press < 3 && stillFirst,
      `Down pressed ${press} times, no second choice highlighted:\n${lines.join('\n')}`,
    );
  }
}

test('approve a command: the prompt is recognised and "1" runs it', async () => {
  const { session, api, target } = await codexAtPrompt({
    name: 'approve-run',
    call: escalatedTouch,
    cols: 100,
    rows: 30,
  });
  const rows = await rowsWith(rig.client, session.id, FOOTER);
  saveScreen('exec-prompt', rows);
  assert.equal(findPermissionPrompt('codex', rows)?.question, RUN_QUESTION, rows.join('\n'));
  assert.equal(fs.existsSync(target), false, 'nothing ran before the answer');
  // Its hook does not say it waits here: the daemon sees the prompt on its quiet screen.
  await markedAtPrompt(rig.client, session.id, RUN_QUESTION);
  const approved = await answerShown(rig.daemon.env, 'approve', session.id);
  assert.equal(approved.code, 0, approved.stderr);
  assert.equal(approved.stdout, `approved: ${RUN_QUESTION}\n`);
  await waitFor(() => fs.existsSync(target), 60_000, 'the approved command to create its file');
  await waitFor(() => api.toolCalls.answered === 1, 60_000, "the command's output to reach the API");
  saveScreen(
    'exec-after-approve',
    await rowsWith(rig.client, session.id, 'You approved codex to run touch made-by-the-tool'),
  );
  // No prompt on its screen now: a second approve is refused.
  const again = await runCli(rig.daemon.env, ['approve', session.id]);
  assert.equal(again.code, 1);
  assert.ok(isOneErrorLine(again.stderr), again.stderr);
  assert.match(again.stderr, /shows no permission prompt of Codex CLI 0\.169\.0: nothing was sent/);
});

test('deny a command at 80 columns, the highlight moved: "3" picks "No" and the command does not run', async () => {
  const { session, api, target } = await codexAtPrompt({ name: 'deny-run', call: escalatedTouch, cols: 80, rows: 24 });
  saveScreen('exec-narrow-prompt', await rowsWith(rig.client, session.id, FOOTER));
  const moved = await highlightSecondChoice(session.id);
  saveScreen('exec-narrow-second-highlighted', moved);
  const denied = await answerShown(rig.daemon.env, 'deny', session.id, ['--json']);
  assert.equal(denied.code, 0, denied.stderr);
  assert.deepEqual(JSON.parse(denied.stdout), { question: RUN_QUESTION, sent: '3' });
  saveScreen('exec-narrow-after-deny', await rowsWith(rig.client, session.id, 'You canceled the request to run touch'));
  assert.equal(fs.existsSync(target), false, 'the denied command did not run');
  assert.equal(api.toolCalls.answered, 0);
});

const edit = { call: patchAdding, sandbox: 'read-only' as const };

test('deny an edit: "3" picks "No" and the file is not made', async () => {
  const refused = await codexAtPrompt({ name: 'deny-edit', ...edit, cols: 100, rows: 30 });
  saveScreen('edit-prompt', await rowsWith(rig.client, refused.session.id, FOOTER));
  const denied = await answerShown(rig.daemon.env, 'deny', refused.session.id, ['--json']);
  assert.deepEqual(JSON.parse(denied.stdout), { question: EDIT_QUESTION, sent: '3' });
  saveScreen('edit-after-deny', await rowsWith(rig.client, refused.session.id, 'Conversation interrupted'));
  assert.equal(fs.existsSync(refused.target), false, 'the denied edit was not made');
});

test('approve an edit at 80 columns: "1" makes the file', async () => {
  const applied = await codexAtPrompt({ name: 'approve-edit', ...edit, cols: 80, rows: 24 });
  saveScreen('edit-narrow-prompt', await rowsWith(rig.client, applied.session.id, FOOTER));
  const approved = await answerShown(rig.daemon.env, 'approve', applied.session.id);
  assert.equal(approved.stdout, `approved: ${EDIT_QUESTION}\n`);
  const written = () => fs.existsSync(applied.target) && fs.readFileSync(applied.target, 'utf8') === 'made\n';
  await waitFor(written, 60_000, 'the approved edit to make its file');
});

test('answer at the composer: no-prompt, and nothing is typed', async () => {
  const text = (target: string): FunctionCall => ({ name: 'no_such_tool', arguments: { target } });
  const { session } = await codexAtPrompt({ name: 'composer', call: text, cols: 100, rows: 30, until: 'Done\\.' });
  for (const choice of ['approve', 'deny'] as const)
    await assert.rejects(rig.client.request('answer', { session: session.id, choice }), /shows no permission prompt/);
  // The composer shows what is typed: only the marker sent after the refusals.
  await rig.client.request('send', { session: session.id, data: 'marker' });
  const rows = await rowsWith(rig.client, session.id, '^› marker');
  assert.ok(
    rows.some((r) => r.trimEnd() === '› marker'),
    rows.join('\n'),
  );
});
