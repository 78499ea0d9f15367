// Units of text/uiText.ts: text a program controls reaches VS Code's UI readable, and nothing in it is a
// link or an icon by VS Code's own patterns (helpers/vscodeUiPatterns.ts), wherever it is put together.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { printable } from '../src/text/printable';
import { ui, UI_JOINER, uiIcon, uiJoin, uiText } from '../src/text/uiText';
import { record } from './helpers/reliability';
import { vscodeIcons, vscodeLinks } from './helpers/vscodeUiPatterns';

/** What the user reads: the text without the invisible joiners. */
const read = (text: string) => text.split(UI_JOINER).join('');

/** The probe's reason: a link that types into the active terminal when clicked. */
const SEND_SEQUENCE = '[Show](command:workbench.action.terminal.sendSequence?{"text":">p\\r"})';

test("the probe's link: a link to VS Code as it was printed, none once made UI text, and it reads the same", () => {
  assert.deepEqual(vscodeLinks(`"holdfast 1" is waiting for you: ${SEND_SEQUENCE}`), [
    { label: 'Show', href: 'command:workbench.action.terminal.sendSequence?{"text":">p\\r"}' },
  ]);
  const shown = uiText(SEND_SEQUENCE);
  assert.deepEqual(vscodeLinks(shown), []);
  assert.equal(read(shown), SEND_SEQUENCE);
  record({
    item: 'hostile',
    name:
      "a background terminal's reason `[Show](command:workbench.action.terminal.sendSequence?…)` + BEL, in the " +
      "notification and the Reply… box; `$(icon)` in names, titles, directories and matches in VS Code's UI",
    value:
      'shown as text (a word joiner in "](" and "$("): 0 links and 0 icons by VS Code 1.139.1\'s own patterns; ' +
      'clicked where the link was, nothing typed (e2e attention; was: a link that typed into the active terminal)',
  });
});

test('every link form VS Code knows (schemes in any case, a title) and every icon form is neutralised', () => {
  const links = [
    '[a](https://evil.example/x)',
    '[a](HTTP://evil.example)',
    '[run](command:workbench.action.tasks.runTask?%5B%22x%22%5D "Run it")',
    "[open](file:///etc/passwd 'title')",
    '[x](Command:runCommands?{"commands":["workbench.action.terminal.new"]})',
  ];
  for (const text of links) {
    assert.equal(vscodeLinks(text).length, 1, text);
    assert.deepEqual(vscodeLinks(uiText(text)), [], text);
    assert.equal(read(uiText(text)), text);
  }
  for (const text of ['$(alert) fake', 'a$(sync~spin)b', '$(x)$(y)', '\\$(z) $(w)']) {
    assert.ok(vscodeIcons(text).length > 0, text);
    assert.deepEqual(vscodeIcons(uiText(text)), [], text);
    assert.equal(read(uiText(text)), text);
  }
});

test('control and bidi characters become visible escapes, as on a terminal', () => {
  assert.equal(uiText('a\x1b]0;x\x07\u202eb\nc'), printable('a\x1b]0;x\x07\u202eb\nc'));
  assert.equal(uiText('plain name ~/dev (1) [2] $HOME'), 'plain name ~/dev (1) [2] $HOME');
});

test('ui: literal icons stay; no link or icon forms where a literal meets a piece or pieces meet', () => {
  assert.deepEqual(vscodeIcons(ui`$(pinned) ${3} $(bell) ${1}`), ['pinned', 'bell']);
  const label = uiText('Show');
  const target = uiText('(command:workbench.action.terminal.sendSequence?{"text":"x"})');
  assert.deepEqual(vscodeLinks(ui`[${label}]${target}`), []);
  assert.equal(read(ui`[${label}]${target}`), '[Show](command:workbench.action.terminal.sendSequence?{"text":"x"})');
  assert.deepEqual(vscodeIcons(ui`$${uiText('(alert)')}`), []);
  assert.deepEqual(vscodeIcons(ui`${uiText('a$')}${uiText('(alert)')}`), []);
  const names = uiJoin([uiText('[a]'), uiText('(https://evil.example)')], ui``);
  assert.deepEqual(vscodeLinks(names), []);
  assert.equal(read(names), '[a](https://evil.example)');
  assert.deepEqual(vscodeIcons(uiJoin([uiText('$'), uiText('(x)')], ui``)), []);
});

test('uiIcon: a codicon name becomes its icon; anything else, nothing', () => {
  assert.equal(uiIcon('sparkle'), '$(sparkle)');
  assert.equal(uiIcon('sync~spin'), '$(sync~spin)');
  for (const bad of ['', 'x) [a](command:y', 'a b', '$(x)', 'x~']) assert.equal(uiIcon(bad), '', bad);
});

test('fuzz: 3,000 texts of link and icon pieces: none survives uiText, and each reads as it was', () => {
  const pieces = ['[a', ']', '](', '(', ')', '$(', '$', '\\', ' ', '"t"', 'x', 'command:x', 'https://e.x', '~spin'];
  let seed = 43;
  // mulberry32: the same texts every run.
  const next = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  let linked = 0;
  for (let i = 0; i < 3000; i++) {
    const pick = (list: readonly string[]) => list[Math.floor(next() * list.length)];
    // Whole links and icons among loose pieces, so that many texts hold one.
    const raw = Array.from({ length: 1 + Math.floor(next() * 8) }, () =>
      next() < 0.3 ? pick(['[a](command:x)', '[b](https://e.x "t")', '$(x)', '$(y~spin)']) : pick(pieces),
    ).join('');
    if (vscodeLinks(raw).length > 0 || vscodeIcons(raw).length > 0) linked++;
    const shown = uiText(raw);
    assert.deepEqual([vscodeLinks(shown), vscodeIcons(shown)], [[], []], raw);
    assert.equal(read(shown), raw);
    const [left, right] = [uiText(raw.slice(0, i % raw.length)), uiText(raw.slice(i % raw.length))];
    assert.deepEqual([vscodeLinks(ui`${left}${right}`), vscodeIcons(ui`${left}${right}`)], [[], []], raw);
  }
  assert.ok(linked > 1000, `the fuzz made links or icons to neutralise (${linked})`);
});
