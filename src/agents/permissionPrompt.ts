// Recognises an agent's permission prompt on its screen and says which keys answer it, for the agents
// and versions whose prompt was checked against the real CLI; any other screen is no prompt, so
// Approve / Deny never type blind. Pure: the daemon checks a session's screen with it before
// sending (`answer`), and marks the session's attention with it. Each agent's layout, and how its
// keys were checked, is in its own file in ./prompts.
import { createHash } from 'node:crypto';
import { claudePrompt } from './prompts/claude';
import { codexPrompt } from './prompts/codex';
import { geminiPrompt } from './prompts/gemini';

/** The choices an answer can make. */
export type PromptChoice = 'approve' | 'deny';

export interface PermissionPrompt {
  /** The question, e.g. "Do you want to proceed?", and its row on the screen. */
  readonly question: string;
  readonly row: number;
  /** The choices' labels in order (choice n is labels[n - 1]), wrapped lines joined. */
  readonly labels: readonly string[];
  /** The keys that make each choice. */
  readonly keys: { readonly [C in PromptChoice]: string };
  /**
   * The prompt's block, its first and last rows: what it asks about, the question, the choices (and a footer).
   * The answer goes to what is drawn there; it is shown before an answer the agent's own hook did not confirm.
   */
  readonly top: number;
  readonly bottom: number;
}

interface KnownPrompt {
  /** The agent and the version whose prompt was captured. */
  readonly version: string;
  /** The prompt on a screen (rows top to bottom, trimmed at their end), or undefined. */
  readonly recognise: (rows: readonly string[]) => PermissionPrompt | undefined;
}

/** By built-in profile. */
const KNOWN: { readonly [profile: string]: KnownPrompt } = {
  claude: { version: 'Claude Code 2.1.328', recognise: claudePrompt },
  codex: { version: 'Codex CLI 0.169.0', recognise: codexPrompt },
  gemini: { version: 'Gemini CLI 0.61.0', recognise: geminiPrompt },
};

/** The agent versions whose prompt this module knows, by built-in profile (for docs and messages). */
export const VERIFIED_PROMPTS: { readonly [profile: string]: string } = Object.fromEntries(
  Object.entries(KNOWN).map(([profile, known]) => [profile, known.version]),
);

/**
 * The permission prompt on a screen (its rows, top to bottom, trailing blanks trimmed or not) of a
 * session running the built-in agent `profile`; undefined for any other screen or agent.
 */
export function findPermissionPrompt(
  profile: string | undefined,
  rows: readonly string[],
): PermissionPrompt | undefined {
  const known = profile !== undefined && Object.hasOwn(KNOWN, profile) ? KNOWN[profile] : undefined;
  return known?.recognise(rows.map((r) => r.trimEnd()));
}

/** The prompt's block as its screen shows it, row by row (ends trimmed). */
export function promptArea(rows: readonly string[], prompt: Pick<PermissionPrompt, 'top' | 'bottom'>): string[] {
  return rows.slice(prompt.top, prompt.bottom + 1).map((r) => r.trimEnd());
}

/**
 * A short digest of a prompt's block: what a client shows the user is named by it in `answer`, and the daemon
 * sends the keys only if the block on the screen has the same one (and so does the prompt a hook confirmed).
 */
export function promptAreaDigest(area: readonly string[]): string {
  return createHash('sha256').update(area.join('\n')).digest('hex').slice(0, 16);
}
