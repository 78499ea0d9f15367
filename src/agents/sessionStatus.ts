// A session's status as both clients show it (the VS Code sidebar, `holdfast mcp`): the daemon's
// attention (running, waiting for you, done, idle: decided once in src/daemon/sessions/attention.ts), unless
// it ended: exited (code / signal) or archived (restored from a checkpoint).
import type { AttentionState, ExitStatus, SessionAttention, SessionInfo } from '../protocol/messages';
import { archivedFrom } from '../protocol/recovery';

export type Phase = AttentionState | 'exited' | 'archived';

export interface SessionStatus {
  phase: Phase;
  /** When this phase began (ms since the epoch, daemon clock = this machine's). */
  since: number;
  exit?: ExitStatus;
  /** Waiting or done: why (the daemon's attention reason, printable). */
  reason?: string;
  /** At a permission prompt the daemon can answer (`answer`: Approve / Deny). */
  permissionPrompt?: true;
  /** Its agent's own hook says it asks too (`answer` needs no look at the prompt first). */
  hookAgrees?: true;
}

/** A session's status from its info (and the newest attention known): exited, archived, or its attention. */
export function statusOf(info: SessionInfo, now: number, attention = attentionOf(info)): SessionStatus {
  if (info.state === 'exited' || info.exit) {
    const exit = info.exit ?? { code: null, signal: null, at: info.lastOutputAt || now };
    return { phase: archivedFrom(info.metadata) ? 'archived' : 'exited', since: exit.at, exit };
  }
  const { state, since, reason, permissionPrompt, hookAgrees } = attention;
  return {
    phase: state,
    since,
    ...(reason !== undefined ? { reason } : {}),
    ...(permissionPrompt ? { permissionPrompt } : {}),
    ...(permissionPrompt && hookAgrees ? { hookAgrees } : {}),
  };
}

/** The info's attention; a daemon older than attention sends none: idle since its last output. */
export function attentionOf(info: SessionInfo): SessionAttention {
  const attention = info.attention as SessionAttention | undefined;
  return attention ?? { state: 'idle', since: Math.max(info.lastOutputAt, info.createdAt), source: 'output' };
}
