// Recognises an agent's permission prompt on its screen and says which keys answer it, for the agents
// and versions whose prompt was checked against the real CLI; any other screen is no prompt, so
// Approve / Deny never type blind. Pure: the daemon checks a session's screen with it before
// sending (`answer`), and marks the session's attention with it.
//
// Claude Code 2.1.328 (captured from the real CLI in a Holdfast session: test/fixtures/claude-2.1.328),
// for Bash, Write and Edit, at 50 and 100 columns, whichever choice is highlighted:
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

/** The choices an answer can make. */
export type PromptChoice = 'approve' | 'deny';

export interface PermissionPrompt {
  /** The question, e.g. "Do you want to proceed?", and its row on the screen (what it asks about is above). */
  readonly question: string;
  readonly row: number;
  /** The choices' labels in order (choice n is labels[n - 1]), wrapped lines joined. */
  readonly labels: readonly string[];
  /** The keys that make each choice. */
  readonly keys: { readonly [C in PromptChoice]: string };
}

/** The agent versions whose prompt this module knows, by built-in profile (for docs and messages). */
export const VERIFIED_PROMPTS: { readonly [profile: string]: string } = { claude: 'Claude Code 2.1.328' };

const QUESTION = /^ (Do you want to (?:proceed|create .+|make this edit to .+)\?)$/u;
/** A choice: " ❯ 1. Yes" highlighted, "   2. No" not. */
const CHOICE = /^ ([❯ ]) ([1-9])\. (\S.*)$/u;
/** A wrapped choice's next row. */
const CONTINUATION = /^ {6}(\S.*)$/u;
const FOOTER = /^ Esc to cancel(?: · .+)?$/u;
/** The highest number a one-key answer can pick. */
const MAX_CHOICES = 9;

/** Claude Code's prompt whose question is at `rows[at]`, or undefined when the rows below do not fit it. */
function claudePromptAt(rows: readonly string[], at: number): PermissionPrompt | undefined {
  const question = QUESTION.exec(rows[at])?.[1];
  if (!question) return undefined;
  const labels: string[] = [];
  let highlighted = 0;
  let row = at + 1;
  for (; row < rows.length; row++) {
    const choice = CHOICE.exec(rows[row]);
    const continuation = CONTINUATION.exec(rows[row]);
    if (choice) {
      if (Number(choice[2]) !== labels.length + 1) return undefined;
      if (choice[1] === '❯') highlighted++;
      labels.push(choice[3]);
    } else if (continuation && labels.length > 0) labels[labels.length - 1] += ` ${continuation[1]}`;
    else break;
  }
  if (highlighted !== 1 || labels.length < 2 || labels.length > MAX_CHOICES) return undefined;
  if (rows[row] !== '' || !FOOTER.test(rows[row + 1] ?? '')) return undefined;
  if (rows.slice(row + 2).some((r) => r !== '')) return undefined;
  if (labels[0] !== 'Yes' || labels[labels.length - 1] !== 'No') return undefined;
  return { question, row: at, labels, keys: { approve: '1', deny: String(labels.length) } };
}

/** Claude Code's prompt: the last question on the screen, with its choices and footer below it. */
function claudePrompt(rows: readonly string[]): PermissionPrompt | undefined {
  for (let at = rows.length - 1; at >= 0; at--) if (QUESTION.test(rows[at])) return claudePromptAt(rows, at);
  return undefined;
}

const RECOGNISERS: { readonly [profile: string]: (rows: readonly string[]) => PermissionPrompt | undefined } = {
  claude: claudePrompt,
};

/**
 * The permission prompt on a screen (its rows, top to bottom, trailing blanks trimmed or not) of a
 * session running the built-in agent `profile`; undefined for any other screen or agent.
 */
export function findPermissionPrompt(
  profile: string | undefined,
  rows: readonly string[],
): PermissionPrompt | undefined {
  const recognise = profile !== undefined && Object.hasOwn(RECOGNISERS, profile) ? RECOGNISERS[profile] : undefined;
  return recognise?.(rows.map((r) => r.trimEnd()));
}
