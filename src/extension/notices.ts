// The one-line notices a Holdfast tab prints into its terminal. Pure, unit-tested.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import { resumeArgv } from '../agents/agents';
import type { ExitStatus, SessionInfo } from '../protocol/messages';
import { printable } from '../text/printable';
import { archivedFrom } from '../protocol/recovery';
import { commandLine } from '../text/shellQuote';

/**
 * A dim line of its own, starting on a fresh line, so it never mixes into the program's text.
 * Made printable: notices quote names, directories and command lines that programs chose.
 */
export function noticeLine(text: string): string {
  return `\r\n\x1b[0m\x1b[2m[holdfast] ${printable(text)}\x1b[0m\r\n`;
}

export function exitNotice(exit: ExitStatus | null): string {
  if (!exit) return 'process exited';
  if (exit.signal) return `process exited with signal ${exit.signal}; close this tab to remove the session`;
  return `process exited with code ${exit.code ?? 'unknown'}; close this tab to remove the session`;
}

/**
 * The first line of an archived tab: why nothing runs, and how to start it again, with the exact
 * command and directory, since both come from a checkpoint file any program of the user's could edit.
 */
export function archivedNotice(action: 'resume' | 'relaunch', session: SessionInfo): string {
  const writtenAt = archivedFrom(session.metadata)?.writtenAt;
  const when = writtenAt === undefined ? 'unknown' : new Date(writtenAt).toLocaleString();
  const how =
    action === 'resume'
      ? `Resume the conversation ${startAgainCommand('resume', session)}: ` +
        '"Holdfast: Resume Session" or Resume in the Holdfast sidebar'
      : `Start it again ${startAgainCommand('relaunch', session)}: ` +
        '"Holdfast: Relaunch Session" or Relaunch in the Holdfast sidebar';
  return (
    `archived: this process ended with its daemon (reboot or crash); screen as saved ${when}. ` +
    `${how} (a new run, not the old process).`
  );
}

/** Where and what resume or relaunch of an archive runs (the tab's notice, the sidebar's button). */
export function startAgainCommand(action: 'resume' | 'relaunch', session: SessionInfo): string {
  return action === 'resume'
    ? `in ${session.cwd} ${resumeCommand(session)}`
    : `in ${session.cwd} with \`${commandLine(session.argv)}\``;
}

/** A built-in profile's resume command is known here; one of the user's own profiles is in their settings. */
function resumeCommand(session: SessionInfo): string {
  const argv = resumeArgv(session.metadata);
  return typeof argv === 'string'
    ? "with your agent profile's resume command (setting holdfast.agents)"
    : `with \`${commandLine(argv)}\``;
}

export const NOTICE = {
  watching: 'watching: another window has input for this session; type here to take it over',
  inputMoved: 'input moved to another window; type to take it back',
  reconnecting: 'lost the connection to the daemon; reconnecting…',
  heldKeysDropped: 'more than 65,536 characters typed while the tab was not connected: the rest was dropped',
  daemonGone:
    "the daemon stopped, so this session's process is gone. " +
    'Close this tab; a new Holdfast terminal starts a new daemon.',
  daemonRestarted: "the daemon was restarted, so this session's process is gone. Close this tab.",
  sessionGone: 'this session no longer exists in the daemon (removed elsewhere, or the daemon was restarted)',
} as const;

/** A host's tab whose host connection dropped: the programs there run on; the tab comes back by itself. */
export function hostReconnecting(host: string): string {
  return `lost the connection to ${host}; its programs run on there; reconnecting…`;
}

export function failureNotice(action: string, error: unknown): string {
  return `${action} failed: ${error instanceof Error ? error.message : String(error)}`;
}
