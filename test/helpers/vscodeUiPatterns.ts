// What VS Code's UI turns into links and icons, with VS Code's own patterns: those of the workbench the
// e2e runs (code-server 4.139.1 = VS Code 1.139.1; test/e2e/attention.test.ts checks that they are still
// in its workbench.js, character for character). Links: parseLinkedText (notifications, input-box prompts
// and messages). Icons: renderLabelWithIcons (quick picks, the status bar, terminal tabs; "\$(x)" is an
// escaped one).

/** VS Code's LINK_REGEX, as its source. */
export const LINK_SOURCE = String.raw`\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^\)\s]+)(?: (["'])(.+?)(\3))?\)`;
/** ThemeIcon.iconNameExpression and iconModifierExpression. */
export const ICON_NAME_EXPRESSION = '[A-Za-z0-9-]+';
export const ICON_MODIFIER_EXPRESSION = '~[A-Za-z]+';

/** The links parseLinkedText finds in `text`. */
export function vscodeLinks(text: string): { label: string; href: string }[] {
  const regex = new RegExp(LINK_SOURCE, 'gi');
  return [...text.matchAll(regex)].map(([, label, href]) => ({ label, href }));
}

/** The icons renderLabelWithIcons draws for `text` (escaped ones are drawn as text). */
export function vscodeIcons(text: string): string[] {
  const regex = new RegExp(String.raw`(\\)?\$\((${ICON_NAME_EXPRESSION}(?:${ICON_MODIFIER_EXPRESSION})?)\)`, 'g');
  return [...text.matchAll(regex)].filter(([, escaped]) => !escaped).map(([, , name]) => name);
}
