// What the window's tabs are made with (tabs.ts): the window's services, and what a new session runs.
import type * as vscode from 'vscode';
import type { SessionInfo } from '../protocol/messages';
import type { DaemonConnection } from './daemonConnection';
import type { RemoteHosts } from './remoteHosts';
import type { Memento } from './remoteTabRecord';
import type { SessionList } from './sessionList';
import type { ShellIntegration } from './shellIntegration';

export interface TabsOptions {
  connection: DaemonConnection;
  sessions: SessionList;
  workspace: string;
  log: vscode.LogOutputChannel;
  /** Folders to put first on a new session's PATH (`holdfast`, the editor's `code`). */
  sessionPath(): string[];
  /** This window's CLI hook (the extension host's VSCODE_IPC_HOOK_CLI), if the editor has one. */
  windowCliHook: string | undefined;
  /** A session this window killed is gone (its worktree may be offered for removal). */
  sessionRemoved?(session: SessionInfo): void;
  /** VS Code's shell integration in the shells: the scripts, the setting, each session's nonce. */
  shell: ShellIntegration;
  /** The SSH hosts of holdfast.hosts, and where this window records its tabs on them (remoteTabs.ts). */
  remotes?: { hosts: RemoteHosts; state: Memento };
}

/** A split's group (its first session's id) and directory, set by splitGroups.ts; `cancelled`: closed sessionless. */
export type SplitRequest = { splitOf?: string; cwd?: string; cancelled?: boolean };

/** What a new session runs instead of the shell (an agent), and what it records about it. */
export interface Launch {
  argv: string[];
  metadata: Record<string, unknown>;
  /** Default names are "<nameBase> N" (e.g. "claude 1") instead of "holdfast N". */
  nameBase: string;
  /** Where it runs instead of the workspace folder (e.g. its git worktree). */
  cwd?: string;
  /** The session could not be created (the tab shows why); undoes what was made for it. */
  createFailed?(error: unknown): void;
}
