// Small codicon-like icons (16x16, currentColor) for the sessions webview: the codicon font is
// not available inside a webview, and drawing a handful of glyphs keeps the page self-contained.
import type { AgentKind, CardAction } from '../sessionState';

const svg = (body: string) =>
  '<svg class="icon" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" fill="none" ' +
  'stroke="currentColor" stroke-width="1.2" stroke-linecap="round" stroke-linejoin="round">' +
  `${body}</svg>`;

export const ICONS = {
  terminal: svg('<rect x="1.5" y="2.5" width="13" height="11" rx="1"/><path d="M4.5 6l2.5 2-2.5 2M8.5 10.5h3"/>'),
  // Claude Code: a sparkle.
  claude: svg(
    '<path d="M8 1.8l1.5 4.7 4.7 1.5-4.7 1.5L8 14.2l-1.5-4.7L1.8 8l4.7-1.5z" fill="currentColor" stroke="none"/>',
  ),
  // Codex CLI: a hexagon with a prompt.
  codex: svg('<path d="M8 1.5l5.6 3.2v6.6L8 14.5l-5.6-3.2V4.7z"/><path d="M5.8 6.6L7.4 8 5.8 9.4M8.6 9.6h1.8"/>'),
  // Gemini CLI: a four-pointed star with curved sides.
  gemini: svg(
    '<path d="M8 1.5C8.5 5.3 10.7 7.5 14.5 8 10.7 8.5 8.5 10.7 8 14.5 7.5 10.7 5.3 8.5 1.5 8 5.3 7.5 7.5 5.3 8 1.5z"/>',
  ),
  // Any other agent: a robot.
  custom: svg(
    '<rect x="2.5" y="5" width="11" height="8.5" rx="2"/><path d="M8 5V2.5"/>' +
      '<circle cx="8" cy="2.2" r=".6" fill="currentColor"/>' +
      '<circle cx="5.8" cy="9" r=".9" fill="currentColor" stroke="none"/>' +
      '<circle cx="10.2" cy="9" r=".9" fill="currentColor" stroke="none"/>',
  ),
  focusSession: svg('<path d="M7 3.5H2.5v10h10V9"/><path d="M9.5 2.5h4v4M13.5 2.5L7.5 8.5"/>'),
  openSessionInEditor: svg('<rect x="1.5" y="2.5" width="13" height="11" rx="1"/><path d="M1.5 5.5h13M8 5.5v8"/>'),
  renameSession: svg('<path d="M10.5 2.5l3 3-8 8h-3v-3z"/><path d="M9 4l3 3"/>'),
  killSession: svg('<path d="M2.5 4.5h11M6 4.5V2.8h4v1.7M4 4.5l.8 9h6.4l.8-9M6.6 7v4.5M9.4 7v4.5"/>'),
  removeSession: svg('<path d="M4 4l8 8M12 4l-8 8"/>'),
  resumeSession: svg('<path d="M4.5 2.8l8.5 5.2-8.5 5.2z"/>'),
  // A speech bubble.
  replySession: svg('<path d="M2.5 3.5h11v7h-6l-3 2.5v-2.5h-2z"/>'),
  // A check mark in a circle, and a circle struck through.
  approve: svg('<circle cx="8" cy="8" r="5.8"/><path d="M5.3 8.2l1.9 1.9 3.6-3.8"/>'),
  deny: svg('<circle cx="8" cy="8" r="5.8"/><path d="M3.9 12.1l8.2-8.2"/>'),
  relaunchSession: svg('<path d="M13.2 8.5a5.2 5.2 0 1 1-1.6-4.3"/><path d="M12 1.8v2.8H9.2"/>'),
  // A session whose turn or command is done (codicon "check").
  check: svg('<path d="M3 8.5l3 3 7-7"/>'),
  chevron: svg('<path d="M6 3.5L10.5 8 6 12.5"/>'),
  add: svg('<path d="M8 2.5v11M2.5 8h11"/>'),
} as const;

export function agentIcon(kind: AgentKind): string {
  return ICONS[kind];
}

export const ACTION_LABELS: Record<CardAction, string> = {
  focusSession: 'Focus Terminal',
  openSessionInEditor: 'Open in Editor Area',
  renameSession: 'Rename…',
  killSession: 'Kill…',
  removeSession: 'Remove',
  resumeSession: 'Resume Agent',
  relaunchSession: 'Relaunch',
  replySession: 'Reply…',
  approve: 'Approve (once)',
  deny: 'Deny',
};
