// The extension's settings (declared in package.json `contributes.configuration`), read fresh each time.
import * as vscode from 'vscode';
import { type HostEntry, parseHostSetting } from '../link/hosts';

export type CloseAction = 'kill' | 'detach' | 'ask';

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration('holdfast');
}

export const settings = {
  /** Lines of scrollback the daemon keeps for a new session. */
  scrollback(): number {
    const value = config().get<number>('scrollback', 10000);
    return Number.isFinite(value) && value >= 0 ? Math.min(Math.floor(value), 1_000_000) : 10000;
  },
  /** Where New Agent in Worktree… puts worktrees; empty: `<repo parent>/<repo name>.worktrees`. */
  worktreesFolder(): string | undefined {
    const value = config().get<string>('worktrees.folder', '');
    return typeof value === 'string' && value.trim() ? value.trim() : undefined;
  },
  /** What closing a Holdfast tab by hand does to its session. */
  closeAction(): CloseAction {
    const value = config().get<string>('closeAction', 'kill');
    return value === 'detach' || value === 'ask' ? value : 'kill';
  },
  /** The shell for new Holdfast terminals: the setting, else VS Code's idea of the shell, else $SHELL. */
  shell(): { path: string; args: string[] } {
    const path = config().get<string>('shell.path', '').trim() || vscode.env.shell || process.env.SHELL || '/bin/sh';
    const args = config().get<unknown>('shell.args', []);
    return { path, args: Array.isArray(args) ? args.filter((a): a is string => typeof a === 'string') : [] };
  },
  /** A notification when a session of this workspace that is not in front starts waiting for you. */
  waitingNotifications(): boolean {
    return config().get<boolean>('notifications.waiting', true) !== false;
  },
  /** A notification when a session of this workspace that is not in front finishes its turn or command. */
  doneNotifications(): boolean {
    return config().get<boolean>('notifications.done', false) === true;
  },
  /** The SSH hosts whose sessions the Sessions view shows (docs/hosts.md), and the entries left out with why. */
  hosts(): { hosts: HostEntry[]; problems: string[] } {
    // The user's own value only: a cloned repository's settings never choose where ssh connects.
    return parseHostSetting(config().inspect<unknown>('hosts')?.globalValue ?? []);
  },
  /** Advanced: another daemon socket; empty means HOLDFAST_SOCKET or the default. */
  socketPath(): string {
    return config().get<string>('socketPath', '').trim();
  },
};
