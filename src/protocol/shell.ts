// A session's shell as its shell integration reports it (VS Code's OSC 633 scripts): the messages for
// starting a shell with them, what the shell is doing, and running one command in it (`run`).

/**
 * `create`/`relaunch`: start the shell with VS Code's shell integration scripts (bash, zsh, fish, pwsh;
 * any other program starts unchanged). `scripts`: VS Code's scripts folder (omitted: the last one a
 * client gave this daemon); `nonce`: VSCODE_NONCE, which a VS Code tab showing the session must know
 * to trust the command lines the shell reports (omitted: the daemon makes one; it never tells it).
 */
export interface ShellIntegrationParams {
  scripts?: string;
  nonce?: string;
}

/** What a shell with integration is doing, as it reported it (SessionInfo.shell). */
export interface ShellState {
  /** prompt: it waits at its prompt; running: a command runs. */
  phase: 'prompt' | 'running';
  /** The command running, when the shell reported it with its nonce (a program's claim is not one). */
  command?: string;
  /** The last command's exit code; null: the shell did not say (an empty line, an interrupted prompt). */
  lastExit?: number | null;
  /** When the phase began (ms since the epoch). */
  since: number;
}

/** `run`: types `command` and Enter at the shell's prompt, and answers once the shell reports its end. */
export interface RunParams {
  session: string;
  command: string;
  /** Answer with `timedOut` after this long (the command goes on running). */
  timeoutMs?: number;
}

export interface RunResult {
  /** Its exit code as the shell reported it; null: not reported, or the command has not ended (timedOut). */
  exitCode: number | null;
  /** The text it printed, as the session's screen and scrollback hold it (colours dropped). */
  output: string;
  /** The start of the output is missing: it scrolled out of the scrollback, or was longer than a reply holds. */
  truncated: boolean;
  /** The timeout came first. */
  timedOut?: true;
  /** The shell exited (the command was `exit`, or it ended the shell): exitCode is the session's. */
  shellExited?: true;
}

export enum RunLimit {
  /** One command line, characters (one line: a newline would run what follows it as another command). */
  CommandChars = 16 * 1024,
  /** Output text in one answer, characters: a longer output keeps its end. */
  OutputChars = 4 * 1024 * 1024,
}
