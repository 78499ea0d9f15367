// The bounds a client's request and a checkpoint file must keep, and the defaults clients ask with: one
// home, used by the daemon (which enforces them), the CLI, MCP and the extension (which can say so before asking).

export enum SizeLimit {
  MaxCols = 1000,
  MaxRows = 500,
  /** Screen cells (xterm.js keeps 12 bytes each): 200,000 is a 4K display at a tiny font, ~2.4 MB. */
  MaxScreenCells = 200_000,
  /**
   * Scrollback lines times columns: 10 million cells (~120 MB in xterm.js at worst). 200,000 lines
   * at 50 columns, 83,000 at 120; a wider screen keeps fewer lines rather than more memory.
   */
  ScrollbackCells = 10_000_000,
}

/** Lines of scrollback a session may ask for at most (the cell budget may keep fewer). */
export const MAX_SCROLLBACK_LINES = 200_000;

/**
 * A logical line (wrapped rows and stored pieces joined) as `read` with scrollback, `search` and text
 * waits see it, in UTF-16 units: a longer one goes on in the next line, so its text is still read.
 */
export const MAX_LINE_CHARS = 65_536;

/** The bounds of a `search` (src/daemon/sessions/sessionSearch.ts), which the CLI's grep and MCP tools ask within. */
export enum SearchLimit {
  /** Matches returned when the client gives no limit. */
  DefaultMatches = 200,
  MaxMatches = 10_000,
  /** Context lines on each side at most. */
  MaxContext = 50,
}

/** The quiet spell of an `idle` wait that names none: the same after which the daemon reports a session idle. */
export const DEFAULT_IDLE_MS = 2000;

export enum TextLimit {
  /** Session names, characters. */
  Name = 256,
  /** Window titles (OSC 0/2), characters: a longer one is cut, not refused (a program sent it). */
  Title = 1024,
  /** A session's metadata as JSON, bytes. */
  Metadata = 64 * 1024,
}

/** What a client may give a program to read, and how much of it may wait for the program. */
export enum InputLimit {
  /** One `send`, characters: far more than a command line or a pasted prompt (the CLI and MCP send text). */
  SendChars = 1024 * 1024,
  /**
   * One request frame, bytes: a largest `send` with JSON's escaping (up to 6 bytes a character) fits.
   * A larger one is refused before it is parsed: parsing 25 MiB of JSON held the daemon for 0.75 s.
   */
  RequestBytes = 8 * 1024 * 1024,
  /**
   * Bytes written for a program and not read by it yet, per session: eight 25 MiB sends to a program
   * that never reads held 320 MB. Past this a `send` is refused and an input owner's keys are dropped.
   */
  QueuedBytes = 8 * 1024 * 1024,
}

/** What a checkpoint file (src/protocol/checkpointSchema.ts) may hold to be read at all. */
export enum CheckpointLimit {
  /**
   * A file, bytes: the writer keeps each under `recovery.maxBytes`, at most this. A larger one is
   * skipped unread (a 300 MB file froze the daemon 5.6 s at every `recovery.list`).
   */
  FileBytes = 16 * 1024 * 1024,
  /**
   * One saved screen, characters: the writer trims its scrollback to fit; a reader drops a larger
   * one (the session comes back without it). Restoring one holds the daemon ~0.9 ms per KiB on a
   * quiet machine (a 20 MB screen took 6.9 s, with 1 s freezes): at this bound, ~0.45 s at most.
   */
  ScreenChars = 512 * 1024,
}

/** Why cols x rows is not a size a session may have, or undefined when it is. */
export function screenSizeProblem(cols: number, rows: number): string | undefined {
  if (!Number.isInteger(cols) || cols < 1 || cols > SizeLimit.MaxCols)
    return `cols must be an integer from 1 to ${SizeLimit.MaxCols}`;
  if (!Number.isInteger(rows) || rows < 1 || rows > SizeLimit.MaxRows)
    return `rows must be an integer from 1 to ${SizeLimit.MaxRows}`;
  if (cols * rows > SizeLimit.MaxScreenCells)
    return `cols x rows must be at most ${SizeLimit.MaxScreenCells} cells (${cols}x${rows} is ${cols * rows})`;
  return undefined;
}

/** The scrollback a session keeps at this width: what was asked, within the cell budget. */
export function scrollbackWithinBudget(lines: number, cols: number): number {
  return Math.min(lines, Math.floor(SizeLimit.ScrollbackCells / Math.max(1, cols)));
}

/** A size from a checkpoint or a client, brought within the bounds (restore never refuses a file for it). */
export function clampScreenSize(cols: unknown, rows: unknown): { cols: number; rows: number } {
  const clamp = (v: unknown, max: number, fallback: number) =>
    Number.isInteger(v) && (v as number) >= 1 ? Math.min(v as number, max) : fallback;
  const c = clamp(cols, SizeLimit.MaxCols, 80);
  const r = Math.min(clamp(rows, SizeLimit.MaxRows, 24), Math.floor(SizeLimit.MaxScreenCells / c));
  return { cols: c, rows: r };
}
