// A session's text as the readers of its history see it (`read` with scrollback, search, text waits):
// logical lines, wrapped rows and stored pieces joined, built from a copy that any thread can decode.
import { MAX_LINE_CHARS } from '../../protocol/limits';
import { CONTINUED, decodeStoredLines, pieceText, plainText, plainTextOf, type StoredLines } from './historyStore';

/**
 * The line in front of the rows of each stay on the alternate screen (and of what is kept when the
 * oldest rows were dropped): readers of the history (`read`, search, the history document) show it.
 */
export const ALTERNATE_MARKER = "── scrolled off a full-screen program's screen (alternate screen) ──";

/** After those lines when the normal screen's history follows them (the program left the alternate screen). */
export const ALTERNATE_END = "── end of the lines from a full-screen program's screen ──";

/** The daemon's own lines around the rows (a row with the same text is taken for one). */
export function isAlternateMarker(line: string): boolean {
  return line === ALTERNATE_MARKER || line === ALTERNATE_END;
}

/** The kept rows as copied for a reader: the newest stored ones, and whether ALTERNATE_END follows them. */
export interface AlternateCopy {
  stored: StoredLines;
  end: boolean;
}

/** The lines of a copy as text: the marker first, then the rows, then ALTERNATE_END when the copy says so. */
export function alternateText(copy: AlternateCopy): string[] {
  const stored = decodeStoredLines(copy.stored).map(plainText);
  // The oldest stored line may be the marker itself.
  if (stored[0] === ALTERNATE_MARKER) stored.shift();
  return [ALTERNATE_MARKER, ...stored, ...(copy.end ? [ALTERNATE_END] : [])];
}

/**
 * What a reader needs of a session's active buffer, copied on the main thread (memcpy and row text,
 * no decoding): rows that left the alternate screen, the history store's lines (pieces end with
 * CONTINUED), then the emulator's own rows down to the screen's last.
 */
export interface SessionTextCopy {
  alternate?: AlternateCopy;
  stored: StoredLines;
  /** Each row's text; a row the next one continues keeps its trailing spaces. */
  rows: string[];
  /** rows[i] continues rows[i - 1] (a soft wrap). */
  wrapped: boolean[];
  /** Index in `rows` of the screen's top row. */
  screenRow: number;
}

/** A session's text as logical lines; `alternate`: how many come first from the alternate screen. */
export interface LogicalText {
  lines: string[];
  alternate: number;
  /** The line that holds the screen's top row (`read`'s screen part starts there). */
  screenFrom: number;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** Joins pieces into lines of at most MAX_LINE_CHARS characters; a longer line goes on in the next. */
class LineJoiner {
  private parts: string[] = [];
  private chars = 0;
  private open = false;

  constructor(readonly lines: string[]) {}

  add(text: string, continues: boolean): void {
    if (!this.open && !continues && text.length <= MAX_LINE_CHARS) {
      this.lines.push(text);
      return;
    }
    while (this.chars + text.length > MAX_LINE_CHARS) {
      let cut = MAX_LINE_CHARS - this.chars;
      // A character is never split in two.
      if (cut > 0 && isHighSurrogate(text.charCodeAt(cut - 1))) cut--;
      if (cut > 0) {
        this.parts.push(text.slice(0, cut));
        text = text.slice(cut);
      }
      this.open = true;
      this.end();
    }
    this.parts.push(text);
    this.chars += text.length;
    this.open = true;
    if (!continues) this.end();
  }

  /** Ends the open line, if any. */
  end(): void {
    if (!this.open) return;
    this.lines.push(this.parts.length === 1 ? this.parts[0] : this.parts.join(''));
    this.parts = [];
    this.chars = 0;
    this.open = false;
  }
}

/** Decodes a copy into logical lines (inflating the store's blocks: meant for a worker thread). */
export function logicalLines(copy: SessionTextCopy): LogicalText {
  const lines = copy.alternate ? alternateText(copy.alternate) : [];
  const alternate = lines.length;
  const joiner = new LineJoiner(lines);
  for (const encoded of decodeStoredLines(copy.stored)) {
    if (!encoded.endsWith(CONTINUED)) joiner.add(plainTextOf(encoded), false);
    else joiner.add(pieceText(encoded).text, true);
  }
  let screenFrom = lines.length;
  for (let i = 0; i < copy.rows.length; i++) {
    if (!copy.wrapped[i]) joiner.end();
    if (i === copy.screenRow) screenFrom = lines.length;
    joiner.add(copy.rows[i], !!copy.wrapped[i + 1]);
  }
  joiner.end();
  return { lines, alternate, screenFrom };
}

/**
 * What `read` with scrollback answers: the last `scrollback` logical lines above the screen, then the
 * screen's; above the active buffer's own history, the rows that scrolled off the alternate screen,
 * behind their marker, which a cut through them keeps too.
 */
export function linesToRead(copy: SessionTextCopy, scrollback: number): string[] {
  const text = logicalLines(copy);
  const from = Math.max(0, text.screenFrom - scrollback);
  if (from > 0 && from < text.alternate) return [ALTERNATE_MARKER, ...text.lines.slice(from + 1)];
  return text.lines.slice(from);
}
