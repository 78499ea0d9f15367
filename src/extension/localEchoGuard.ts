// Keeps VS Code's predictive local echo (terminal.integrated.localEchoEnabled) right on a Holdfast tab. It
// draws typed keys and Enter's line break at once, then matches the program's output against its guesses.
// When one piece of output holds the echo of guessed keys, the line break and then more (the command's
// output), it puts the cursor back on the command's row for the keys, writes nothing for the line break it
// already drew, and the output lands on the command's row. A tab's output reaches it in such pieces: VS Code
// joins what a pseudoterminal writes within 5 ms. A NUL before the first line feed of each write makes the
// line break's guess fail, which VS Code undoes correctly; the keys are still guessed and matched.
// docs/vscode.md, "Local echo". Pure Node: no vscode import.

/**
 * ECMA-48's fill character: terminals drop it without effect on the screen (xterm.js 5.6 and 6 checked in
 * test/local-echo-guard.test.ts), so the line break reads "\r\0\n" to the matcher and "\r\n" on screen.
 */
const FILL = '\0';

/** `text` as a tab writes it to VS Code: a NUL before its first line feed, nothing else changed. */
export function guardLocalEcho(text: string): string {
  const at = text.indexOf('\n');
  return at < 0 ? text : `${text.slice(0, at)}${FILL}${text.slice(at)}`;
}
