// Why a session waits or is done, in one short printable line: the end of its agent's last message
// (from the agent's transcript, read in a worker: textJobs.ts) or the last lines of text on its screen.
// The end, because an agent ends its turn on its question. Pure, unit-tested.
import { printable } from '../../text/printable';

/** A reason is at most this long: enough for a question, small in every 'attention' event. */
export const MAX_REASON_CHARS = 200;

/** Box drawing, block elements and geometric shapes: an agent's frames and input boxes, not text. */
const FRAME = /^[\s\u2500-\u25ff]+|[\s\u2500-\u25ff]+$/gu;
const HAS_TEXT = /[\p{L}\p{N}]/u;
/** Between the lines joined into one. */
const SEPARATOR = ' · ';

/** The line's text without the frame around it; '' when nothing but frame and blanks is left. */
function framedText(line: string): string {
  const text = line.replace(FRAME, '').replace(/\s+/g, ' ');
  return HAS_TEXT.test(text) ? text : '';
}

/**
 * The last of `lines` (oldest first) joined into one line of at most MAX_REASON_CHARS, made
 * printable; cut at its start ("…") when longer. Undefined when they hold no text.
 */
function lastOf(lines: readonly string[]): string | undefined {
  const kept: string[] = [];
  let length = 0;
  for (let i = lines.length - 1; i >= 0 && length < MAX_REASON_CHARS; i--) {
    const text = printable(framedText(lines[i]));
    if (!text) continue;
    kept.unshift(text);
    length += text.length + SEPARATOR.length;
  }
  if (kept.length === 0) return undefined;
  const joined = kept.join(SEPARATOR);
  if (joined.length <= MAX_REASON_CHARS) return joined;
  return `…${joined.slice(joined.length - MAX_REASON_CHARS + 1).trimStart()}`;
}

/** The reason from a screen's rows (top to bottom): its last lines of text. */
export function screenReason(rows: readonly string[]): string | undefined {
  return lastOf(rows);
}

/** The reason at a permission prompt: its question and what it asks about above it, not its choices. */
export function promptReason(rows: readonly string[], prompt: { question: string; row: number }): string {
  return screenReason(rows.slice(0, prompt.row + 1)) ?? prompt.question;
}

/**
 * The reason from a transcript's readable lines (transcriptFormats.ts: `user: ...`, `assistant: ...`
 * with continuation lines indented, `tool: ...`): the end of the agent's last message, when that
 * message is the conversation's last word. After a tool call or the user's message there is none: the
 * agent is at a tool's prompt or still working, and the screen says more.
 */
export function transcriptReason(lines: readonly string[]): string | undefined {
  let start = lines.length - 1;
  while (start >= 0 && lines[start].startsWith('  ')) start--;
  if (start < 0 || !lines[start].startsWith('assistant: ')) return undefined;
  const message = [lines[start].slice('assistant: '.length), ...lines.slice(start + 1).map((l) => l.slice(2))];
  return lastOf(message);
}
