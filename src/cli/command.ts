// What a command is: its options and help, and a run function that returns data (for --json) and text.
import type { DaemonLink } from '../link/daemonLink';
import type { OptionSpecs, ParsedArgs } from './args';
import type { ExitCode } from './errors';

export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
}

export interface Context {
  args: ParsedArgs;
  json: boolean;
  /** This machine's socket (commands that only run here use it; others go through `link`). */
  socket: string;
  /** The daemon the command talks to: this machine's, or a host's over SSH (--host). */
  link: DaemonLink;
  env: NodeJS.ProcessEnv;
  io: Io;
}

export interface CommandResult {
  /** Printed as the one JSON document with --json. */
  data: unknown;
  /** Printed on stdout without --json (nothing when absent). */
  text?: string;
  /** `text` is printed as it is, without a newline added at its end (a command's output). */
  exactText?: boolean;
  /** A line for stderr in both modes (e.g. why a wait ended without its condition). */
  note?: string;
  /** Usually an ExitCode; `run` ends with its command's. */
  exitCode?: ExitCode | number;
}

export interface Command {
  name: string;
  summary: string;
  /** Synopsis after "holdfast ", e.g. "read ID [--scrollback N]". */
  usage: string;
  options: OptionSpecs;
  /** Extra help paragraphs. */
  details?: string[];
  /** Set when the command only runs on this machine: why, as "runs …" (--host is refused with it). */
  here?: string;
  run(ctx: Context): Promise<CommandResult>;
}
