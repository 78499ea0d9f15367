// VS Code's startup shell: a terminal view that initialises with no terminal opens a default shell
// unless `terminal.integrated.hideOnStartup` says otherwise. Holdfast's package.json makes `whenEmpty`
// the default, so VS Code hides the empty panel instead and the restored tabs show it again. But VS Code
// applies an extension's defaults only once its extensions are registered (a web window caches them only
// after that), and a window slow to get there has read `never` by then and opened its shell beside the
// restored tabs (the splits e2e caught it on VS Code 1.96 after a first reload). So the value is also put
// in the user's own settings, once, where the user has none of their own: read at startup, it wins the race.
import * as vscode from 'vscode';

const SETTING = 'hideOnStartup';
/** Set once the value was written (or found set): a user who removes it later is not overruled again. */
const WRITTEN_KEY = 'holdfast.startupShellSettingWritten';

/** At activation: reports a user override that brings the startup shell back, else makes `whenEmpty` the user's. */
export async function keepStartupShellHidden(log: vscode.LogOutputChannel, state: vscode.Memento): Promise<void> {
  const config = vscode.workspace.getConfiguration('terminal.integrated');
  const inspected = config.inspect<string>(SETTING);
  const chosen = inspected?.workspaceFolderValue ?? inspected?.workspaceValue ?? inspected?.globalValue;
  if (chosen === 'never')
    log.info(
      'terminal.integrated.hideOnStartup is "never" in your settings: after a reload VS Code opens a new shell ' +
        'beside the restored Holdfast tabs (remove the setting, or set it to "whenEmpty", to keep only the tabs)',
    );
  if (chosen !== undefined || state.get<boolean>(WRITTEN_KEY)) return;
  await state.update(WRITTEN_KEY, true);
  await config.update(SETTING, 'whenEmpty', vscode.ConfigurationTarget.Global);
  log.info(
    'terminal.integrated.hideOnStartup set to "whenEmpty" in your user settings (Holdfast\'s default, read ' +
      'earlier at startup from there): no VS Code shell beside the restored tabs after a reload',
  );
}
