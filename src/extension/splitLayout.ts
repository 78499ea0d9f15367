// Split groups in the layout metadata: every member of a group records `splitOf`, the session id of
// the group's first tab; the first records none. VS Code's API does not say which terminals share a
// group, so this record (written when Holdfast makes a split) is the truth. Pure: no vscode import.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import type { SessionInfo } from '../protocol/messages';
import { readLayout } from '../protocol/tabLayout';
import type { TabLayout } from '../protocol/tabLayout';
import type { RestoreItem } from './layout';

interface Entry {
  session: SessionInfo;
  layout: TabLayout;
}

/** The group a tab belongs to: its first tab's session id (editor tabs are never split here). */
function groupKey({ session, layout }: Entry): string {
  return layout.location === 'editor' ? session.id : (layout.splitOf ?? session.id);
}

/**
 * The restore order with split groups kept together: `entries` sorted by order; a group takes the
 * place of its first entry, its first tab leads and the members follow in order. Each member is
 * split beside the one before it (VS Code inserts a split right after its parent, so this keeps the
 * order). A group whose first tab is gone gets its next member as its new first.
 */
export function groupSplits(entries: readonly Entry[], shown: ReadonlySet<string>): RestoreItem[] {
  const groups = new Map<string, Entry[]>();
  for (const entry of entries) {
    const key = groupKey(entry);
    const group = groups.get(key);
    if (group) group.push(entry);
    else groups.set(key, [entry]);
  }
  const items: RestoreItem[] = [];
  for (const [key, group] of groups) {
    const first = group.findIndex((e) => e.session.id === key);
    if (first > 0) group.unshift(...group.splice(first, 1));
    // The first tab already shown in this window: the restored members join it.
    let beside = group[0].session.id !== key && shown.has(key) ? key : undefined;
    for (const { session, layout } of group) {
      items.push({ session, location: layout.location ?? 'panel', ...(beside ? { splitBeside: beside } : {}) });
      if (layout.location !== 'editor') beside = session.id;
    }
  }
  return items;
}

export interface SplitPatch {
  id: string;
  splitOf: string | undefined;
}

/**
 * The layout changes that take `leavingId` out of its split group (it closes, is killed, detached
 * or moved to the editor area): a member just drops its `splitOf`; when the first leaves, the next
 * member (by order) becomes the first and the others point at it.
 */
export function leaveGroupPatches(sessions: readonly SessionInfo[], leavingId: string): SplitPatch[] {
  const leaving = sessions.find((s) => s.id === leavingId);
  const splitOf = readLayout(leaving?.metadata).splitOf;
  if (splitOf) return [{ id: leavingId, splitOf: undefined }];
  const members = sessions
    .map((session) => ({ session, layout: readLayout(session.metadata) }))
    .filter(({ session, layout }) => session.id !== leavingId && layout.splitOf === leavingId)
    .sort(
      (a, b) =>
        (a.layout.order ?? Number.MAX_SAFE_INTEGER) - (b.layout.order ?? Number.MAX_SAFE_INTEGER) ||
        a.session.createdAt - b.session.createdAt,
    );
  if (members.length === 0) return [];
  const next = members[0].session.id;
  return members.map(({ session }) => ({ id: session.id, splitOf: session.id === next ? undefined : next }));
}
