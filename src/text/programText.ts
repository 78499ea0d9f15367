// Text a program or an agent controls: what it prints (screen lines, the reason a session waits, search
// matches), the titles (OSC 0/2) and directories (OSC 7) it reports, the transcripts it writes, and the
// names, command lines and metadata a client or a checkpoint file gives. Its own type from where it enters
// a client (the extension's card model and search results), so a reader sees it is hostile; only named
// functions make it fit for a sink: uiText.ts for VS Code's UI, printable.ts for a terminal. No feature
// acts on it alone: a scope is decided from what the user or the creating client set, and the keys sent
// to a program are the user's or those of a prompt table (agents/permissionPrompt.ts), never its text.

declare const programBrand: unique symbol;

/** Text a program controls. Any string function takes it; a UI sink does not (uiText.ts). */
export type ProgramText = string & { readonly [programBrand]: true };

/** Marks text as the program's, where it enters. */
export function programText(text: string): ProgramText {
  return text as ProgramText;
}

/** An optional field, marked when present. */
export function programTextOr(text: string | undefined): ProgramText | undefined {
  return text === undefined ? undefined : programText(text);
}
