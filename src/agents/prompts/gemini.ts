// Gemini CLI 0.61.0's tool confirmation (captured from the real CLI in a Holdfast session:
// test/fixtures/gemini-0.61.0), in its default approval mode, for run_shell_command and write_file,
// at 80 and 100 columns, whichever choice is highlighted:
// ╭──────────────────────────────────────╮
// │ ? Shell  touch x                     │      (the tool and what it does, then a box with the
// │ ╭──────────────────────────────────╮ │       command or the file's new lines)
// │ │ touch x                          │ │
// │ ╰──────────────────────────────────╯ │
// │ Allow execution of [Shell]?          │      (or "Apply this change?")
// │                                      │
// │ ● 1. Allow once                      │
// │   2. Allow for this session          │      (an edit has "Modify with external editor" next)
// │   3. No, suggest changes (esc)       │
// ╰──────────────────────────────────────╯      (then only blank rows)
// Typing a choice's number picks it at once, wherever the highlight is: "1" runs the tool, the number
// of "No" refuses it ("Request cancelled."). Esc refuses too; the number is used as for Claude Code.
import type { PermissionPrompt } from '../permissionPrompt';
import { numberedChoices } from './choices';

const TOP = /^╭─+╮$/u;
const BOTTOM = /^╰─+╯$/u;
const QUESTION = /^│ (Allow execution of \[Shell\]\?|Apply this change\?) +│$/u;
const BLANK = /^│ +│$/u;
/** A row inside the box. */
const INSIDE = /^│.*│$/u;
const CHOICES = {
  /** "│ ● 1. Allow once   │" highlighted, "│   2. …   │" not. */
  choice: /^│ ([● ]) ([1-9])\. (\S.*?) *│$/u,
  highlight: '●',
};
const APPROVE_LABEL = 'Allow once';
const DENY_LABEL = 'No, suggest changes (esc)';

/** The row of the box's top over `below`, or -1 when the rows up to it are not all inside one box. */
function boxTop(rows: readonly string[], below: number, width: number): number {
  for (let at = below - 1; at >= 0; at--) {
    if (TOP.test(rows[at])) return rows[at].length === width ? at : -1;
    if (!INSIDE.test(rows[at])) return -1;
  }
  return -1;
}

/** Gemini CLI's prompt: its box the last text on the screen, ending in the choices under the question. */
export function geminiPrompt(rows: readonly string[]): PermissionPrompt | undefined {
  let bottom = rows.length - 1;
  while (bottom >= 0 && rows[bottom] === '') bottom--;
  if (bottom < 0 || !BOTTOM.test(rows[bottom])) return undefined;
  const width = rows[bottom].length;
  let start = bottom;
  while (start > 0 && CHOICES.choice.test(rows[start - 1])) start--;
  const choices = numberedChoices(rows, start, CHOICES);
  if (!choices || choices.end !== bottom || start < 2) return undefined;
  const at = start - 2;
  const question = QUESTION.exec(rows[at])?.[1];
  if (!question || !BLANK.test(rows[start - 1])) return undefined;
  const top = boxTop(rows, at, width);
  if (rows.slice(at, bottom).some((r) => r.length !== width) || top < 0) return undefined;
  const { labels } = choices;
  if (labels[0] !== APPROVE_LABEL || labels[labels.length - 1] !== DENY_LABEL) return undefined;
  return { question, row: at, labels, keys: { approve: '1', deny: String(labels.length) }, top, bottom };
}
