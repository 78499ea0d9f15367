// Key names → the bytes a terminal sends for them (xterm conventions, normal cursor mode), and what a
// `send` (the CLI's, the MCP tool's) types: text, keys, Enter.
import { InputError } from '../base/inputError';

const ESC = '\x1b';

const NAMED: Record<string, string> = {
  enter: '\r',
  return: '\r',
  tab: '\t',
  'shift-tab': `${ESC}[Z`,
  backtab: `${ESC}[Z`,
  esc: ESC,
  escape: ESC,
  space: ' ',
  backspace: '\x7f',
  bs: '\x7f',
  delete: `${ESC}[3~`,
  del: `${ESC}[3~`,
  insert: `${ESC}[2~`,
  ins: `${ESC}[2~`,
  up: `${ESC}[A`,
  down: `${ESC}[B`,
  right: `${ESC}[C`,
  left: `${ESC}[D`,
  home: `${ESC}[H`,
  end: `${ESC}[F`,
  pageup: `${ESC}[5~`,
  pgup: `${ESC}[5~`,
  pagedown: `${ESC}[6~`,
  pgdn: `${ESC}[6~`,
  f1: `${ESC}OP`,
  f2: `${ESC}OQ`,
  f3: `${ESC}OR`,
  f4: `${ESC}OS`,
  f5: `${ESC}[15~`,
  f6: `${ESC}[17~`,
  f7: `${ESC}[18~`,
  f8: `${ESC}[19~`,
  f9: `${ESC}[20~`,
  f10: `${ESC}[21~`,
  f11: `${ESC}[23~`,
  f12: `${ESC}[24~`,
};

/** Control characters reachable as ctrl-<char> besides the letters. */
const CTRL_PUNCTUATION: Record<string, number> = {
  '@': 0x00,
  space: 0x00,
  '2': 0x00,
  '[': 0x1b,
  '\\': 0x1c,
  ']': 0x1d,
  '^': 0x1e,
  '6': 0x1e,
  _: 0x1f,
  '-': 0x1f,
  '/': 0x1f,
  '?': 0x7f,
};

export class UnknownKeyError extends InputError {}

/** Accepts ctrl-x, ctrl+x, c-x and ^x for control keys, alt-x / meta-x for ESC-prefixed keys. */
export function keyBytes(name: string): string {
  if (name.length === 1) return name; // a literal character: `--key q`
  const lower = name.toLowerCase();
  if (lower in NAMED) return NAMED[lower];
  const ctrl = /^(?:ctrl[-+]|c-|\^)(.+)$/.exec(lower);
  if (ctrl) {
    const rest = ctrl[1];
    if (/^[a-z]$/.test(rest)) return String.fromCharCode(rest.charCodeAt(0) - 0x60);
    if (rest in CTRL_PUNCTUATION) return String.fromCharCode(CTRL_PUNCTUATION[rest]);
  }
  const alt = /^(?:alt|meta|m)[-+](.+)$/i.exec(name);
  if (alt) return ESC + keyBytes(alt[1]);
  throw new UnknownKeyError(`unknown key "${name}" (known: ${KEY_NAMES_HELP})`);
}

export const KEY_NAMES_HELP =
  'enter, tab, shift-tab, esc, space, backspace, delete, insert, up, down, left, right, home, end, pageup, pagedown, ' +
  'f1..f12, ctrl-a..ctrl-z, ctrl-@, ctrl-[, ctrl-\\, ctrl-], ctrl-^, ctrl-_, alt-<key>, or one literal character';

/** The bytes `send` writes: the text, then each key in order, then Enter. */
export function sendPayload(text: string | undefined, keys: string[], enter: boolean): string {
  let data = text ?? '';
  for (const key of keys) data += keyBytes(key);
  if (enter) data += '\r';
  return data;
}
