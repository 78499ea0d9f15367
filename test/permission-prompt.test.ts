// The permission prompt recogniser (src/agents/permissionPrompt.ts) on screens captured from the real
// Claude Code 2.1.328 in a Holdfast session (test/fixtures/claude-2.1.328; test/agents-real-prompt.test.ts
// makes them), and on near-misses that must not be taken for a prompt.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { findPermissionPrompt, promptArea, promptAreaDigest } from '../src/agents/permissionPrompt';

const FIXTURES = path.resolve(__dirname, '..', '..', 'test', 'fixtures', 'claude-2.1.328');

function screen(name: string): string[] {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8')) as string[];
}

/** The screen with the row holding `from` rewritten. */
function edited(rows: readonly string[], from: string, to: string): string[] {
  const at = rows.findIndex((r) => r.includes(from));
  assert.ok(at >= 0, `no row holds ${from}`);
  return rows.map((r, i) => (i === at ? r.replace(from, to) : r));
}

test('Claude Code 2.1.328: each captured prompt, with the keys that answered it', () => {
  const cases = [
    { name: 'bash-prompt', question: 'Do you want to proceed?', deny: '4' },
    { name: 'bash-narrow-prompt', question: 'Do you want to proceed?', deny: '4' },
    { name: 'bash-narrow-second-highlighted', question: 'Do you want to proceed?', deny: '4' },
    { name: 'write-prompt', question: 'Do you want to create x?', deny: '3' },
    { name: 'edit-prompt', question: 'Do you want to make this edit to x?', deny: '3' },
  ];
  for (const { name, question, deny } of cases) {
    const prompt = findPermissionPrompt('claude', screen(name));
    assert.ok(prompt, name);
    assert.equal(prompt.question, question, name);
    assert.equal(screen(name)[prompt.row].trim(), question, name);
    assert.deepEqual(prompt.keys, { approve: '1', deny }, name);
    assert.equal(prompt.labels[0], 'Yes');
    assert.equal(prompt.labels.at(-1), 'No');
  }
  // A wrapped choice is one label.
  const narrow = findPermissionPrompt('claude', screen('bash-narrow-prompt'))!;
  assert.match(narrow.labels[1], /^Yes, and always allow access to \/tmp\/\S+ from this project$/);
  assert.equal(findPermissionPrompt('claude', screen('write-prompt'))!.labels.length, 3);
});

test("a prompt's block, shown before an answer its hook did not confirm: from under the rule to the footer", () => {
  const rows = screen('bash-prompt');
  const area = promptArea(rows, findPermissionPrompt('claude', rows)!);
  assert.equal(area[0], ' Bash command');
  assert.ok(area.includes(' Do you want to proceed?') && area.includes('   4. No'), area.join('\n'));
  assert.equal(area.at(-1), ' Esc to cancel · Tab to amend');
  const write = screen('write-prompt');
  assert.deepEqual(promptArea(write, findPermissionPrompt('claude', write)!).slice(0, 2), [' Create file', ' x']);
  // The digest names the block: another command in it is another prompt.
  const other = rows.map((r) => (r.startsWith(' touch /tmp') ? r.replace('touch', 'rm -rf') : r));
  const digest = (r: string[]) => promptAreaDigest(promptArea(r, findPermissionPrompt('claude', r)!));
  assert.match(digest(rows), /^[0-9a-f]{16}$/);
  assert.notEqual(digest(other), digest(rows));
  assert.equal(digest([...rows]), digest(rows));
});

test('the screens after an answer are no prompt', () => {
  for (const name of ['bash-after-approve', 'bash-narrow-after-deny', 'write-after-deny', 'edit-after-deny'])
    assert.equal(findPermissionPrompt('claude', screen(name)), undefined, name);
});

test('only the profile whose prompt was checked: another agent or none is never answered', () => {
  const rows = screen('bash-prompt');
  for (const profile of ['codex', 'gemini', 'shell', 'constructor', '__proto__', undefined])
    assert.equal(findPermissionPrompt(profile, rows), undefined, String(profile));
});

test('near-misses are no prompt', () => {
  const rows = screen('bash-prompt');
  const misses: [string, string[]][] = [
    ['another question', edited(rows, 'Do you want to proceed?', 'Do you want to delete everything?')],
    ['no question mark', edited(rows, 'Do you want to proceed?', 'Do you want to proceed')],
    ['the first choice is not a plain Yes', edited(rows, '1. Yes', '1. Yes, and always allow')],
    ['the last choice is not a plain No', edited(rows, '4. No', '4. No, and tell Claude what to do differently')],
    ['a gap in the numbers', edited(rows, '4. No', '5. No')],
    ['no choice highlighted', edited(rows, '❯ 1. Yes', '  1. Yes')],
    ['two choices highlighted', edited(rows, '  2. Yes, and', '❯ 2. Yes, and')],
    ['another footer', edited(rows, 'Esc to cancel', 'Enter to confirm')],
    ['text below the footer', rows.map((r, i) => (i === rows.length - 1 ? 'typed later' : r))],
    ['no blank row above the footer', rows.filter((r, i) => !(r === '' && rows[i + 1]?.includes('Esc to cancel')))],
    [
      'the footer cut off',
      rows.slice(
        0,
        rows.findIndex((r) => r.includes('Esc to cancel')),
      ),
    ],
    ['indented as an agent message', rows.map((r) => (r.startsWith(' ') ? ` ${r}` : r))],
    ['a choice that is not a row of its own', edited(rows, '   3. Yes', 'x  3. Yes')],
    ['an empty screen', []],
  ];
  for (const [what, screenRows] of misses) assert.equal(findPermissionPrompt('claude', screenRows), undefined, what);
});

test('an earlier prompt above the live one does not count: the last question decides', () => {
  const rows = screen('bash-prompt');
  const answered = screen('bash-after-approve');
  assert.equal(findPermissionPrompt('claude', [...rows, ...answered]), undefined);
  assert.ok(findPermissionPrompt('claude', [...answered, ...rows]));
});
