// What a program tells its terminal about itself through OSC sequences, read here with the rules
// that keep its untrusted bytes in their place: its directory (OSC 7), its shell's prompt marks
// (OSC 133) and VS Code's shell integration marks (OSC 633: prompt, command, exit code, command
// line, directory). Notifications (OSC 9, OSC 777) are read where the emulator registers them.
import * as os from 'node:os';
import type { IParser } from '@xterm/headless';
import type { IDisposable } from '../../base/disposable';
import { hasUnprintable } from '../../text/printable';
import type { PromptMark } from '../sessions/attention';

/** Longest OSC 7 payload taken: PATH_MAX is 4096 on Linux, and percent-encoding only makes it longer. */
export const MAX_OSC7_LENGTH = 4096;

/**
 * OSC 7 carries file://host/path, the path percent-encoded. It decides where relaunch and resume
 * run, so only this machine's (host empty, "localhost" or this hostname) absolute paths are taken,
 * and none with a control or bidi reordering character (U+202E makes a path read backwards):
 * anything else is ignored and the last good directory kept.
 */
export function cwdFromOsc7(data: string, hostname: string = os.hostname()): string | undefined {
  if (data.length > MAX_OSC7_LENGTH) return undefined;
  const match = /^file:\/\/([^/]*)(\/.*)$/i.exec(data);
  if (!match) return undefined;
  const host = match[1].toLowerCase();
  if (host !== '' && host !== 'localhost' && host !== hostname.toLowerCase()) return undefined;
  let cwd: string;
  try {
    cwd = decodeURIComponent(match[2]);
  } catch {
    // Not valid percent-encoding (a shell that does not encode "%"): the path as written.
    cwd = match[2];
  }
  if (!cwd.startsWith('/') || hasUnprintable(cwd)) return undefined;
  return cwd;
}

/** OSC 133's mark letter (A prompt, B input, C command start, D command end), then nothing or ";" and options. */
export function promptMarkOf(data: string): PromptMark | undefined {
  const mark = data.charAt(0);
  if (data.length > 1 && data[1] !== ';') return undefined;
  return mark === 'A' || mark === 'B' || mark === 'C' || mark === 'D' ? mark : undefined;
}

/** Registers the emulator's readers of notifications (OSC 9, OSC 777), OSC 133 and OSC 7. */
export function registerReports(
  parser: IParser,
  tell: { bell(): void; promptMark(mark: PromptMark): void; cwd(cwd: string): void },
): IDisposable[] {
  return [
    // The desktop notification an agent sends when it waits for the user (iTerm2's OSC 9, as
    // Claude Code and Codex CLI can; OSC 777 notify) asks for attention like a bell does.
    // OSC 9;4 is ConEmu's progress report, not a notification.
    parser.registerOscHandler(9, (data) => {
      if (!data.startsWith('4;')) tell.bell();
      return true;
    }),
    parser.registerOscHandler(777, (data) => {
      if (data.startsWith('notify;')) tell.bell();
      return true;
    }),
    parser.registerOscHandler(133, (data) => {
      const mark = promptMarkOf(data);
      if (mark) tell.promptMark(mark);
      return true;
    }),
    parser.registerOscHandler(7, (data) => {
      const cwd = cwdFromOsc7(data);
      if (cwd) tell.cwd(cwd);
      return true;
    }),
  ];
}

export enum ShellMarkLimit {
  /** An OSC 633 payload read at all, characters: a longer one is ignored (a command line is cut well before). */
  PayloadChars = 16 * 1024,
  /** A command line (E) kept and replayed, characters; a longer one is not kept (VS Code reads it from the screen). */
  CommandLineChars = 4096,
}

/**
 * An OSC 633 mark a shell with VS Code's shell integration prints: A prompt start, B prompt end (input
 * starts), C command output starts, D command end with its exit code, E the command line (trusted when it
 * carries the session's nonce), the directory (P;Cwd), and that it reports rich command detection.
 */
export type ShellMark =
  | { kind: 'A' | 'B' | 'C' }
  | { kind: 'D'; exitCode?: number }
  | { kind: 'E'; commandLine: string; trusted: boolean }
  | { kind: 'cwd'; cwd: string }
  | { kind: 'rich' };

const BARE_MARKS = { A: { kind: 'A' }, B: { kind: 'B' }, C: { kind: 'C' } } as const satisfies Record<
  string,
  ShellMark
>;

/** VS Code's escaping of a value in E and P: "\\" for a backslash, "\\xHH" for a byte. */
export function unescapeValue(value: string): string {
  if (!value.includes('\\')) return value;
  return value.replace(/\\(\\|x([0-9a-f]{2}))/gi, (_m, op: string, hex?: string) =>
    hex ? String.fromCharCode(parseInt(hex, 16)) : op,
  );
}

/** The inverse, as VS Code's scripts escape: backslash, semicolon and control characters. */
export function escapeValue(value: string): string {
  return value.replace(/[\\;\x00-\x1f\x7f]/g, (c) =>
    c === '\\' ? '\\\\' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}

/**
 * The mark an OSC 633 payload says, or undefined (one Holdfast does not keep: continuation prompts,
 * environment reports, other properties, or anything malformed). `nonce`: the session's VSCODE_NONCE;
 * a command line is trusted only when it carries it. A directory is taken by cwdFromOsc7's rules.
 */
export function shellMarkOf(data: string, nonce: string | undefined): ShellMark | undefined {
  // The marks of every prompt and command, one object each: a mark is never changed.
  if (data === 'A' || data === 'B' || data === 'C') return BARE_MARKS[data];
  if (data.length > ShellMarkLimit.PayloadChars) return undefined;
  const [kind, ...args] = data.split(';');
  switch (kind) {
    case 'A':
    case 'B':
    case 'C':
      return args.length === 0 ? { kind } : undefined;
    case 'D': {
      if (args.length === 0) return { kind };
      const code = args.length === 1 && /^-?\d{1,10}$/.test(args[0]) ? Number(args[0]) : NaN;
      return Number.isSafeInteger(code) ? { kind, exitCode: code } : { kind };
    }
    case 'E': {
      if (args.length < 1 || args.length > 2) return undefined;
      const commandLine = unescapeValue(args[0]);
      if (commandLine.length > ShellMarkLimit.CommandLineChars) return undefined;
      return { kind, commandLine, trusted: nonce !== undefined && args[1] === nonce };
    }
    case 'P': {
      const property = args.join(';');
      if (property === 'HasRichCommandDetection=True') return { kind: 'rich' };
      if (!property.startsWith('Cwd=')) return undefined;
      const cwd = unescapeValue(property.slice('Cwd='.length));
      if (cwd.length > MAX_OSC7_LENGTH || !cwd.startsWith('/') || hasUnprintable(cwd)) return undefined;
      return { kind: 'cwd', cwd };
    }
    default:
      return undefined;
  }
}

/** shellMarkOf with the last end's and directory's remembered: a shell prints the same ones at most prompts. */
export class ShellMarkReader {
  private readonly recent: Partial<Record<'D' | 'P', { data: string; mark: ShellMark | undefined }>> = {};

  constructor(private readonly nonce: string | undefined) {}

  read(data: string): ShellMark | undefined {
    const kind = data[0] === 'D' ? 'D' : data[0] === 'P' ? 'P' : undefined;
    if (!kind) return shellMarkOf(data, this.nonce);
    const last = this.recent[kind];
    if (last?.data === data) return last.mark;
    const mark = shellMarkOf(data, this.nonce);
    this.recent[kind] = { data, mark };
    return mark;
  }
}

/** The OSC 633 sequence that says `mark` again (a snapshot's replay); E carries `nonce` only when trusted. */
export function shellMarkSequence(mark: ShellMark, nonce: string | undefined): string {
  switch (mark.kind) {
    case 'A':
    case 'B':
    case 'C':
      return `\x1b]633;${mark.kind}\x07`;
    case 'D':
      return mark.exitCode === undefined ? '\x1b]633;D\x07' : `\x1b]633;D;${mark.exitCode}\x07`;
    case 'E': {
      const signed = mark.trusted && nonce ? `;${nonce}` : '';
      return `\x1b]633;E;${escapeValue(mark.commandLine)}${signed}\x07`;
    }
    case 'cwd':
      return `\x1b]633;P;Cwd=${escapeValue(mark.cwd)}\x07`;
    case 'rich':
      return '\x1b]633;P;HasRichCommandDetection=True\x07';
  }
}

/** Lines with the marks of shellMarkSequence in them, without `nonce` (a screen written to disk). */
export function unsignedLines(lines: string[], nonce: string | undefined): string[] {
  if (!nonce) return lines;
  const signed = `;${nonce}\x07`;
  return lines.map((line) => (line.includes(signed) ? line.replaceAll(signed, '\x07') : line));
}
