// The messages between the extension host (previewHost.ts) and the sessions webview (main.ts).
// Types only: shared by Node and browser code.
import type { CardAction, SidebarModel } from '../sessionState';

/** Commands a webview may run (each `holdfast.<name>`); card actions get the session id. */
export type WebviewCommand = CardAction | 'newTerminal' | 'newAgent' | 'showAllSessions';

export type ToWebview =
  | { type: 'model'; model: SidebarModel }
  /** The session's screen: reset the preview, size it to cols x rows, write data. */
  | { type: 'snapshot'; id: string; data: string; cols: number; rows: number }
  | { type: 'output'; id: string; data: string }
  /** The session's size changed: the preview follows (the session is never resized by a preview). */
  | { type: 'resize'; id: string; cols: number; rows: number };

export type FromWebview =
  | { type: 'ready' }
  /** Stream this session's screen (it is on screen). */
  | { type: 'watch'; id: string }
  /** Stop streaming it (scrolled away). */
  | { type: 'unwatch'; id: string }
  | { type: 'run'; command: WebviewCommand; id?: string };
