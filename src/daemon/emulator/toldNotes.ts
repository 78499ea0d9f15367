// The directory and shell state a worker last told its main thread: a shell says both at every prompt,
// most often unchanged, and a flood of commands would post each of them to the main thread for nothing.
import type { EmulatorNote } from '../common/emulatorProtocol';

type ShellNote = Extract<EmulatorNote, { kind: 'shell' }>;

function sameShell(a: ShellNote, b: ShellNote): boolean {
  const [was, now] = [a.shell, b.shell];
  return (
    a.ready === b.ready &&
    was.phase === now.phase &&
    was.command === now.command &&
    was.lastExit === now.lastExit &&
    was.since === now.since
  );
}

export class ToldNotes {
  private cwd: string | undefined;
  private shell: ShellNote | undefined;

  /** True when `note` says again what the last one of its kind told (the main thread finds no news in it). */
  repeats(note: EmulatorNote): boolean {
    if (note.kind === 'cwd') {
      if (this.cwd === note.cwd) return true;
      this.cwd = note.cwd;
    } else if (note.kind === 'shell') {
      if (this.shell && sameShell(this.shell, note)) return true;
      this.shell = note;
    }
    return false;
  }
}
