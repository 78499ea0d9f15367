// What the sidebar says about each session: its status (agents/sessionStatus.ts) kept current by
// the daemon's 'attention' events (pushed, never polled), and the card model the webviews render.
// Pure: no vscode import, unit-tested.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import type { DaemonEvent, ExitStatus, SessionAttention, SessionInfo } from '../protocol/messages';
import { agentOf, archivedFrom } from '../protocol/recovery';
import { attentionOf, type Phase, type SessionStatus, statusOf } from '../agents/sessionStatus';
import { readLayout } from '../protocol/tabLayout';
import { worktreeOf } from '../agents/worktree';
import { printable } from '../text/printable';
import { type ProgramText, programText } from '../text/programText';
import { archiveAction } from './archives';
import { startAgainCommand } from './notices';
import { remoteKey } from './sessionKey';

/** Follows the daemon's 'attention' events per session, on top of the session list's infos. */
export class SessionStateTracker {
  /** The latest pushed attention per session (newer than the info it came after). */
  private readonly attention = new Map<string, SessionAttention>();

  /** Starts over (a new connection): the session infos of the new list say the rest. */
  reset(sessions: readonly SessionInfo[]): void {
    this.attention.clear();
    for (const s of sessions) this.attention.set(s.id, attentionOf(s));
  }

  /** Applies one event; true when a session's status may have changed. */
  apply(event: DaemonEvent): boolean {
    switch (event.type) {
      case 'session':
        this.attention.set(event.session.id, attentionOf(event.session));
        return true;
      case 'attention':
        this.attention.set(event.id, event.attention);
        return true;
      case 'removed':
        return this.attention.delete(event.id);
      case 'exit':
        return true;
      default:
        return false;
    }
  }

  status(info: SessionInfo, now: number): SessionStatus {
    // A list answered after an event is the newer word; an event after the list, the event.
    const pushed = this.attention.get(info.id);
    const listed = attentionOf(info);
    return statusOf(info, now, pushed && pushed.since >= listed.since ? pushed : listed);
  }
}

/**
 * The cards that started waiting since `before` (phases by session id): one per transition into
 * waiting. A session `before` did not know is no transition: its wait began unseen.
 */
export function startedWaiting(before: ReadonlyMap<string, Phase>, cards: readonly Card[]): Card[] {
  return cards.filter((card) => {
    const was = before.get(card.id);
    return card.phase === 'waiting' && was !== undefined && was !== 'waiting';
  });
}

/** The cards that became done since `before` (as startedWaiting, for the done notifications). */
export function becameDone(before: ReadonlyMap<string, Phase>, cards: readonly Card[]): Card[] {
  return cards.filter((card) => {
    const was = before.get(card.id);
    return card.phase === 'done' && was !== undefined && was !== 'done';
  });
}

/** Sessions waiting for you, of `cards`. */
export function waitingCount(cards: readonly Card[]): number {
  return cards.filter((c) => c.phase === 'waiting').length;
}

// ---- the card model (what the webviews render) ----

export type AgentKind = 'claude' | 'codex' | 'gemini' | 'custom' | 'terminal';

/** Commands a card offers; each is `holdfast.<action>` called with the session id. */
export type CardAction =
  | 'focusSession'
  | 'openSessionInEditor'
  | 'renameSession'
  | 'killSession'
  | 'removeSession'
  | 'resumeSession'
  | 'relaunchSession'
  | 'replySession'
  | 'approve'
  | 'deny';

/**
 * A session as the sidebar, the notifications and the palette's picks show it. Its text fields come from
 * clients, checkpoints and the program (ProgramText): the webview sets them as DOM text, VS Code's UI takes
 * them through uiText().
 */
export interface Card {
  /** This machine's session id, or a host's session key (sessionKey.ts): what every command is given. */
  id: string;
  /** The SSH host it runs on; none: this machine. */
  host?: string;
  name: ProgramText;
  agent: AgentKind;
  /** "Claude Code", a custom profile's name (metadata), or "Terminal". */
  agentLabel: ProgramText;
  phase: Phase;
  since: number;
  /** Waiting or done: why (its agent's last message, or the last text on its screen). */
  reason?: ProgramText;
  /** At a permission prompt the daemon can answer: Approve / Deny instead of Reply…. */
  permissionPrompt?: true;
  /** Its agent's own hook says it asks too: Approve / Deny answer at once, else after showing the prompt. */
  hookAgrees?: true;
  /** "exited with code 1", "killed by SIGTERM", ... for exited and archived sessions. */
  exitLabel?: string;
  title?: ProgramText;
  cwd?: ProgramText;
  /** The git branch of the worktree it runs in (New Agent in Worktree…). */
  branch?: ProgramText;
  cols: number;
  rows: number;
  createdAt: number;
  /** In this workspace (shown first) or another. */
  here: boolean;
  /** Archived: where and what Resume / Relaunch would run, from the checkpoint (on its button, before the click). */
  startAgain?: ProgramText;
  actions: CardAction[];
}

/** An SSH host's part of the Sessions view (holdfast.hosts): its state, its one-line failure, its sessions. */
export interface HostSection {
  /** As the user named it in holdfast.hosts. */
  name: string;
  state: 'connecting' | 'connected' | 'failed';
  /** Why it is not connected: ssh's or the host's one line (src/link/sshFailure.ts), printable. */
  error?: ProgramText;
  cards: Card[];
}

export interface SidebarModel {
  /** The extension host's clock when this was sent; the webview ticks elapsed times from it. */
  now: number;
  connected: boolean;
  here: Card[];
  others: Card[];
  /** The SSH hosts of holdfast.hosts, after this machine's sessions, in the setting's order. */
  hosts: HostSection[];
  /** Some archived agent can be resumed (the "Resume All Agents" title action). */
  hasArchivedAgents: boolean;
}

/** A card's text: the program's, its control and bidi characters visible (the webview sets it as DOM text). */
function cardText(text: string): ProgramText {
  return programText(printable(text));
}

export function agentKind(metadata: Record<string, unknown> | undefined): { kind: AgentKind; label: ProgramText } {
  const agent = agentOf(metadata);
  if (!agent) return { kind: 'terminal', label: programText('Terminal') };
  const known: Record<string, [AgentKind, string]> = {
    claude: ['claude', 'Claude Code'],
    codex: ['codex', 'Codex CLI'],
    gemini: ['gemini', 'Gemini CLI'],
  };
  // An own key only: a recorded profile "constructor" is no built-in.
  const hit =
    typeof agent.profile === 'string' && Object.prototype.hasOwnProperty.call(known, agent.profile)
      ? known[agent.profile]
      : undefined;
  if (hit) return { kind: hit[0], label: cardText(agent.name || hit[1]) };
  return { kind: 'custom', label: cardText(agent.name || agent.profile || 'Agent') };
}

/** Why an archive is not running: its process ended with its daemon, or had ended before. */
function archivedLabel(info: SessionInfo): string | undefined {
  const from = archivedFrom(info.metadata);
  return from?.running ? 'ended with its daemon' : exitLabel(from?.exit);
}

export function exitLabel(exit: ExitStatus | null | undefined): string | undefined {
  if (!exit) return undefined;
  if (exit.signal) return `killed by ${exit.signal}`;
  return `exited with code ${exit.code ?? '?'}`;
}

function actionsFor(info: SessionInfo, { phase, permissionPrompt }: SessionStatus): CardAction[] {
  if (phase === 'archived')
    return [
      archiveAction(info) === 'resume' ? 'resumeSession' : 'relaunchSession',
      'focusSession',
      'renameSession',
      'removeSession',
    ];
  if (phase === 'exited') return ['focusSession', 'renameSession', 'removeSession'];
  const live: CardAction[] = ['focusSession', 'openSessionInEditor', 'renameSession', 'killSession'];
  if (phase !== 'waiting' && phase !== 'done') return live;
  // At a permission prompt, Enter picks the highlighted choice: a reply's Enter would answer it blind.
  return permissionPrompt ? ['approve', 'deny', ...live] : ['replySession', ...live];
}

/** A directory as shown: under `home` it starts with "~". */
export function displayPath(dir: string, home: string | undefined): string {
  if (!home || home === '/') return dir;
  const base = home.replace(/\/+$/, '');
  if (dir === base) return '~';
  return dir.startsWith(`${base}/`) ? `~${dir.slice(base.length)}` : dir;
}

export function toCard(info: SessionInfo, status: SessionStatus, workspace: string, home?: string): Card {
  const { kind, label } = agentKind(info.metadata);
  const branch = worktreeOf(info.metadata)?.branch;
  return {
    id: info.id,
    name: cardText(info.name),
    agent: kind,
    agentLabel: label,
    phase: status.phase,
    since: status.since,
    ...(status.reason !== undefined ? { reason: programText(status.reason) } : {}),
    ...(status.permissionPrompt ? { permissionPrompt: true as const } : {}),
    ...(status.permissionPrompt && status.hookAgrees ? { hookAgrees: true as const } : {}),
    exitLabel: status.phase === 'archived' ? archivedLabel(info) : exitLabel(status.exit),
    title: info.title ? cardText(info.title) : undefined,
    cwd: info.cwd ? cardText(displayPath(info.cwd, home)) : undefined,
    branch: branch === undefined ? undefined : cardText(branch),
    cols: info.cols,
    rows: info.rows,
    createdAt: info.createdAt,
    here: readLayout(info.metadata).workspace === workspace,
    ...(status.phase === 'archived'
      ? { startAgain: cardText(startAgainCommand(archiveAction(info) ?? 'relaunch', info)) }
      : {}),
    actions: actionsFor(info, status),
  };
}

/** Every session as a card: this workspace's first (in tab order), then the others (newest first). */
export function buildModel(
  sessions: readonly SessionInfo[],
  tracker: SessionStateTracker,
  workspace: string,
  now: number,
  connected: boolean,
  home?: string,
): SidebarModel {
  const here: { card: Card; order: number }[] = [];
  const others: Card[] = [];
  let hasArchivedAgents = false;
  for (const info of sessions) {
    const card = toCard(info, tracker.status(info, now), workspace, home);
    if (card.phase === 'archived' && archiveAction(info) === 'resume') hasArchivedAgents = true;
    if (card.here) here.push({ card, order: readLayout(info.metadata).order ?? Number.MAX_SAFE_INTEGER });
    else others.push(card);
  }
  here.sort((a, b) => a.order - b.order || a.card.createdAt - b.card.createdAt);
  others.sort((a, b) => b.createdAt - a.createdAt);
  return { now, connected, here: here.map((h) => h.card), others, hosts: [], hasArchivedAgents };
}

/** Every card of the model: this machine's, then each host's. */
export function everyCard(model: SidebarModel): Card[] {
  return [...model.here, ...model.others, ...model.hosts.flatMap((host) => host.cards)];
}

/** A host's sessions as cards (newest first), each keyed by host and id and never "here". */
/** A host's card's actions: renaming, killing and the rest are this machine's only. */
const HOST_ACTIONS: ReadonlySet<CardAction> = new Set<CardAction>([
  'focusSession',
  'openSessionInEditor',
  'replySession',
  'approve',
  'deny',
]);

export function hostCards(
  host: string,
  sessions: readonly SessionInfo[],
  tracker: SessionStateTracker,
  now: number,
): Card[] {
  return sessions
    .map((info) => {
      const card = toCard(info, tracker.status(info, now), '');
      // What works on a host's session from here: its tab (over the host's connection) and answering it.
      const actions = card.actions.filter((a) => HOST_ACTIONS.has(a));
      return { ...card, id: remoteKey(host, info.id), host, here: false, actions };
    })
    .sort((a, b) => b.createdAt - a.createdAt);
}
