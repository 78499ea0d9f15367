// The part of a session's metadata that says where its tab lives (workspace, order, panel or
// editor, split group). The extension writes it; the extension and the CLI (`holdfast mcp
// --sessions workspace`) read it with readLayout, so both accept the same values.
export type TabLocation = 'panel' | 'editor';

/** The part of a session's metadata the extension owns. Unknown keys are kept as they are. */
export interface TabLayout {
  /** Which workspace shows this session as a tab (see workspaceKey in src/extension/layout.ts). */
  workspace?: string;
  /** Position among this workspace's tabs; smaller comes first. */
  order?: number;
  location?: TabLocation;
  /** When the tab last became the active terminal (ms); the most recent one is restored as active. */
  activeAt?: number;
  /** Hidden on purpose (Detach): keeps running, gets no tab until attached again. */
  detached?: boolean;
  /** Id of the session's stable `code` CLI hook (see src/extension/codeCli.ts). */
  cliHook?: string;
  /** Shown split beside this session's tab (the first of its split group; see src/extension/splitLayout.ts). */
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
