// Which tabs a window rebuilds from where each session's tab lives (protocol/tabLayout.ts, kept in
// the session's own metadata so that any window, after a reload, a restart or an extension host
// crash, can rebuild the same tabs), and the names and order of new ones. Pure: no vscode import, unit-tested.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import type { SessionInfo } from '../protocol/messages';
import { readLayout, type TabLocation } from '../protocol/tabLayout';
import { groupSplits } from './splitLayout';

/** A stable name for "this workspace": the .code-workspace file, else the first folder, else the empty window. */
export function workspaceKey(workspaceFile: string | undefined, folders: readonly string[]): string {
  if (workspaceFile && !workspaceFile.startsWith('untitled:')) return workspaceFile;
  if (folders.length > 0) return folders[0];
  return 'empty-window';
}

export interface RestoreItem {
  session: SessionInfo;
  location: TabLocation;
  /** Opened split beside this session's tab (restored just before it, or already shown here). */
  splitBeside?: string;
}

export interface RestorePlan {
  items: RestoreItem[];
  /** The session whose tab was active last, if any of the restored ones. */
  activeId?: string;
}

/**
 * Which tabs this window should (re)create, in order: every session of the workspace that is not
 * detached and has no tab here yet. Exited sessions come back too: their tab was still open.
 * A split group comes back together, where its first tab was, its members in their order.
 */
export function planRestore(
  sessions: readonly SessionInfo[],
  workspace: string,
  shown: ReadonlySet<string>,
): RestorePlan {
  const mine = sessions
    .map((session) => ({ session, layout: readLayout(session.metadata) }))
    .filter(({ session, layout }) => layout.workspace === workspace && !layout.detached && !shown.has(session.id));
  mine.sort(
    (a, b) =>
      (a.layout.order ?? Number.MAX_SAFE_INTEGER) - (b.layout.order ?? Number.MAX_SAFE_INTEGER) ||
      a.session.createdAt - b.session.createdAt ||
      a.session.id.localeCompare(b.session.id),
  );
  let activeId: string | undefined;
  let activeAt = -1;
  for (const { session, layout } of mine) {
    if (layout.activeAt !== undefined && layout.activeAt > activeAt) {
      activeAt = layout.activeAt;
      activeId = session.id;
    }
  }
  return { items: groupSplits(mine, shown), activeId };
}

/** The order number for a new tab: after every tab of the workspace. */
export function nextOrder(sessions: readonly SessionInfo[], workspace: string): number {
  let max = -1;
  for (const session of sessions) {
    const layout = readLayout(session.metadata);
    if (layout.workspace === workspace && layout.order !== undefined) max = Math.max(max, layout.order);
  }
  return max + 1;
}

/** "holdfast 1", "holdfast 2", ...: the smallest number no session uses yet (names are shared by all windows). */
export function defaultSessionName(sessions: readonly SessionInfo[], base = 'holdfast'): string {
  const taken = new Set(sessions.map((s) => s.name));
  for (let n = 1; ; n++) if (!taken.has(`${base} ${n}`)) return `${base} ${n}`;
}
