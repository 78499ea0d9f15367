// Text fit for VS Code's UI, which turns `[label](command:id?args)` into a link that runs the command
// (notifications, input-box prompts and messages) and `$(name)` into an icon (quick picks, the status bar,
// terminal tabs). Its own type: src/extension/ui.ts, the one module that may call VS Code's UI, takes only
// this, and only two things make it: `ui` (our literal text, with numbers and UiText in it) and `uiText`
// (any other text, above all a program's: ProgramText), which neutralises the syntax while keeping every
// character readable. The lint keeps `as UiText` out of every other file (scripts/uiSinks.mjs).
import { printable } from './printable';

declare const uiBrand: unique symbol;

/** Text VS Code may render: it links nothing and shows no icon but those our literals name. */
export type UiText = string & { readonly [uiBrand]: true };

/**
 * U+2060 WORD JOINER: invisible, and no break. Put between "]" and "(" it ends VS Code's link syntax
 * (parseLinkedText wants "](" with a scheme right after), between "$" and "(" its icon syntax.
 */
export const UI_JOINER = '\u2060';

/** Where a link or an icon would begin: "](" and "$(". */
const OPENERS = /([\]$])\(/g;

/**
 * Any text as VS Code's UI may show it: what a program controls (names, titles, directories, reasons,
 * screen lines, search matches) and error messages that quote it. Control and bidi characters become
 * visible escapes (printable.ts); "](" and "$(" get a word joiner inside, so the text reads the same and
 * nothing in it is a link or an icon.
 */
export function uiText(text: string): UiText {
  return printable(text).replace(OPENERS, `$1${UI_JOINER}(`) as UiText;
}

/** Pieces put together: where one ends in "]" or "$" and the next begins with "(", a joiner goes between. */
function joined(pieces: readonly string[]): UiText {
  let out = '';
  for (const piece of pieces) {
    if (piece === '') continue;
    if (piece.startsWith('(') && (out.endsWith(']') || out.endsWith('$'))) out += UI_JOINER;
    out += piece;
  }
  return out as UiText;
}

/**
 * Our own text, as a template literal: ui`Holdfast: ${uiText(name)} is waiting (${count})`. Its literal
 * parts may name icons ("$(bell)"); what goes in is UiText or a number, so no string gets in unchecked,
 * and no link or icon forms where a piece meets the next.
 */
export function ui(literals: TemplateStringsArray, ...values: readonly (UiText | number)[]): UiText {
  const pieces: string[] = [literals[0]];
  values.forEach((value, i) => pieces.push(String(value), literals[i + 1]));
  return joined(pieces);
}

/** UiText pieces with a separator between them (a list of names). */
export function uiJoin(parts: readonly UiText[], separator: UiText): UiText {
  return joined(parts.flatMap((part, i) => (i === 0 ? [part] : [separator, part])));
}

/** VS Code's icon names (a codicon, "~spin" and the like after it). */
const ICON_NAME = /^[A-Za-z0-9-]+(?:~[A-Za-z]+)?$/;

/** An icon by its name, e.g. a profile's "sparkle": "$(sparkle)"; nothing for a name that is not one. */
export function uiIcon(name: string): UiText {
  return (ICON_NAME.test(name) ? `$(${name})` : '') as UiText;
}
