// An error the user must see: a line in the log, and a notification that offers the daemon's status and the log.
import type * as vscode from 'vscode';
import { uiText } from '../text/uiText';
import { showErrorWithHelp } from './ui';

export function reportError(log: vscode.LogOutputChannel, message: string, error: unknown): void {
  const detail = error instanceof Error ? error.message : String(error);
  log.error(`${message}: ${detail}`);
  // The message names sessions, the detail may quote a program's text: all of it is made UI text.
  showErrorWithHelp(uiText(`${message}: ${detail}`));
}
