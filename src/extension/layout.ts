// Where a session's tab lives, kept in the session's own metadata so that any window
// (after a reload, a restart or an extension host crash) can rebuild the same tabs.
// Pure: no vscode import, unit-tested.
import type { SessionInfo } from '../protocol/messages';
import { groupSplits } from './splitLayout';

export type TabLocation = 'panel' | 'editor';

/** The part of a session's metadata the extension owns. Unknown keys are kept as they are. */
export interface TabLayout {
  /** Which workspace shows this session as a tab (see workspaceKey). */
  workspace?: string;
  /** Position among this workspace's tabs; smaller comes first. */
  order?: number;
  location?: TabLocation;
  /** When the tab last became the active terminal (ms); the most recent one is restored as active. */
  activeAt?: number;
  /** Hidden on purpose (Detach): keeps running, gets no tab until attached again. */
  detached?: boolean;
  /** Id of the session's stable `code` CLI hook (see codeCli.ts). */
  cliHook?: string;
  /** Shown split beside this session's tab (the first of its split group; see splitLayout.ts). */
  splitOf?: string;
}

export function readLayout(metadata: Record<string, unknown> | undefined): TabLayout {
  const m = metadata ?? {};
  const layout: TabLayout = {};
  if (typeof m.workspace === 'string') layout.workspace = m.workspace;
  if (typeof m.order === 'number' && Number.isFinite(m.order)) layout.order = m.order;
  if (m.location === 'panel' || m.location === 'editor') layout.location = m.location;
  if (typeof m.activeAt === 'number' && Number.isFinite(m.activeAt)) layout.activeAt = m.activeAt;
  if (m.detached === true) layout.detached = true;
  if (typeof m.cliHook === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(m.cliHook)) layout.cliHook = m.cliHook;
  if (typeof m.splitOf === 'string' && m.splitOf) layout.splitOf = m.splitOf;
  return layout;
}

/** New metadata: the old one with `patch` applied; `undefined` values delete a key. */
export function withLayout(
  metadata: Record<string, unknown> | undefined,
  patch: Partial<Record<keyof TabLayout, unknown>>,
): Record<string, unknown> {
  const next: Record<string, unknown> = { ...(metadata ?? {}) };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) delete next[key];
    else next[key] = value;
  }
  return next;
}

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
