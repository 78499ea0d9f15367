// The life of one Holdfast tab as one state, with named transitions. A transition returns the next
// state, or undefined when the move is not legal from here (the tab then ignores the event: e.g. a
// closed tab hears nothing more, an exit is announced once). Every state but closed has a way back
// to live while its session lives (test/tab-state.test.ts walks them all). Pure, unit-tested.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import type { ExitStatus } from '../protocol/messages';

/** Why a tab whose session existed has nothing to attach to any more. */
export type GoneReason = 'daemonStopped' | 'daemonRestarted' | 'sessionRemoved';

/** What the daemon says about a session the tab has just attached to. */
export interface AttachedSession {
  state: 'running' | 'exited';
  exit: ExitStatus | null;
  /** Set for a session restored from a checkpoint (no process): how it starts again. */
  archived?: 'resume' | 'relaunch';
}

/** The states in which the tab holds an attachment and shows the session. */
export type AttachedState =
  { kind: 'live' } | { kind: 'exited'; exit: ExitStatus | null } | { kind: 'archived'; action: 'resume' | 'relaunch' };

export type TabState =
  /** Created; waits for VS Code to open it (and, for a new session, for its size). */
  | { kind: 'opening' }
  /** Creating the session and/or attaching to it; `exit` is set when the process ended meanwhile. */
  | { kind: 'attaching'; why: 'start' | 'reconnect' | 'replace'; exit?: ExitStatus | null }
  | AttachedState
  /** The connection dropped while attached (`was`) or attaching (none): attach again when it is back. */
  | { kind: 'reconnecting'; was?: AttachedState }
  /** Attaching failed (the tab says why); the next connection (or a key typed in the tab) tries again. */
  | { kind: 'failed' }
  /** The session is no more (its daemon went away, or it was removed): the tab is just a record. */
  | { kind: 'gone'; why: GoneReason }
  /** A new run is taking this session's place: the old session's removal does not close the tab. */
  | { kind: 'replacing'; from: TabState }
  /** Closed; `ended` keeps whether its process had ended (see processEnded), for what closing it means. */
  | { kind: 'closed'; ended: boolean | undefined };

export type TabStateKind = TabState['kind'];

export const initialTabState: TabState = { kind: 'opening' };

/** opening → attaching: the tab is open (and sized, or tired of waiting for a size). */
export function start(state: TabState): TabState | undefined {
  return state.kind === 'opening' ? { kind: 'attaching', why: 'start' } : undefined;
}

/** attaching → live / exited / archived, as the daemon has the session now. */
export function attached(state: TabState, session: AttachedSession): AttachedState | undefined {
  if (state.kind !== 'attaching') return undefined;
  if (session.archived) return { kind: 'archived', action: session.archived };
  if (session.state === 'exited') return { kind: 'exited', exit: session.exit };
  if (state.exit !== undefined) return { kind: 'exited', exit: state.exit };
  return { kind: 'live' };
}

/** live → exited: the process ended (announced once). While attaching, remembered for when it lands. */
export function processExited(state: TabState, exit: ExitStatus | null): TabState | undefined {
  if (state.kind === 'live') return { kind: 'exited', exit };
  if (state.kind === 'attaching' && state.exit === undefined) return { ...state, exit };
  return undefined;
}

/**
 * live / exited / archived / attaching → reconnecting: the connection dropped (an attach in flight
 * on it is lost). While replacing, the state it falls back to if the replacement fails becomes
 * reconnecting.
 */
export function connectionLost(state: TabState): TabState | undefined {
  if (isAttached(state)) return { kind: 'reconnecting', was: state };
  if (state.kind === 'attaching') return { kind: 'reconnecting' };
  if (state.kind !== 'replacing') return undefined;
  const from = connectionLost(state.from);
  return from ? { kind: 'replacing', from } : undefined;
}

/** reconnecting / failed → attaching: a connection is back (or the user asked to try again). */
export function reconnect(state: TabState): TabState | undefined {
  return state.kind === 'reconnecting' || state.kind === 'failed' ? { kind: 'attaching', why: 'reconnect' } : undefined;
}

/** attaching → failed: creating or attaching failed for a reason other than the session being gone. */
export function attachFailed(state: TabState): TabState | undefined {
  return state.kind === 'attaching' ? { kind: 'failed' } : undefined;
}

/**
 * Any state but closed and gone → gone. The daemon going away ends every session; a session is
 * found removed only when (re)attaching to it.
 */
export function sessionGone(state: TabState, why: GoneReason): TabState | undefined {
  if (state.kind === 'closed' || state.kind === 'gone') return undefined;
  if (why === 'sessionRemoved' && state.kind !== 'attaching') return undefined;
  return { kind: 'gone', why };
}

/** → replacing: a resume / relaunch of this tab's session was asked for. */
export function beginReplacement(state: TabState): TabState | undefined {
  return state.kind === 'closed' || state.kind === 'replacing' ? undefined : { kind: 'replacing', from: state };
}

/** replacing → what it was: the resume / relaunch failed. */
export function replacementFailed(state: TabState): TabState | undefined {
  return state.kind === 'replacing' ? state.from : undefined;
}

/** replacing → attaching: the new run exists; the tab attaches to it. */
export function replaced(state: TabState): TabState | undefined {
  return state.kind === 'replacing' ? { kind: 'attaching', why: 'replace' } : undefined;
}

/** Any state but closed → closed. */
export function close(state: TabState): TabState | undefined {
  return state.kind === 'closed' ? undefined : { kind: 'closed', ended: processEnded(state) };
}

export function isAttached(state: TabState): state is AttachedState {
  return state.kind === 'live' || state.kind === 'exited' || state.kind === 'archived';
}

/**
 * Nothing of this session runs any more (exited, archived, or gone with its daemon), so closing the
 * tab has nothing to ask about. Undefined: not known yet (the tab has not attached).
 */
export function processEnded(state: TabState): boolean | undefined {
  switch (state.kind) {
    case 'exited':
    case 'archived':
    case 'gone':
      return true;
    case 'live':
      return false;
    case 'reconnecting':
      return state.was && processEnded(state.was);
    case 'replacing':
      return processEnded(state.from);
    case 'closed':
      return state.ended;
    default:
      return undefined;
  }
}
