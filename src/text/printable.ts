// Text from programs and clients (names, titles, directories, command lines, metadata, screen
// lines) made safe to print on a terminal: control and bidi-reordering characters become visible
// escapes, so no field can move the cursor, clear the screen, write the clipboard or reorder a line.

/**
 * C0 controls, DEL, C1 controls (U+0080-U+009F: U+009B is a one-character CSI), and the bidi
 * embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) plus the bidi marks
 * (U+061C, U+200E, U+200F), which reorder what a line appears to say.
 */
const UNPRINTABLE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** The same without "\n": for whole documents whose lines were built by us. */
const UNPRINTABLE_KEEP_NEWLINE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** What JSON.stringify leaves raw but a terminal acts on (it escapes C0 itself). */
const JSON_UNSAFE = /[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** One visible form everywhere: "\u{1b}" for ESC, "\u{9b}" for CSI, "\u{202e}" for RLO. */
export function visibleEscape(char: string): string {
  return `\\u{${char.codePointAt(0)!.toString(16)}}`;
}

/** One field: every unprintable character, newline and tab included, as a visible escape. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, visibleEscape);
}

/** A whole text made of lines: as printable, but its newlines kept (the last guard before stdout/stderr). */
export function printableLines(text: string): string {
  return text.replace(UNPRINTABLE_KEEP_NEWLINE, visibleEscape);
}

/** JSON.stringify, with DEL, C1 and bidi characters written as \uXXXX too: the same JSON value, safe on a terminal. */
export function safeJson(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replace(
    JSON_UNSAFE,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Whether `text` has a character printable() would escape (a control or a bidi reordering one). */
export function hasUnprintable(text: string): boolean {
  return UNPRINTABLE_ONE.test(text);
}

const UNPRINTABLE_ONE = new RegExp(UNPRINTABLE.source);

/** Whether `text` has a control character (C0, DEL or C1): such a path or id is refused, not escaped. */
export function hasControl(text: string): boolean {
  return /[\x00-\x1f\x7f-\x9f]/.test(text);
}

/** Errors are printed on one line, whatever the underlying message looked like. */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' | ').trim();
}
