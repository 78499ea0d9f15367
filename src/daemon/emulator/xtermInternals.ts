// Every private part of @xterm/headless the daemon relies on, in one place. xterm.js has no public
// API for them: the write loop's parse step (to contain a parser exception), the buffers' ring of
// rows and their packed cell words (history capture, snapshots), the input handler's pen, the
// cursor's visibility and style, the mouse encoding, the buffer service's scroll (alternate screen
// history), the parser's and UTF-8 decoder's state (skipping plain text), a marker on any row of the
// normal buffer (a shell's command marks). They were read from the
// pinned version below; checkXtermInternals() runs before the first emulator is made and stops with
// a message naming what moved, rather than letting another version corrupt screens.
import { Terminal } from '@xterm/headless';
import type { IBufferCell, IBufferLine } from '@xterm/headless';
import type { IDisposable } from '../../base/disposable';

/** The version these internals were read from; package.json pins it exactly. */
export const XTERM_VERSION = '6.0.0';

/** A cell as the buffer API hands it out: xterm's CellData, whose packed fg/bg words are cheap to compare. */
export interface PackedCell extends IBufferCell {
  fg: number;
  bg: number;
  extended?: { underlineStyle: number; underlineColor: number };
  getUnderlineStyle?(): number;
  getUnderlineColor?(): number;
  getUnderlineColorMode?(): number;
  isUnderlineColorDefault?(): boolean;
  isUnderlineColorRGB?(): boolean;
}

/** Colour mode and value bits of a packed bg word; the rest are attribute flags. */
export const BG_COLOUR_BITS = 0x3ffffff;
/** Content word: the code point, and the flag saying it is an index into the combined strings. */
export const CODE_POINT_MASK = 0x1fffff;
export const COMBINED_MASK = 0x200000;

/** One row of a buffer. */
export interface CoreLine {
  isWrapped: boolean;
  /** Three words per cell: content (code point, combined flag, width), fg, bg. */
  _data: Uint32Array;
  translateToString(trimRight: boolean, startCol?: number, endCol?: number): string;
}

/** A buffer: a ring of rows, the screen's first row in it (ybase) and the cursor state. */
export interface CoreBuffer {
  lines: {
    length: number;
    maxLength: number;
    onTrim(listener: (count: number) => void): IDisposable;
    /** Rows inserted or deleted at `index` (a reflow; the markers of shellMarks.ts follow them: markRows.ts). */
    onInsert(listener: (change: { index: number; amount: number }) => void): IDisposable;
    onDelete(listener: (change: { index: number; amount: number }) => void): IDisposable;
    get(index: number): CoreLine | undefined;
    trimStart(count: number): void;
    set(index: number, value: unknown): void;
    splice(start: number, deleteCount: number, ...items: unknown[]): void;
  };
  ybase: number;
  ydisp: number;
  x: number;
  y: number;
  savedY: number;
  scrollTop: number;
  scrollBottom: number;
}

/** Where xterm scrolls the active buffer by one row (LF at the bottom margin, IND, NEL, a wrap there). */
export interface CoreBufferService {
  scroll(eraseAttr: unknown, isWrapped?: boolean): void;
}

export interface CoreTerminal {
  _bufferService: CoreBufferService;
  _writeBuffer: { _action: (data: unknown, promiseResult: boolean) => unknown; writeSync(data: string): void };
  buffers: { normal: CoreBuffer; alt: CoreBuffer };
  /** The active buffer. */
  buffer: CoreBuffer;
  coreService: { isCursorHidden: boolean; decPrivateModes: { cursorStyle?: string; cursorBlink?: boolean } };
  coreMouseService: { activeEncoding: string };
  _inputHandler: {
    _curAttrData: PackedCell;
    /** Its state machine's state (0: ground) and the UTF-8 decoder's pending bytes (none: first is 0). */
    _parser: { currentState: number };
    _utf8Decoder: { interim: Uint8Array };
  };
}

export function core(terminal: Terminal): CoreTerminal {
  return (terminal as unknown as { _core: CoreTerminal })._core;
}

/** The row behind a buffer API line. */
export function coreLine(row: IBufferLine): CoreLine | undefined {
  return (row as unknown as { _line?: CoreLine })._line;
}

let checked = false;

/** Throws once, naming each internal that is missing, when this is not the xterm.js these were read from. */
export function checkXtermInternals(): void {
  if (checked) return;
  // esbuild inlines the JSON: the version of the copy that was bundled.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a JSON file, read at build time
  const version = (require('@xterm/headless/package.json') as { version: string }).version;
  const probe = new Terminal({ cols: 4, rows: 2, scrollback: 1, allowProposedApi: true });
  try {
    const c = core(probe);
    const line = probe.buffer.normal.getLine(0);
    const missing = [
      typeof c?._writeBuffer?._action !== 'function' && '_core._writeBuffer._action',
      typeof c?._writeBuffer?.writeSync !== 'function' && '_core._writeBuffer.writeSync',
      typeof c?.buffers?.normal?.lines?.onTrim !== 'function' && '_core.buffers.normal.lines.onTrim',
      typeof c?.buffers?.normal?.lines?.onDelete !== 'function' && '_core.buffers.normal.lines.onDelete',
      typeof c?.buffers?.normal?.lines?.onInsert !== 'function' && '_core.buffers.normal.lines.onInsert',
      typeof c?._bufferService?.scroll !== 'function' && '_core._bufferService.scroll',
      typeof c?.buffers?.alt?.ybase !== 'number' && '_core.buffers.alt',
      typeof c?.buffer?.savedY !== 'number' && '_core.buffer.savedY',
      typeof c?.coreService?.isCursorHidden !== 'boolean' && '_core.coreService.isCursorHidden',
      typeof c?.coreMouseService?.activeEncoding !== 'string' && '_core.coreMouseService.activeEncoding',
      typeof c?._inputHandler?._curAttrData?.fg !== 'number' && '_core._inputHandler._curAttrData',
      c?._inputHandler?._parser?.currentState !== 0 && '_core._inputHandler._parser.currentState',
      !(c?._inputHandler?._utf8Decoder?.interim instanceof Uint8Array) && '_core._inputHandler._utf8Decoder.interim',
      !(line && coreLine(line)?._data instanceof Uint32Array) && 'BufferLine._line._data',
      typeof (probe.buffer.normal.getNullCell() as PackedCell).fg !== 'number' && 'CellData.fg',
    ].filter((name): name is string => typeof name === 'string');
    if (version !== XTERM_VERSION || missing.length > 0) {
      const missingNote = missing.length > 0 ? `; missing: ${missing.join(', ')}` : '';
      throw new Error(
        `@xterm/headless ${version} is not the ${XTERM_VERSION} whose internals Holdfast reads ` +
          `(src/daemon/emulator/xtermInternals.ts)${missingNote}`,
      );
    }
    checked = true;
  } finally {
    probe.dispose();
  }
}
