// What the sidebar says about each session, from the daemon's pushed events (never polled):
// running (output came in the last few seconds: 'activity'), idle ('idle': 2 s quiet), waiting
// for input (a 'bell' not yet followed by a new burst of output, which is what answering it
// produces, nor by output going on well past it), exited (code / signal) and archived (restored
// from a checkpoint, so exited).
// Also the card model the webviews render. Pure: no vscode import, unit-tested.
import type { DaemonEvent, ExitStatus, SessionInfo } from '../protocol/messages';
import { agentOf, archivedFrom } from '../protocol/recovery';
import { archiveAction } from './archives';
import { readLayout } from './layout';

export type Phase = 'running' | 'idle' | 'waiting' | 'exited' | 'archived';

/** The daemon calls a session idle after this much quiet (SessionTiming.IdleAfterMs in src/daemon/sessionActivity.ts). */
export const IDLE_AFTER_MS = 2000;
/** Output this long after a bell, in the same burst, ends the wait (a prompt's own redraw is shorter). */
export const OUTPUT_AFTER_BELL_MS = 1000;

interface Live {
  /** Output now (an 'activity' not yet followed by 'idle'). */
  active: boolean;
  /** When the current running/idle spell began. */
  since: number;
  /** A bell rang and no burst of output started after it. */
  waitingSince: number | undefined;
}

export interface SessionStatus {
  phase: Phase;
  /** When this phase began (ms since the epoch, daemon clock = this machine's). */
  since: number;
  exit?: ExitStatus;
}

/** Follows activity / idle / bell / exit events per session. */
export class SessionStateTracker {
  private readonly live = new Map<string, Live>();

  /** Starts over from a full list (after subscribe): what the session info alone tells. */
  reset(sessions: readonly SessionInfo[], now: number): void {
    this.live.clear();
    for (const s of sessions) this.live.set(s.id, initialLive(s, now));
  }

  /** Applies one event; true when a session's status may have changed. */
  apply(event: DaemonEvent, now: number): boolean {
    switch (event.type) {
      case 'session': {
        if (!this.live.has(event.session.id)) this.live.set(event.session.id, initialLive(event.session, now));
        return true;
      }
      case 'removed':
        return this.live.delete(event.id);
      case 'activity': {
        const live = this.ensure(event.id, now);
        live.active = true;
        live.since = event.at;
        // Output after the bell: the question was answered (or the program moved on).
        if (live.waitingSince !== undefined && event.at > live.waitingSince) live.waitingSince = undefined;
        return true;
      }
      case 'idle': {
        const live = this.ensure(event.id, now);
        live.active = false;
        live.since = event.at;
        // An answer typed while the prompt's own output was still "recent" starts no new burst;
        // but a burst that went on well past the bell (idle comes IDLE_AFTER_MS after the last
        // output) means the program moved on.
        if (live.waitingSince !== undefined && event.at - IDLE_AFTER_MS - live.waitingSince > OUTPUT_AFTER_BELL_MS)
          live.waitingSince = undefined;
        return true;
      }
      case 'bell': {
        const live = this.ensure(event.id, now);
        live.waitingSince ??= event.at;
        return true;
      }
      case 'exit':
        return true;
      default:
        return false;
    }
  }

  status(info: SessionInfo, now: number): SessionStatus {
    if (info.state === 'exited' || info.exit) {
      const exit = info.exit ?? { code: null, signal: null, at: info.lastOutputAt || now };
      return { phase: archivedFrom(info.metadata) ? 'archived' : 'exited', since: exit.at, exit };
    }
    const live = this.live.get(info.id) ?? initialLive(info, now);
    if (live.waitingSince !== undefined) return { phase: 'waiting', since: live.waitingSince };
    return { phase: live.active ? 'running' : 'idle', since: live.since };
  }

  private ensure(id: string, now: number): Live {
    let live = this.live.get(id);
    if (!live) this.live.set(id, (live = { active: false, since: now, waitingSince: undefined }));
    return live;
  }
}

/**
 * What a session's info says by itself: output in the last IDLE_AFTER_MS is running; a bell in
 * the last burst of output is waiting.
 */
function initialLive(s: SessionInfo, now: number): Live {
  const active = s.lastOutputAt > 0 && now - s.lastOutputAt < IDLE_AFTER_MS;
  const waiting = s.bellAt > 0 && s.lastOutputAt - s.bellAt < IDLE_AFTER_MS;
  return {
    active,
    since: active ? s.lastOutputAt : Math.max(s.lastOutputAt, s.createdAt),
    waitingSince: waiting ? s.bellAt : undefined,
  };
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
  | 'relaunchSession';

export interface Card {
  id: string;
  name: string;
  agent: AgentKind;
  /** "Claude Code", a custom profile's name, or "Terminal". */
  agentLabel: string;
  phase: Phase;
  since: number;
  /** "exited with code 1", "killed by SIGTERM", ... for exited and archived sessions. */
  exitLabel?: string;
  title?: string;
  cwd?: string;
  cols: number;
  rows: number;
  createdAt: number;
  /** In this workspace (shown first) or another. */
  here: boolean;
  actions: CardAction[];
}

export interface SidebarModel {
  /** The extension host's clock when this was sent; the webview ticks elapsed times from it. */
  now: number;
  connected: boolean;
  here: Card[];
  others: Card[];
  /** Some archived agent can be resumed (the "Resume All Agents" title action). */
  hasArchivedAgents: boolean;
}

export function agentKind(metadata: Record<string, unknown> | undefined): { kind: AgentKind; label: string } {
  const agent = agentOf(metadata);
  if (!agent) return { kind: 'terminal', label: 'Terminal' };
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
  if (hit) return { kind: hit[0], label: agent.name || hit[1] };
  return { kind: 'custom', label: agent.name || agent.profile || 'Agent' };
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

function actionsFor(info: SessionInfo, phase: Phase): CardAction[] {
  if (phase === 'archived')
    return [
      archiveAction(info) === 'resume' ? 'resumeSession' : 'relaunchSession',
      'focusSession',
      'renameSession',
      'removeSession',
    ];
  if (phase === 'exited') return ['focusSession', 'renameSession', 'removeSession'];
  return ['focusSession', 'openSessionInEditor', 'renameSession', 'killSession'];
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
  return {
    id: info.id,
    name: info.name,
    agent: kind,
    agentLabel: label,
    phase: status.phase,
    since: status.since,
    exitLabel: status.phase === 'archived' ? archivedLabel(info) : exitLabel(status.exit),
    title: info.title || undefined,
    cwd: info.cwd ? displayPath(info.cwd, home) : undefined,
    cols: info.cols,
    rows: info.rows,
    createdAt: info.createdAt,
    here: readLayout(info.metadata).workspace === workspace,
    actions: actionsFor(info, status.phase),
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
  return { now, connected, here: here.map((h) => h.card), others, hasArchivedAgents };
}
