// Seeded random VT streams and a cell-by-cell comparison of two emulators.
import type { Terminal } from '@xterm/headless';

/** mulberry32: small, fast, good enough for test streams. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Share of case-13 steps that resize (HOLDFAST_FUZZ_RESIZE overrides). */
const RESIZE_CHANCE = Number(process.env.HOLDFAST_FUZZ_RESIZE ?? 0.3);

const WORDS = ['hello', 'world', 'λx', '漢字', 'ｗｉｄｅ', '😀', '👍🏽', 'e\u0301', 'tab\there', 'x'.repeat(30)];

export interface FuzzStep {
  data?: string;
  resize?: { cols: number; rows: number };
}

export function randomStream(seed: number, cols: number, rows: number, steps = 60): FuzzStep[] {
  const r = rng(seed);
  const pick = <T>(items: T[]): T => items[Math.floor(r() * items.length)];
  const int = (n: number) => Math.floor(r() * n);
  const out: FuzzStep[] = [];
  let c = cols;
  let h = rows;
  for (let i = 0; i < steps; i++) {
    const kind = int(20);
    switch (kind) {
      case 0:
      case 1:
      case 2:
        out.push({ data: pick(WORDS) + (r() < 0.3 ? '\r\n' : ' ') });
        break;
      case 3: {
        const sgr = pick([
          '0',
          '1',
          '2',
          '3',
          '4',
          '4:3',
          '5',
          '7',
          '8',
          '9',
          '53',
          '22',
          '24',
          '27',
          `3${int(8)}`,
          `9${int(8)}`,
          `4${int(8)}`,
          `10${int(8)}`,
          `38;5;${int(256)}`,
          `48;5;${int(256)}`,
          `38;2;${int(256)};${int(256)};${int(256)}`,
          `48;2;${int(256)};${int(256)};${int(256)}`,
          '39',
          '49',
        ]);
        out.push({ data: `\x1b[${sgr}m` });
        break;
      }
      case 4:
        out.push({ data: `\x1b[${1 + int(h + 2)};${1 + int(c + 2)}H` });
        break;
      case 5:
        out.push({
          data: pick([
            '\x1b[A',
            '\x1b[B',
            '\x1b[C',
            '\x1b[D',
            '\x1b[3C',
            '\x1b[2A',
            '\r',
            '\n',
            '\x08',
            '\x1bM',
            '\x1bD',
            '\x1bE',
          ]),
        });
        break;
      case 6: {
        const top = 1 + int(h);
        const bottom = top + int(h - top + 1);
        out.push({ data: `\x1b[${top};${bottom}r` });
        break;
      }
      case 7:
        // 1049 as programs use it; not the obsolete 47, which switches buffers without saving the
        // cursor and strands it outside an origin-mode region where no sequence can put it back.
        out.push({ data: pick(['\x1b[?1049h', '\x1b[?1049l']) });
        break;
      case 8:
        out.push({
          data: pick([
            '\x1b[K',
            '\x1b[1K',
            '\x1b[2K',
            '\x1b[J',
            '\x1b[1J',
            '\x1b[2J',
            '\x1b[L',
            '\x1b[2M',
            '\x1b[P',
            '\x1b[3@',
            '\x1b[X',
            '\x1b[S',
            '\x1b[2T',
          ]),
        });
        break;
      case 9:
        // Not DECAWM off (?7l): xterm.js then overwrites halves of wide characters at the margin,
        // leaving cells no byte stream can rebuild. Wraparound itself is covered by the snapshot tests.
        out.push({
          data: pick([
            '\x1b[?1h',
            '\x1b[?1l',
            '\x1b=',
            '\x1b>',
            '\x1b[?2004h',
            '\x1b[?2004l',
            '\x1b[4h',
            '\x1b[4l',
            '\x1b[?6h',
            '\x1b[?6l',
            '\x1b[?25l',
            '\x1b[?25h',
            '\x1b[?1004h',
            '\x1b[?45h',
          ]),
        });
        break;
      case 10:
        out.push({
          data: pick([
            '\x1b[?1000h',
            '\x1b[?1002h',
            '\x1b[?1003h',
            '\x1b[?9h',
            '\x1b[?1000l',
            '\x1b[?1006h',
            '\x1b[?1006l',
            '\x1b[?1016h',
          ]),
        });
        break;
      case 11:
        out.push({ data: `\x1b]2;title ${int(100)}\x07` });
        break;
      case 12:
        // A whole line of text: exercises wrapping at the right margin.
        out.push({ data: 'w'.repeat(c + int(5)) });
        break;
      case 13:
        if (r() < RESIZE_CHANCE) {
          c = 10 + int(60);
          h = 4 + int(20);
          out.push({ resize: { cols: c, rows: h } });
        } else out.push({ data: 'z'.repeat(Math.max(1, c - int(3))) });
        break;
      case 14:
        out.push({ data: `\x1b[?2026h${pick(WORDS)}\x1b[?2026l` });
        break;
      case 15:
        out.push({ data: pick(['\x1b[2 q', '\x1b[5 q', '\x1b[0 q', '\x1b7', '\x1b8']) });
        break;
      default:
        out.push({ data: Array.from({ length: 1 + int(4) }, () => pick(WORDS)).join(r() < 0.5 ? '\r\n' : '') });
    }
  }
  return out;
}

interface CellView {
  getChars(): string;
  getWidth(): number;
  getFgColor(): number;
  getBgColor(): number;
  getFgColorMode(): number;
  getBgColorMode(): number;
  isBold(): number;
  isItalic(): number;
  isDim(): number;
  isUnderline(): number;
  isBlink(): number;
  isInverse(): number;
  isInvisible(): number;
  isStrikethrough(): number;
  isOverline(): number;
}

/** Cells are compared as displayed: an untouched cell and a space look the same. */
function cellKey(cell: CellView): string {
  const flags = [
    cell.isBold(),
    cell.isItalic(),
    cell.isDim(),
    cell.isUnderline(),
    cell.isBlink(),
    cell.isInverse(),
    cell.isInvisible(),
    cell.isStrikethrough(),
    cell.isOverline(),
  ].map((f) => (f ? 1 : 0));
  return [
    cell.getChars() || ' ',
    cell.getWidth(),
    cell.getFgColorMode(),
    cell.getFgColor(),
    cell.getBgColorMode(),
    cell.getBgColor(),
    ...flags,
  ].join(',');
}

type Core = {
  coreService: { isCursorHidden: boolean; decPrivateModes: Record<string, unknown> };
  coreMouseService: { activeEncoding: string };
  buffer: { scrollTop: number; scrollBottom: number; x: number; y: number };
  _inputHandler: { _curAttrData: Omit<CellView, 'getChars' | 'getWidth'> };
};

function penView(pen: Omit<CellView, 'getChars' | 'getWidth'>): CellView {
  const colour = (mode: number, value: number) =>
    mode === 0 ? -1 : mode === 0x3000000 ? value & 0xffffff : value & 0xff;
  return {
    getChars: () => '',
    getWidth: () => 1,
    getFgColorMode: () => pen.getFgColorMode(),
    getBgColorMode: () => pen.getBgColorMode(),
    getFgColor: () => colour(pen.getFgColorMode(), pen.getFgColor()),
    getBgColor: () => colour(pen.getBgColorMode(), pen.getBgColor()),
    isBold: () => pen.isBold(),
    isItalic: () => pen.isItalic(),
    isDim: () => pen.isDim(),
    isUnderline: () => pen.isUnderline(),
    isBlink: () => pen.isBlink(),
    isInverse: () => pen.isInverse(),
    isInvisible: () => pen.isInvisible(),
    isStrikethrough: () => pen.isStrikethrough(),
    isOverline: () => pen.isOverline(),
  };
}

/**
 * xterm.js's reflow on resize can leave a wide character in the last column, half outside the
 * screen: a state no byte stream can produce, so no snapshot can rebuild it. Found by this fuzz.
 */
export function unreachableState(terminal: Terminal): string | undefined {
  for (const buffer of [terminal.buffer.normal, terminal.buffer.alternate]) {
    const cell = buffer.getNullCell();
    for (let y = 0; y < buffer.length; y++) {
      if (buffer.getLine(y)?.getCell(terminal.cols - 1, cell) && cell.getWidth() === 2)
        return `a wide character in the last column (row ${y} of the ${buffer.type} buffer)`;
    }
  }
  return undefined;
}

/** Differences between two terminals' visible state: cells, cursor, modes; empty when identical. */
export function differences(a: Terminal, b: Terminal, title: [string, string]): string[] {
  const diffs: string[] = [];
  if (a.cols !== b.cols || a.rows !== b.rows) diffs.push(`size ${a.cols}x${a.rows} vs ${b.cols}x${b.rows}`);
  const ba = a.buffer.active;
  const bb = b.buffer.active;
  if (ba.type !== bb.type) diffs.push(`buffer ${ba.type} vs ${bb.type}`);
  if (ba.cursorX !== bb.cursorX || ba.cursorY !== bb.cursorY)
    diffs.push(`cursor ${ba.cursorX},${ba.cursorY} vs ${bb.cursorX},${bb.cursorY}`);
  const ca = a.buffer.active.getNullCell();
  const cb = b.buffer.active.getNullCell();
  for (let y = 0; y < a.rows && diffs.length < 10; y++) {
    const la = ba.getLine(ba.baseY + y);
    const lb = bb.getLine(bb.baseY + y);
    for (let x = 0; x < a.cols; x++) {
      const ka = la?.getCell(x, ca) ? cellKey(ca) : '';
      const kb = lb?.getCell(x, cb) ? cellKey(cb) : '';
      if (ka !== kb) {
        diffs.push(`cell ${x},${y}: [${ka}] vs [${kb}]`);
        break;
      }
    }
  }
  const sa = a.buffer.normal;
  const sb = b.buffer.normal;
  const textA: string[] = [];
  const textB: string[] = [];
  for (let y = 0; y < sa.length; y++) textA.push((sa.getLine(y)?.translateToString(true) ?? '').trimEnd());
  for (let y = 0; y < sb.length; y++) textB.push((sb.getLine(y)?.translateToString(true) ?? '').trimEnd());
  const trim = (t: string[]) => t.join('\n').replace(/\n+$/, '');
  if (trim(textA) !== trim(textB)) diffs.push('normal buffer text (with scrollback) differs');
  const ma = JSON.stringify(a.modes);
  const mb = JSON.stringify(b.modes);
  if (ma !== mb) diffs.push(`modes ${ma} vs ${mb}`);
  const coreA = (a as unknown as { _core: Core })._core;
  const coreB = (b as unknown as { _core: Core })._core;
  if (coreA.coreService.isCursorHidden !== coreB.coreService.isCursorHidden) diffs.push('cursor visibility');
  if (coreA.coreMouseService.activeEncoding !== coreB.coreMouseService.activeEncoding)
    diffs.push(`mouse encoding ${coreA.coreMouseService.activeEncoding} vs ${coreB.coreMouseService.activeEncoding}`);
  if (coreA.buffer.scrollTop !== coreB.buffer.scrollTop || coreA.buffer.scrollBottom !== coreB.buffer.scrollBottom)
    diffs.push(
      `scroll region ${coreA.buffer.scrollTop}-${coreA.buffer.scrollBottom} ` +
        `vs ${coreB.buffer.scrollTop}-${coreB.buffer.scrollBottom}`,
    );
  // The pen's packed words may keep stale colour bits after a mode change; compare what it draws.
  const penA = cellKey(penView(coreA._inputHandler._curAttrData));
  const penB = cellKey(penView(coreB._inputHandler._curAttrData));
  if (penA !== penB) diffs.push(`pen [${penA}] vs [${penB}]`);
  const styleA = JSON.stringify([
    coreA.coreService.decPrivateModes.cursorStyle,
    coreA.coreService.decPrivateModes.cursorBlink,
  ]);
  const styleB = JSON.stringify([
    coreB.coreService.decPrivateModes.cursorStyle,
    coreB.coreService.decPrivateModes.cursorBlink,
  ]);
  if (styleA !== styleB) diffs.push(`cursor style ${styleA} vs ${styleB}`);
  if (title[0] !== title[1]) diffs.push(`title "${title[0]}" vs "${title[1]}"`);
  return diffs;
}
