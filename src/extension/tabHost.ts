// What a tab needs from the window around it, and what it shows.
import type { HoldfastClient } from '../client/client';
import type { SessionInfo } from '../protocol/messages';
import type { DaemonConnection } from './daemonConnection';
import type { SessionTab } from './pseudoterminal';
import type { WindowTyping } from './windowTyping';

/** What a tab shows: a session to create when the tab opens, or one that exists. */
export type TabTarget = (
  | { kind: 'new'; name: string; create(client: HoldfastClient, size: Size | undefined): Promise<SessionInfo> }
  /** `host`: a session of that SSH host (holdfast.hosts), attached over the host's one connection. */
  | { kind: 'existing'; session: SessionInfo; host?: string }
) & {
  /** The nonce VS Code trusts the shell's command lines by (shellIntegration.ts): the tab is created with it. */
  shellNonce?: string;
};

export interface Size {
  cols: number;
  rows: number;
}

/** What a tab attaches over: this machine's daemon connection, or an SSH host's (hostConnection.ts). */
export interface TabLink {
  readonly client: HoldfastClient | undefined;
  get(): Promise<HoldfastClient>;
}

/** What a tab needs from the window around it. */
export interface TabHost {
  readonly connection: DaemonConnection;
  /** The connection of an SSH host of holdfast.hosts (none: the host is no longer there). */
  hostLink?(host: string): TabLink | undefined;
  /** The tab knows its session (a new one was created). */
  sessionKnown(tab: SessionTab, session: SessionInfo): void;
  /** This window now has input for the session: point the session's `code` hook here. */
  becameOwner(tab: SessionTab, session: SessionInfo): void;
  /** The session was removed from the daemon; the tab closes itself. */
  sessionRemoved(tab: SessionTab): void;
  /** Something the user must see beyond the tab (e.g. the daemon could not start). */
  reportError(message: string, error: unknown): void;
  /** A line for the extension's log: a failure nobody needs to see at once (e.g. a resize the daemon refused). */
  warn(line: string): void;
  /** Whether the tab is on screen (tabVisibility.ts); without it, every tab is. */
  isShown?(tab: SessionTab): boolean;
  /** VS Code sized the tab: it is on screen. */
  laidOut?(tab: SessionTab): void;
  /** Where the user types in this window: the other tabs hand the renderer less meanwhile. */
  readonly typing?: WindowTyping;
}
