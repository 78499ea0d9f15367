// Approve / Deny against the real Gemini CLI (scripts/setup-agents.sh installs 0.61.0): it runs in a
// daemon session against a local stand-in of the Gemini API (helpers/fakeGeminiApi.ts, reached through
// GOOGLE_GEMINI_BASE_URL with any API key) whose answer is a tool call, so in its default approval mode
// it stops at its confirmation, where the session is marked waiting from its screen. `holdfast approve`
// runs the tool, `holdfast deny` refuses it, and `answer` at its composer sends nothing.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { SessionInfo } from '../src/protocol/messages';
import { findPermissionPrompt } from '../src/agents/permissionPrompt';
import { isOneErrorLine, runCli } from './helpers/cli';
import { tempDir, waitFor } from './helpers/daemon';
import { type FakeGeminiApi, type GeminiFunctionCall, startFakeGeminiApi } from './helpers/fakeGeminiApi';
import { AGENTS_BIN, answerShown, realAgentFile, markedAtPrompt, rowsWith, saveScreen } from './helpers/realAgent';

const GEMINI = path.join(AGENTS_BIN, 'gemini');
/** The confirmation's last choice: it is drawn whole once this is on the screen. */
const LAST_CHOICE = 'No, suggest changes \\(esc\\)';
const SHELL_QUESTION = 'Allow execution of [Shell]?';
const EDIT_QUESTION = 'Apply this change?';

const rig = realAgentFile(GEMINI);

/** A HOME where Gemini CLI uses an API key (no auth dialog) and trusts the work folder (no trust dialog). */
function geminiHome(): { home: string; work: string } {
  const home = tempDir('hf-gemini-');
  const work = path.join(home, 'work');
  fs.mkdirSync(path.join(home, '.gemini'), { recursive: true });
  fs.mkdirSync(work);
  const settings = { security: { auth: { selectedType: 'gemini-api-key' } } };
  fs.writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify(settings));
  fs.writeFileSync(path.join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [work]: 'TRUST_FOLDER' }));
  rig.cleanups.push(() => fs.rmSync(home, { recursive: true, force: true }));
  return { home, work };
}

interface GeminiRun {
  session: SessionInfo;
  api: FakeGeminiApi;
  /** The file the tool call creates. */
  target: string;
  /** How many of the stand-in's tool calls came back answered since this scene began. */
  answered: () => number;
}

interface GeminiScene {
  name: string;
  /** What the stand-in asks Gemini CLI to do, given the file to create. */
  call: (target: string) => GeminiFunctionCall;
  cols: number;
  rows: number;
  /** The pattern that says it is ready (its confirmation by default). */
  until?: string;
}

const shellTouch = (target: string): GeminiFunctionCall => ({
  name: 'run_shell_command',
  args: { command: `touch ${target}`, description: 'Create the file' },
});

const writeFile = (target: string): GeminiFunctionCall => ({
  name: 'write_file',
  args: { file_path: target, content: 'made\n' },
});

const ASK = 'Create the file please';

/** What a scene waits for: none of it may be left on the screen from the scene before. */
const LEFT_BEFORE = /Request cancelled|Done\.|No, suggest changes|Allow for this session|Allow execution|Apply this/;

/**
 * The file's one Gemini CLI (a start costs ~5 s of CPU): its scenes take turns at its composer, the wide ones
 * first (after a resize to a wider screen, rows drawn at the narrower width stayed, Ctrl+L or not).
 */
let gemini: { session: SessionInfo; api: FakeGeminiApi; work: string } | undefined;
let scenes = 0;

/** Gemini CLI in a session (as New Agent starts it), asked to create a file, once its confirmation is drawn. */
async function startGemini(scene: GeminiScene, target: string): Promise<{ session: SessionInfo; api: FakeGeminiApi }> {
  const { home, work } = geminiHome();
  const api = await startFakeGeminiApi(scene.call(path.join(work, target)));
  rig.cleanups.push(() => api.close());
  const conversation = randomUUID();
  const { session } = await rig.client.request('create', {
    name: scene.name,
    // A model named: "auto" would first ask the stand-in to route the request.
    argv: [GEMINI, '--session-id', conversation, '-m', 'gemini-2.5-flash', '-i', ASK],
    cwd: work,
    cols: scene.cols,
    rows: scene.rows,
    // One Node start, not two: it would restart itself only to give Node a larger heap.
    env: {
      HOME: home,
      GEMINI_API_KEY: 'stand-in-key',
      GOOGLE_GEMINI_BASE_URL: api.url,
      GEMINI_CLI_NO_RELAUNCH: 'true',
    },
    metadata: { agent: { profile: 'gemini', sessionId: conversation } },
  });
  rig.cleanups.push(() => rig.client.request('kill', { session: session.id, remove: true }).then(() => undefined));
  gemini = { session, api, work };
  return gemini;
}

/**
 * The next scene at Gemini CLI's composer, as a user asks again: its screen sized for the scene, cleared
 * and a new conversation begun (/clear: nothing the scene waits for is left from the one before), the stand-in's
 * next call set, the request typed.
 */
async function askAgain(scene: GeminiScene, target: string): Promise<{ session: SessionInfo; api: FakeGeminiApi }> {
  assert.ok(gemini, "the file's first scene started Gemini CLI");
  const until = scene.until ?? LAST_CHOICE;
  const { session, api, work } = gemini;
  await rig.client.request('resize', { session: session.id, cols: scene.cols, rows: scene.rows });
  api.call = scene.call(path.join(work, target));
  let rows: string[] = [];
  const cleared = async () => {
    rows = (await rig.client.request('read', { session: session.id })).lines;
    return !rows.some((r) => LEFT_BEFORE.test(r));
  };
  await rig.client.request('send', { session: session.id, data: '/clear' });
  await rowsWith(rig.client, session.id, '> /clear');
  await rig.client.request('send', { session: session.id, data: '\r' });
  await waitFor(cleared, 30_000, 'the screen to be cleared').catch((err: Error) => {
    throw new Error(`${err.message}; the screen:\n${rows.join('\n')}`);
  });
  // Keys typed while /clear still runs are dropped: typed again while the composer stays empty.
  for (let typed = 1; ; typed++) {
    await rig.client.request('send', { session: session.id, data: ASK });
    const condition = { kind: 'text' as const, pattern: `> +${ASK}` };
    const { met } = await rig.client.request('wait', { session: session.id, condition, timeoutMs: 5_000 });
    rows = (await rig.client.request('read', { session: session.id })).lines;
    if (met) break;
    const empty = rows.some((r) => r.includes('Type your message'));
    assert.ok(typed < 5 && empty, `typed ${typed} times, not in the composer:\n${rows.join('\n')}`);
  }
  assert.ok(!rows.some((r) => LEFT_BEFORE.test(r)), `not cleared:\n${rows.join('\n')}`);
  // An Enter can be lost too (or taken for a pasted newline): pressed again while the request is still in the
  // composer (a sent one leaves it empty, or the confirmation in its place).
  const sent = async () => {
    rows = (await rig.client.request('read', { session: session.id })).lines;
    return rows.some((r) => r.includes('Type your message') || new RegExp(until).test(r));
  };
  for (let pressed = 1; ; pressed++) {
    await rig.client.request('send', { session: session.id, data: '\r' });
    const ok = await waitFor(sent, 5_000, 'the request to be sent').then(
      () => true,
      () => false,
    );
    if (ok) break;
    assert.ok(pressed < 3, `Enter pressed ${pressed} times, the request not sent:\n${rows.join('\n')}`);
  }
  return gemini;
}

/** The scene's Gemini CLI asked to create a file of its own, once its confirmation (or `until`) is drawn. */
async function geminiAtPrompt(scene: GeminiScene): Promise<GeminiRun> {
  const target = `made-by-the-tool-${++scenes}`;
  const answeredBefore = gemini?.api.toolCalls.answered ?? 0;
  const { session, api } = gemini ? await askAgain(scene, target) : await startGemini(scene, target);
  const condition = { kind: 'text' as const, pattern: scene.until ?? LAST_CHOICE };
  const shown = await rig.client.request('wait', { session: session.id, condition, timeoutMs: 90_000 });
  const screen = async () => (await rig.client.request('read', { session: session.id })).lines.join('\n');
  assert.ok(shown.met, `Gemini CLI did not get there; the stand-in saw ${api.paths.join(', ')}:\n${await screen()}`);
  return {
    session,
    api,
    target: path.join(gemini!.work, target),
    answered: () => api.toolCalls.answered - answeredBefore,
  };
}

/** The screen once the confirmation on it is recognised (drawn whole, and as captured). */
async function promptRows(id: string): Promise<string[]> {
  let rows = await rowsWith(rig.client, id, LAST_CHOICE);
  const recognised = async () => {
    rows = (await rig.client.request('read', { session: id })).lines;
    return findPermissionPrompt('gemini', rows) !== undefined;
  };
  await waitFor(recognised, 10_000, 'the confirmation to be recognised').catch((err: Error) => {
    throw new Error(`${err.message}; the screen:\n${rows.join('\n')}`);
  });
  return rows;
}

test('approve a shell command: the confirmation is recognised and "1" runs it', async () => {
  const { session, answered, target } = await geminiAtPrompt({
    name: 'approve-shell',
    call: shellTouch,
    cols: 100,
    rows: 30,
  });
  const rows = await promptRows(session.id);
  saveScreen('shell-prompt', rows);
  assert.equal(findPermissionPrompt('gemini', rows)?.question, SHELL_QUESTION, rows.join('\n'));
  assert.equal(fs.existsSync(target), false, 'nothing ran before the answer');
  // It has no hook and rings no bell here: the daemon sees the prompt on its quiet screen.
  await markedAtPrompt(rig.client, session.id, SHELL_QUESTION);
  const approved = await answerShown(rig.daemon.env, 'approve', session.id);
  assert.equal(approved.code, 0, approved.stderr);
  assert.equal(approved.stdout, `approved: ${SHELL_QUESTION}\n`);
  await waitFor(() => fs.existsSync(target), 60_000, 'the approved command to create its file');
  await waitFor(() => answered() === 1, 60_000, "the command's result to reach the API");
  saveScreen('shell-after-approve', await rowsWith(rig.client, session.id, 'Done\\.'));
  const again = await runCli(rig.daemon.env, ['approve', session.id]);
  assert.equal(again.code, 1);
  assert.ok(isOneErrorLine(again.stderr), again.stderr);
  assert.match(again.stderr, /shows no permission prompt of Gemini CLI 0\.61\.0: nothing was sent/);
});

test('deny a file write: "4" picks "No" and the file is not written', async () => {
  const refused = await geminiAtPrompt({ name: 'deny-write', call: writeFile, cols: 100, rows: 30 });
  saveScreen('write-prompt', await promptRows(refused.session.id));
  const denied = await answerShown(rig.daemon.env, 'deny', refused.session.id, ['--json']);
  assert.deepEqual(JSON.parse(denied.stdout), { question: EDIT_QUESTION, sent: '4' });
  saveScreen('write-after-deny', await rowsWith(rig.client, refused.session.id, 'Request cancelled\\.'));
  assert.equal(fs.existsSync(refused.target), false, 'the denied write was not made');
});

test('deny a shell command at 80 columns, the highlight moved: "3" picks "No" and it does not run', async () => {
  const { session, answered, target } = await geminiAtPrompt({
    name: 'deny-shell',
    call: shellTouch,
    cols: 80,
    rows: 24,
  });
  saveScreen('shell-narrow-prompt', await promptRows(session.id));
  await rig.client.request('send', { session: session.id, data: '\x1b[B' });
  saveScreen(
    'shell-narrow-second-highlighted',
    await rowsWith(rig.client, session.id, '│ ● 2\\. Allow for this session'),
  );
  const denied = await answerShown(rig.daemon.env, 'deny', session.id, ['--json']);
  assert.equal(denied.code, 0, denied.stderr);
  assert.deepEqual(JSON.parse(denied.stdout), { question: SHELL_QUESTION, sent: '3' });
  saveScreen('shell-narrow-after-deny', await rowsWith(rig.client, session.id, 'Request cancelled\\.'));
  assert.equal(fs.existsSync(target), false, 'the denied command did not run');
  assert.equal(answered(), 0);
});

test('approve a file write at 80 columns: "1" writes it', async () => {
  const applied = await geminiAtPrompt({ name: 'approve-write', call: writeFile, cols: 80, rows: 24 });
  saveScreen('write-narrow-prompt', await promptRows(applied.session.id));
  const approved = await answerShown(rig.daemon.env, 'approve', applied.session.id);
  assert.equal(approved.stdout, `approved: ${EDIT_QUESTION}\n`);
  const written = () => fs.existsSync(applied.target) && fs.readFileSync(applied.target, 'utf8') === 'made\n';
  await waitFor(written, 60_000, 'the approved write to make its file');
  await rowsWith(rig.client, applied.session.id, 'Done\\.');
});

test('answer at the composer: no-prompt, and nothing is typed', async () => {
  const text = (target: string): GeminiFunctionCall => ({ name: 'no_such_tool', args: { target } });
  const { session } = await geminiAtPrompt({ name: 'composer', call: text, cols: 80, rows: 24, until: 'Done\\.' });
  await rowsWith(rig.client, session.id, 'Type your message');
  for (const choice of ['approve', 'deny'] as const)
    await assert.rejects(rig.client.request('answer', { session: session.id, choice }), /shows no permission prompt/);
  // The composer shows what is typed: only the marker sent after the refusals.
  await rig.client.request('send', { session: session.id, data: 'marker' });
  const rows = await rowsWith(rig.client, session.id, '> +marker');
  assert.ok(
    rows.some((r) => /^ > +marker *$/.test(r)),
    rows.join('\n'),
  );
});
