// Renders the emulator's state as VT bytes that rebuild it in a fresh (or reset) terminal:
// the buffers cell for cell (screenSerializer.ts), then what lives in the emulator's state, some of
// it internal (xtermInternals.ts): scroll region, cursor (including a pending wrap), modes, mouse
// encoding, cursor style and visibility, the pen the program writes with, and the title.
import type { Terminal } from '@xterm/headless';
import { type RowMarks, serializeBuffers, sgrFor } from './screenSerializer';
import { SNAPSHOT_PREFIX } from '../common/emulatorProtocol';
import { core, type PackedCell } from './xtermInternals';

type PenCell = PackedCell;

const MOUSE_TRACKING: Record<string, string> = {
  x10: '\x1b[?9h',
  vt200: '\x1b[?1000h',
  drag: '\x1b[?1002h',
  any: '\x1b[?1003h',
};
const MOUSE_ENCODING: Record<string, string> = { SGR: '\x1b[?1006h', SGR_PIXELS: '\x1b[?1016h' };
const CURSOR_STYLE: Record<string, number> = { block: 2, underline: 4, bar: 6 };

/** A shell's command marks to replay (shellMarks.ts): what goes first (its properties), and per row. */
export interface SnapshotMarks {
  lead: string;
  rows: RowMarks;
}

/**
 * `history`: encoded lines from the history store, older than the emulator's own scrollback;
 * `skippedRows`: rows at the top of xterm's buffer that the store already has.
 */
export function renderSnapshot(
  terminal: Terminal,
  title: string,
  scrollback?: number,
  history: string[] = [],
  skippedRows = 0,
  marks?: SnapshotMarks,
): string {
  const internals = core(terminal);
  const modes = terminal.modes;
  const buffer = internals.buffer;
  let out = SNAPSHOT_PREFIX + (marks?.lead ?? '');
  out += serializeBuffers(terminal, scrollback, history, skippedRows, marks?.rows);

  if (title) out += `\x1b]2;${title.replace(/[\x00-\x1f\x7f]/g, '')}\x07`;

  // DECSTBM and DECOM both home the cursor, so the cursor is placed after them.
  if (buffer.scrollTop !== 0 || buffer.scrollBottom !== terminal.rows - 1) {
    out += `\x1b[${buffer.scrollTop + 1};${buffer.scrollBottom + 1}r`;
  }
  const outsideRegion = buffer.y < buffer.scrollTop || buffer.y > buffer.scrollBottom;
  if (modes.originMode && outsideRegion) {
    // Only a restored cursor (DECRC) sits outside an origin-mode region: place it, save it, restore it.
    out += `${pendingWrapOrCursor(terminal, buffer.y, buffer.x, buffer.y)}\x1b7\x1b[?6h\x1b8`;
  } else {
    if (modes.originMode) out += '\x1b[?6h';
    out += pendingWrapOrCursor(terminal, modes.originMode ? buffer.y - buffer.scrollTop : buffer.y, buffer.x, buffer.y);
  }

  if (modes.applicationCursorKeysMode) out += '\x1b[?1h';
  if (modes.applicationKeypadMode) out += '\x1b=';
  if (modes.bracketedPasteMode) out += '\x1b[?2004h';
  if (modes.insertMode) out += '\x1b[4h';
  if (modes.reverseWraparoundMode) out += '\x1b[?45h';
  if (modes.sendFocusMode) out += '\x1b[?1004h';
  if (!modes.wraparoundMode) out += '\x1b[?7l';
  out += MOUSE_TRACKING[modes.mouseTrackingMode] ?? '';
  out += MOUSE_ENCODING[internals.coreMouseService.activeEncoding] ?? '';
  const { cursorStyle, cursorBlink } = internals.coreService.decPrivateModes;
  if (cursorStyle && CURSOR_STYLE[cursorStyle] !== undefined)
    out += `\x1b[${CURSOR_STYLE[cursorStyle] - (cursorBlink ? 1 : 0)} q`;
  if (internals.coreService.isCursorHidden) out += '\x1b[?25l';
  out += sgrFor(internals._inputHandler._curAttrData);
  if (modes.synchronizedOutputMode) out += '\x1b[?2026h';
  return out;
}

/**
 * Places the cursor. After a character is written in the last column the cursor waits past it
 * (x == cols) so that the next character wraps; no cursor movement reaches that state, so the
 * last character is written again, with its own attributes.
 */
function pendingWrapOrCursor(terminal: Terminal, row: number, x: number, y: number): string {
  if (x < terminal.cols) return `\x1b[${row + 1};${x + 1}H`;
  const active = terminal.buffer.active;
  const line = active.getLine(active.baseY + y);
  const cell = active.getNullCell() as PenCell & { getChars(): string; getWidth(): number };
  let col = terminal.cols - 1;
  line?.getCell(col, cell);
  if (cell.getWidth() === 0 && col > 0) line?.getCell(--col, cell);
  // An empty last cell (scrolled or erased since) is drawn the same as a space.
  const chars = cell.getChars() || ' ';
  // With wraparound off the cursor stays in the last column, so the rewrite must not wrap either.
  return `\x1b[${row + 1};${col + 1}H${sgrFor(cell)}${chars}`;
}
