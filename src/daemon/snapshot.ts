// Renders the emulator's state as VT bytes that rebuild it in a fresh (or reset) terminal.
// @xterm/addon-serialize gives text, colours, alternate screen and cursor position; the rest
// (modes, mouse encoding, hidden cursor, scroll region, title, the current pen) comes from the
// emulator's state, some of it internal (see FACTS.md).
import type { SerializeAddon } from '@xterm/addon-serialize';
import type { Terminal } from '@xterm/headless';

/** Full reset, then clear the scrollback: the receiver may be showing an older screen. */
export const SNAPSHOT_PREFIX = '\x1bc\x1b[3J';

interface AttributeData {
  isBold(): number;
  isDim(): number;
  isItalic(): number;
  isUnderline(): number;
  isBlink(): number;
  isInverse(): number;
  isInvisible(): number;
  isStrikethrough(): number;
  isOverline(): number;
  isFgRGB(): boolean;
  isBgRGB(): boolean;
  isFgPalette(): boolean;
  isBgPalette(): boolean;
  getFgColor(): number;
  getBgColor(): number;
  getUnderlineStyle?(): number;
}

/** The internals we read; all of them exist in @xterm/headless 6 (checked in FACTS.md and tests). */
interface CoreInternals {
  coreService: { isCursorHidden: boolean; decPrivateModes: { cursorStyle?: string; cursorBlink?: boolean } };
  coreMouseService: { activeEncoding: string };
  buffer: { scrollTop: number; scrollBottom: number; x: number; y: number };
  _inputHandler: { _curAttrData: AttributeData };
}

function core(terminal: Terminal): CoreInternals {
  return (terminal as unknown as { _core: CoreInternals })._core;
}

const MOUSE_TRACKING: Record<string, string> = { x10: '\x1b[?9h', vt200: '\x1b[?1000h', drag: '\x1b[?1002h', any: '\x1b[?1003h' };
const MOUSE_ENCODING: Record<string, string> = { SGR: '\x1b[?1006h', SGR_PIXELS: '\x1b[?1016h' };
const CURSOR_STYLE: Record<string, number> = { block: 2, underline: 4, bar: 6 };

export function renderSnapshot(terminal: Terminal, serializer: SerializeAddon, title: string, scrollback?: number): string {
  const internals = core(terminal);
  const modes = terminal.modes;
  const buffer = internals.buffer;
  let out = SNAPSHOT_PREFIX;
  out += serializer.serialize({ excludeModes: true, ...(scrollback === undefined ? {} : { scrollback }) });

  if (title) out += `\x1b]2;${title.replace(/[\x00-\x1f\x7f]/g, '')}\x07`;

  const cursorRow = buffer.y;
  const cursorCol = Math.min(buffer.x, terminal.cols - 1);
  // DECSTBM and DECOM both home the cursor, so the cursor is placed again after them.
  if (buffer.scrollTop !== 0 || buffer.scrollBottom !== terminal.rows - 1) {
    out += `\x1b[${buffer.scrollTop + 1};${buffer.scrollBottom + 1}r`;
  }
  if (modes.originMode) out += `\x1b[?6h\x1b[${cursorRow - buffer.scrollTop + 1};${cursorCol + 1}H`;
  else out += `\x1b[${cursorRow + 1};${cursorCol + 1}H`;

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
  if (cursorStyle && CURSOR_STYLE[cursorStyle] !== undefined) out += `\x1b[${CURSOR_STYLE[cursorStyle] - (cursorBlink ? 1 : 0)} q`;
  if (internals.coreService.isCursorHidden) out += '\x1b[?25l';
  out += penSgr(internals._inputHandler._curAttrData);
  if (modes.synchronizedOutputMode) out += '\x1b[?2026h';
  return out;
}

/** The SGR sequence that sets the pen the program is currently writing with. */
export function penSgr(attr: AttributeData): string {
  const params: string[] = ['0'];
  if (attr.isBold()) params.push('1');
  if (attr.isDim()) params.push('2');
  if (attr.isItalic()) params.push('3');
  if (attr.isUnderline()) {
    const style = attr.getUnderlineStyle?.() ?? 1;
    params.push(style > 1 ? `4:${style}` : '4');
  }
  if (attr.isBlink()) params.push('5');
  if (attr.isInverse()) params.push('7');
  if (attr.isInvisible()) params.push('8');
  if (attr.isStrikethrough()) params.push('9');
  if (attr.isOverline()) params.push('53');
  params.push(...colour(attr.isFgRGB(), attr.isFgPalette(), attr.getFgColor(), 30, 90, 38));
  params.push(...colour(attr.isBgRGB(), attr.isBgPalette(), attr.getBgColor(), 40, 100, 48));
  return `\x1b[${params.join(';')}m`;
}

function colour(rgb: boolean, palette: boolean, value: number, base: number, brightBase: number, extended: number): string[] {
  if (rgb) return [`${extended};2;${(value >> 16) & 0xff};${(value >> 8) & 0xff};${value & 0xff}`];
  if (!palette) return [];
  if (value < 8) return [String(base + value)];
  if (value < 16) return [String(brightBase + value - 8)];
  return [`${extended};5;${value}`];
}
