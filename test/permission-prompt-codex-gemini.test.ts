// The permission prompt recogniser (src/agents/permissionPrompt.ts, src/agents/prompts) on screens
// captured from the real Codex CLI 0.169.0 and Gemini CLI 0.61.0 in Holdfast sessions
// (test/fixtures/codex-0.169.0, gemini-0.61.0; agents-real-prompt-codex/-gemini.test.ts make them with
// HOLDFAST_FIXTURES=DIR), and on near-misses that must not be taken for a prompt.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { findPermissionPrompt, promptArea } from '../src/agents/permissionPrompt';

const FIXTURES = path.resolve(__dirname, '..', '..', 'test', 'fixtures');

function screen(dir: string, name: string): string[] {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, dir, `${name}.json`), 'utf8')) as string[];
}
const codexScreen = (name: string) => screen('codex-0.169.0', name);
const geminiScreen = (name: string) => screen('gemini-0.61.0', name);

/** The index of the last row holding `text`. */
function lastRowWith(rows: readonly string[], text: string): number {
  for (let at = rows.length - 1; at >= 0; at--) if (rows[at].includes(text)) return at;
  assert.fail(`no row holds ${text}`);
}

/** The screen with the last row holding `from` rewritten. */
function edited(rows: readonly string[], from: string, to: string): string[] {
  const at = lastRowWith(rows, from);
  return rows.map((r, i) => (i === at ? r.replace(from, to) : r));
}

/** The screen without the last row holding `text`. */
function without(rows: readonly string[], text: string): string[] {
  const at = lastRowWith(rows, text);
  return rows.filter((_, i) => i !== at);
}

/** The screen with `row` put in after the last row holding `text`. */
function inserted(rows: readonly string[], text: string, row: string): string[] {
  const at = lastRowWith(rows, text);
  return [...rows.slice(0, at + 1), row, ...rows.slice(at + 1)];
}

const RUN = 'Would you like to run the following command?';
const EDIT = 'Would you like to make the following edits?';

test('Codex CLI 0.169.0: each captured prompt, with the keys that answered it', () => {
  const cases = [
    { name: 'exec-prompt', question: RUN },
    { name: 'exec-narrow-prompt', question: RUN },
    { name: 'exec-narrow-second-highlighted', question: RUN },
    { name: 'edit-prompt', question: EDIT },
    { name: 'edit-narrow-prompt', question: EDIT },
  ];
  for (const { name, question } of cases) {
    const rows = codexScreen(name);
    const prompt = findPermissionPrompt('codex', rows);
    assert.ok(prompt, name);
    assert.equal(prompt.question, question, name);
    assert.equal(rows[prompt.row].trim(), question, name);
    assert.deepEqual(prompt.keys, { approve: '1', deny: '3' }, name);
    assert.equal(prompt.labels[0], 'Yes, proceed (y)', name);
    assert.equal(prompt.labels.at(-1), 'No, and tell Codex what to do differently (esc)', name);
  }
  // A wrapped choice is one label.
  const narrow = findPermissionPrompt('codex', codexScreen('exec-narrow-prompt'))!;
  assert.match(
    narrow.labels[1],
    /^Yes, and don't ask again for commands that start with `touch made-by-the- ?tool` \(p\)$/,
  );
});

test('Gemini CLI 0.61.0: each captured confirmation, with the keys that answered it', () => {
  const cases = [
    { name: 'shell-prompt', question: 'Allow execution of [Shell]?', deny: '3' },
    { name: 'shell-narrow-prompt', question: 'Allow execution of [Shell]?', deny: '3' },
    { name: 'shell-narrow-second-highlighted', question: 'Allow execution of [Shell]?', deny: '3' },
    { name: 'write-prompt', question: 'Apply this change?', deny: '4' },
    { name: 'write-narrow-prompt', question: 'Apply this change?', deny: '4' },
  ];
  for (const { name, question, deny } of cases) {
    const rows = geminiScreen(name);
    const prompt = findPermissionPrompt('gemini', rows);
    assert.ok(prompt, name);
    assert.equal(prompt.question, question, name);
    assert.ok(rows[prompt.row].includes(question), name);
    assert.deepEqual(prompt.keys, { approve: '1', deny }, name);
    assert.equal(prompt.labels[0], 'Allow once', name);
    assert.equal(prompt.labels.at(-1), 'No, suggest changes (esc)', name);
  }
});

test("each prompt's block, shown before an answer no hook confirmed: Codex's from its question, Gemini's box", () => {
  const codex = codexScreen('exec-prompt');
  const codexArea = promptArea(codex, findPermissionPrompt('codex', codex)!);
  assert.equal(codexArea[0].trim(), RUN);
  assert.equal(codexArea.at(-1), '  Press enter to confirm or esc to cancel');
  const gemini = geminiScreen('shell-prompt');
  const geminiArea = promptArea(gemini, findPermissionPrompt('gemini', gemini)!);
  assert.match(geminiArea[0], /^╭─+╮$/);
  assert.match(geminiArea[1], /^│ \? Shell {2}touch /);
  assert.match(geminiArea.at(-1)!, /^╰─+╯$/);
});

test('the screens after an answer are no prompt', () => {
  for (const name of ['exec-after-approve', 'exec-narrow-after-deny', 'edit-after-deny'])
    assert.equal(findPermissionPrompt('codex', codexScreen(name)), undefined, name);
  for (const name of ['shell-after-approve', 'shell-narrow-after-deny', 'write-after-deny'])
    assert.equal(findPermissionPrompt('gemini', geminiScreen(name)), undefined, name);
});

test("each agent's prompt only for its own profile", () => {
  const codex = codexScreen('exec-prompt');
  const gemini = geminiScreen('shell-prompt');
  for (const profile of ['claude', 'gemini', 'shell', '__proto__', undefined])
    assert.equal(findPermissionPrompt(profile, codex), undefined, `codex's as ${String(profile)}`);
  for (const profile of ['claude', 'codex', 'shell', 'constructor', undefined])
    assert.equal(findPermissionPrompt(profile, gemini), undefined, `gemini's as ${String(profile)}`);
});

test('Codex near-misses are no prompt', () => {
  const rows = codexScreen('exec-prompt');
  const footer = lastRowWith(rows, 'Press enter');
  const misses: [string, string[]][] = [
    ['another question', edited(rows, RUN, 'Would you like to grant these permissions?')],
    ['the first choice is not "Yes, proceed"', edited(rows, '1. Yes, proceed (y)', '1. Yes, and always (y)')],
    ['the last choice is not its "No"', edited(rows, 'No, and tell Codex what to do differently', 'No')],
    ['a gap in the numbers', edited(rows, '3. No,', '4. No,')],
    ['no choice highlighted', edited(rows, '› 1. Yes', '  1. Yes')],
    ['two choices highlighted', edited(rows, '  2. Yes, and', '› 2. Yes, and')],
    ['another footer', edited(rows, 'Press enter to confirm', 'Press tab to confirm')],
    ['text below the footer', [...rows, 'typed later']],
    ['no blank row above the footer', rows.filter((_, i) => i !== footer - 1)],
    ['the footer cut off', rows.slice(0, footer)],
    ['no question above', without(rows, RUN)],
    ['no blank row under the question', rows.filter((_, i) => i !== lastRowWith(rows, RUN) + 1)],
    ['unindented text between the question and the choices', inserted(rows, 'Environment: local', 'typed')],
    ['indented as another block', rows.map((r) => (r.startsWith('›') ? ` ${r}` : r))],
    ['an empty screen', []],
  ];
  for (const [what, screenRows] of misses) assert.equal(findPermissionPrompt('codex', screenRows), undefined, what);
});

test('Gemini near-misses are no prompt', () => {
  const rows = geminiScreen('shell-prompt');
  const question = rows.findIndex((r) => r.includes('Allow execution of'));
  const misses: [string, string[]][] = [
    ['another tool', edited(rows, 'Allow execution of [Shell]?', 'Allow execution of [touch]?')],
    ['the first choice is not "Allow once"', edited(rows, '1. Allow once', '1. Allow all ')],
    ['the last choice is not its "No"', edited(rows, 'No, suggest changes (esc)', 'No, suggest changes    ')],
    ['a gap in the numbers', edited(rows, '3. No,', '4. No,')],
    ['no choice highlighted', edited(rows, '● 1. Allow', '  1. Allow')],
    ['two choices highlighted', edited(rows, '  2. Allow', '● 2. Allow')],
    ['the box not closed', without(rows, '╰──────')],
    ['text below the box', [...rows, 'typed later']],
    ['no blank row under the question', rows.filter((_, i) => i !== question + 1)],
    ['a row of another width', edited(rows, '2. Allow for this session ', '2. Allow for this session')],
    ['no top to the box', rows.filter((r) => !r.startsWith('╭'))],
    ['a row outside the box above the question', inserted(rows, '? Shell', 'typed')],
    ['the question outside the box', rows.map((r, i) => (i === question ? r.slice(2) : r))],
    ['a box row between the question and the choices', inserted(rows, 'Allow execution of', rows[question + 1])],
    ['an empty screen', []],
  ];
  for (const [what, screenRows] of misses) assert.equal(findPermissionPrompt('gemini', screenRows), undefined, what);
});
