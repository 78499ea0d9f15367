// A word for a POSIX shell: as it is when it holds only characters sh leaves alone, else quoted
// whole. Used for command lines shown to people, scripts Holdfast writes, and agents' hook commands.
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
