// Claude Code 2.1.328's permission prompt (captured from the real CLI in a Holdfast session:
// test/fixtures/claude-2.1.328), for Bash, Write and Edit, at 50 and 100 columns, whichever choice is
// highlighted:
//    Do you want to proceed?                  (or "to create x?", "to make this edit to x?")
//  ❯ 1. Yes
//    2. Yes, and always allow access to …     (a long choice wraps, indented by 6)
//    3. Yes, and switch to auto mode · …
//    4. No
//                                             (one blank row)
//    Esc to cancel · Tab to amend             (then only blank rows)
// Typing a choice's number picks it at once, wherever the highlight is: "1" runs the tool, the number
// of "No" refuses it ("Did not run 1 call", "Rejected write to x"). Esc refuses too; the number is
// used, being one printable key where Esc waits on the terminal's escape timing.
import type { PermissionPrompt } from '../permissionPrompt';
import { numberedChoices } from './choices';

const QUESTION = /^ (Do you want to (?:proceed|create .+|make this edit to .+)\?)$/u;
const CHOICES = {
  /** " ❯ 1. Yes" highlighted, "   2. No" not. */
  choice: /^ ([❯ ]) ([1-9])\. (\S.*)$/u,
  highlight: '❯',
  continuation: /^ {6}(\S.*)$/u,
};
const FOOTER = /^ Esc to cancel(?: · .+)?$/u;
/** The rule across the screen over the prompt's block ("Bash command", what it runs, the question). */
const RULE = /^─+$/u;

/** The first row of the block whose question is at `at`: the one under the rule above it. */
function blockTop(rows: readonly string[], at: number): number {
  for (let row = at - 1; row >= 0; row--) if (RULE.test(rows[row])) return row + 1;
  return at;
}

/** Claude Code's prompt whose question is at `rows[at]`, or undefined when the rows below do not fit it. */
function claudePromptAt(rows: readonly string[], at: number): PermissionPrompt | undefined {
  const question = QUESTION.exec(rows[at])?.[1];
  const choices = question ? numberedChoices(rows, at + 1, CHOICES) : undefined;
  if (!question || !choices) return undefined;
  const { labels, end } = choices;
  if (rows[end] !== '' || !FOOTER.test(rows[end + 1] ?? '')) return undefined;
  if (rows.slice(end + 2).some((r) => r !== '')) return undefined;
  if (labels[0] !== 'Yes' || labels[labels.length - 1] !== 'No') return undefined;
  const keys = { approve: '1', deny: String(labels.length) };
  return { question, row: at, labels, keys, top: blockTop(rows, at), bottom: end + 1 };
}

/** Claude Code's prompt: the last question on the screen, with its choices and footer below it. */
export function claudePrompt(rows: readonly string[]): PermissionPrompt | undefined {
  for (let at = rows.length - 1; at >= 0; at--) if (QUESTION.test(rows[at])) return claudePromptAt(rows, at);
  return undefined;
}
