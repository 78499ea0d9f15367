// Where a run of plain text lets parsing skip ahead. Plain bytes (printable ASCII, TAB, CR, LF) only
// move the cursor and write the rows it passes over, and a row below the last one is a new, blank
// row: once enough line feeds follow a CR, every row that was there before it has scrolled out of
// all a session keeps (screen, xterm's scrollback and the history store), and what the text before
// that CR wrote with it. From that CR on, the parse's outcome is the same whatever came before it
// (the CR puts the cursor in column 0), so the text before it need not be parsed, when the terminal's
// state allows it: the normal screen, scrolling as a whole, the parser between sequences and characters.
import type { Terminal } from '@xterm/headless';
import { core } from './xtermInternals';

/** Bytes whose parse changes no state but the cursor's position and the text of rows. */
const PLAIN = new Uint8Array(256);
for (let byte = 0x20; byte < 0x7f; byte++) PLAIN[byte] = 1;
for (const byte of [0x09, 0x0a, 0x0d]) PLAIN[byte] = 1;

const CR = 0x0d;
const LF = 0x0a;

/** xterm's parser state between sequences and characters. */
const PARSER_GROUND = 0;

/**
 * LFs after a CR that push every row there was before it out of the screen, xterm's rows and the
 * history store (`scrollback` lines), or undefined if the terminal's state does not allow skipping.
 */
export function linesToSkip(terminal: Terminal, scrollback: number): number | undefined {
  const c = core(terminal);
  const buffer = c.buffer;
  const input = c._inputHandler;
  if (
    buffer !== c.buffers.normal ||
    buffer.scrollTop !== 0 ||
    buffer.scrollBottom !== terminal.rows - 1 ||
    input._parser.currentState !== PARSER_GROUND ||
    input._utf8Decoder.interim[0] !== 0
  )
    return undefined;
  // The cursor may start on the top row; xterm holds at most the screen and the scrollback.
  return scrollback + 2 * terminal.rows + 1;
}

/** A position in a queue of chunks. */
export interface QueuePoint {
  chunk: number;
  offset: number;
}

/**
 * The last CR of the plain run that starts at `from` which at least `lines` of the run's LFs follow,
 * if it is past `from`: parsing may resume there. The screen is the same as if all was parsed only
 * once those LFs are: at the run's end (not at the end of the chunk the CR is in).
 */
export function skipTarget(
  chunks: readonly Uint8Array[],
  from: QueuePoint,
  lines: number,
): { resume: QueuePoint; runEnd: QueuePoint } | undefined {
  // The run's end, and its LFs.
  let feeds = 0;
  let end: QueuePoint = { chunk: chunks.length, offset: 0 };
  scan: for (let c = from.chunk; c < chunks.length; c++) {
    const chunk = chunks[c];
    for (let i = c === from.chunk ? from.offset : 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (PLAIN[byte] === 0) {
        end = { chunk: c, offset: i };
        break scan;
      }
      if (byte === LF) feeds++;
    }
  }
  if (feeds < lines) return undefined;
  // Back from the end: past `lines` LFs, the first CR.
  feeds = 0;
  for (let c = Math.min(end.chunk, chunks.length - 1); c >= from.chunk; c--) {
    const chunk = chunks[c];
    const first = c === from.chunk ? from.offset : 0;
    for (let i = c === end.chunk ? end.offset - 1 : chunk.length - 1; i >= first; i--) {
      const byte = chunk[i];
      if (feeds >= lines && byte === CR)
        return c === from.chunk && i === from.offset ? undefined : { resume: { chunk: c, offset: i }, runEnd: end };
      if (byte === LF) feeds++;
    }
  }
  return undefined;
}
