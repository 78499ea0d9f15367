// An error the user must see: a line in the log, and a notification that offers the daemon's status and the log.
import * as vscode from 'vscode';

export function reportError(log: vscode.LogOutputChannel, message: string, error: unknown): void {
  const detail = error instanceof Error ? error.message : String(error);
  log.error(`${message}: ${detail}`);
  void vscode.window.showErrorMessage(`${message}: ${detail}`, 'Show Daemon Status', 'Open Log').then((choice) => {
    if (choice === 'Show Daemon Status') void vscode.commands.executeCommand('holdfast.showStatus');
    else if (choice === 'Open Log') void vscode.commands.executeCommand('holdfast.openLog');
  });
}
