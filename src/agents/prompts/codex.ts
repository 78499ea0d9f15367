// Codex CLI 0.169.0's approval prompt (captured from the real CLI in a Holdfast session:
// test/fixtures/codex-0.169.0), for a command (exec_command asking to run outside the sandbox) and an
// edit (apply_patch in a read-only sandbox), at 80 and 100 columns, whichever choice is highlighted:
//   Would you like to run the following command?     (or "to make the following edits?")
//                                                    (what it asks about, indented: Environment,
//   Reason: …                                         Reason, "$ command"; Description, Destination)
//   $ touch x
//                                                    (blank rows)
// › 1. Yes, proceed (y)
//   2. Yes, and don't ask again for commands that …  (a long choice wraps, indented by 5)
//   3. No, and tell Codex what to do differently (esc)
//                                                    (one blank row)
//   Press enter to confirm or esc to cancel          (then only blank rows)
// Typing a choice's number picks it at once, wherever the highlight is: "1" runs the command or makes
// the edit, the number of "No" refuses it ("You canceled the request to run …"). y approves and Esc
// refuses too; the numbers are used as for Claude Code (Esc waits on the terminal's escape timing).
import type { PermissionPrompt } from '../permissionPrompt';
import { numberedChoices } from './choices';

const QUESTION = /^ {2}(Would you like to (?:run the following command|make the following edits)\?)$/u;
const CHOICES = {
  /** "› 1. Yes, proceed (y)" highlighted, "  2. …" not. */
  choice: /^([› ]) ([1-9])\. (\S.*)$/u,
  highlight: '›',
  continuation: /^ {5}(\S.*)$/u,
};
const FOOTER = '  Press enter to confirm or esc to cancel';
const APPROVE_LABEL = 'Yes, proceed (y)';
const DENY_LABEL = 'No, and tell Codex what to do differently (esc)';
/** What it asks about: blank, or indented as the overlay indents it. */
const DETAIL = /^(?: {2,}\S.*)?$/u;

/** Where the choices above the row `above` start: the first of the choice and continuation rows over it. */
function choicesStart(rows: readonly string[], above: number): number {
  let start = above;
  while (start > 0 && (CHOICES.choice.test(rows[start - 1]) || CHOICES.continuation.test(rows[start - 1]))) start--;
  // An indented row over the first choice is what the prompt asks about, not a wrapped choice.
  while (start < above && !CHOICES.choice.test(rows[start])) start++;
  return start;
}

/** Codex's prompt: its footer the last text on the screen, the choices over it, the question above those. */
export function codexPrompt(rows: readonly string[]): PermissionPrompt | undefined {
  let footer = rows.length - 1;
  while (footer >= 0 && rows[footer] === '') footer--;
  if (footer < 2 || rows[footer] !== FOOTER || rows[footer - 1] !== '') return undefined;
  const start = choicesStart(rows, footer - 1);
  const choices = numberedChoices(rows, start, CHOICES);
  if (!choices || choices.end !== footer - 1) return undefined;
  const { labels } = choices;
  if (labels[0] !== APPROVE_LABEL || labels[labels.length - 1] !== DENY_LABEL) return undefined;
  // The question is the nearest one above, over nothing but what it asks about.
  let at = start - 1;
  while (at >= 0 && !QUESTION.test(rows[at]) && DETAIL.test(rows[at])) at--;
  const question = at >= 0 ? QUESTION.exec(rows[at])?.[1] : undefined;
  if (!question || rows[at + 1] !== '') return undefined;
  return { question, row: at, labels, keys: { approve: '1', deny: String(labels.length) }, top: at, bottom: footer };
}
