// VS Code's startup shell: a terminal view that initialises with no terminal opens a default shell
// unless `terminal.integrated.hideOnStartup` says otherwise. Holdfast's package.json makes `whenEmpty`
// the default, so VS Code hides the empty panel instead and the restored tabs show it again: no
// stray shell after a reload, whatever the timing. This module only reports a user override.
import * as vscode from 'vscode';

/** Logs, once at activation, that a user setting brings VS Code's startup shell back beside restored tabs. */
export function reportStartupShellSetting(log: vscode.LogOutputChannel): void {
  const inspected = vscode.workspace.getConfiguration('terminal.integrated').inspect<string>('hideOnStartup');
  const chosen = inspected?.workspaceFolderValue ?? inspected?.workspaceValue ?? inspected?.globalValue;
  if (chosen === 'never')
    log.info(
      'terminal.integrated.hideOnStartup is "never" in your settings: after a reload VS Code opens a new shell ' +
        'beside the restored Holdfast tabs (remove the setting, or set it to "whenEmpty", to keep only the tabs)',
    );
}
