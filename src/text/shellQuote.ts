import { printable } from './printable';

// A word for a POSIX shell: as it is when it holds only characters sh leaves alone, else quoted
// whole. Used for command lines shown to people, scripts Holdfast writes, and agents' hook commands.
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A command line as a shell would take it, made printable: what a person is shown before it runs. */
export function commandLine(argv: readonly string[]): string {
  return printable(argv.map(shellQuote).join(' '));
}
