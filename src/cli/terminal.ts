// The user's terminal during `attach`: raw mode, the reset written on every way out, and the
// bits of screen state (alternate screen) the reset must know about.

const ESC = '\x1b';

/**
 * Undoes every mode a program in the session may have left on in the user's terminal. DECSTBM
 * homes the cursor, so it is wrapped in save/restore; SGR and origin mode are reset before the save.
 */
export const TERMINAL_RESET = [
  `${ESC}[?2026l`, // end any synchronized update, or the terminal stops painting
  `${ESC}[0m`, // SGR
  `${ESC}[?6l`, // origin mode
  `${ESC}7${ESC}[r${ESC}8`, // scroll region, cursor kept where it is
  `${ESC}(B\x0f`, // G0 = ASCII, shift in (no line-drawing leftovers)
  // mouse tracking and encodings
  `${ESC}[?1000l${ESC}[?1002l${ESC}[?1003l${ESC}[?1005l${ESC}[?1006l${ESC}[?1015l${ESC}[?1016l`,
  `${ESC}[?1004l`, // focus events
  `${ESC}[?2004l`, // bracketed paste
  `${ESC}[?1l${ESC}>`, // application cursor keys, application keypad
  `${ESC}[?7h`, // wraparound
  `${ESC}[4l`, // insert mode
  `${ESC}[<u`, // kitty keyboard protocol: pop what the program pushed
  `${ESC}[>4m`, // xterm modifyOtherKeys off
  `${ESC}[0 q`, // cursor shape: the terminal's default
  `${ESC}[?25h`, // show the cursor
].join('');

/** Leaves the alternate screen (restoring the user's screen and cursor), only if it is active. */
export const LEAVE_ALT_SCREEN = `${ESC}[?1049l`;

/** What a fresh snapshot is drawn on: modes reset, screen cleared, cursor home. */
export function snapshotPrefix(altScreen: boolean): string {
  return (altScreen ? LEAVE_ALT_SCREEN : '') + TERMINAL_RESET + `${ESC}[H${ESC}[2J`;
}

export function restoreSequence(altScreen: boolean): string {
  return (altScreen ? LEAVE_ALT_SCREEN : '') + TERMINAL_RESET;
}

const DEC_MODE = /\x1b\[\?([\d;]+)([hl])/g;
const ALT_MODES = new Set(['47', '1047', '1049']);

/**
 * Follows whether the session's screen is the alternate one. The daemon forwards output only at
 * whole-sequence boundaries, so a set/reset never straddles two chunks.
 */
export class AltScreenTracker {
  active = false;

  feed(bytes: Uint8Array): void {
    const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (buf.indexOf('\x1b[?') < 0) return;
    const text = buf.toString('latin1');
    for (const match of text.matchAll(DEC_MODE)) {
      if (match[1].split(';').some((p) => ALT_MODES.has(p))) this.active = match[2] === 'h';
    }
  }
}

/** Extra encodings of a ctrl key when the program turned on kitty keys or modifyOtherKeys. */
export function detachSequences(bytes: Buffer): Buffer[] {
  const sequences = [bytes];
  if (bytes.length === 1 && bytes[0] >= 0x01 && bytes[0] <= 0x1d && bytes[0] !== 0x1b) {
    const code = bytes[0] <= 0x1a ? 0x60 + bytes[0] : bytes[0] + 0x40; // ctrl-a → 'a', ctrl-\ → '\'
    sequences.push(Buffer.from(`${ESC}[${code};5u`), Buffer.from(`${ESC}[27;5;${code}~`));
  }
  return sequences;
}

/** Finds the earliest detach sequence in a chunk of input: its offset, or -1. */
export function findDetach(chunk: Buffer, sequences: Buffer[]): number {
  let first = -1;
  for (const seq of sequences) {
    const at = chunk.indexOf(seq);
    if (at >= 0 && (first < 0 || at < first)) first = at;
  }
  return first;
}

const FULL_RESET = Buffer.from(`${ESC}c`);
const CLEAR_SCROLLBACK = Buffer.from(`${ESC}[3J`);

/**
 * A snapshot starts with RIS and "erase scrollback", right for a fresh emulator but harsh on the
 * user's own terminal: the first snapshot keeps the user's scrollback (snapshotPrefix has already
 * reset the modes and cleared the screen); a resync still clears it, so history is not doubled.
 */
export function withoutFullReset(snapshot: Buffer, resync: boolean): Buffer {
  let body = snapshot;
  if (body.subarray(0, FULL_RESET.length).equals(FULL_RESET)) body = body.subarray(FULL_RESET.length);
  if (!resync && body.subarray(0, CLEAR_SCROLLBACK.length).equals(CLEAR_SCROLLBACK))
    body = body.subarray(CLEAR_SCROLLBACK.length);
  return body;
}
