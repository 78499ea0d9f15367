// What a host's daemon says about its sessions, checked before a window here uses it: this machine's daemon is
// trusted, a host is not (its daemon, or whatever answers over ssh, may send anything). A session info or an event
// that does not fit is dropped; its text stays program text for the sinks to make fit (src/text/uiText.ts).
import { z } from 'zod';
import type { DaemonEvent, SessionInfo } from '../protocol/messages';

/** A window shows at most this many sessions of one host: the rest of a forged flood is dropped. */
export const MAX_REMOTE_SESSIONS = 500;

const TEXT = z.string().max(4096);
const TIME = z.number().finite().nonnegative();

/** A daemon's session id (8 hex digits today): nothing a key or a command line could read as more. */
export const remoteSessionIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);

/** A signal's name as a daemon reports one (SIGTERM, SIG34): printed in a tab's exit line, so nothing else. */
const SIGNAL = z.string().regex(/^SIG[A-Z0-9]{1,16}$/);

const exitSchema = z.object({ code: z.number().int().nullable(), signal: SIGNAL.nullable(), at: TIME });

const attentionSchema = z.object({
  state: z.enum(['running', 'waiting', 'done', 'idle']),
  since: TIME,
  source: z.enum(['hook', 'prompt', 'bell', 'output', 'input', 'screen']),
  reason: z.string().max(1000).optional(),
  reasonFrom: z.enum(['transcript', 'screen']).optional(),
  permissionPrompt: z.literal(true).optional(),
  hookAgrees: z.literal(true).optional(),
});

const sessionInfoSchema = z.object({
  id: remoteSessionIdSchema,
  name: TEXT,
  pid: z.number().int(),
  state: z.enum(['running', 'exited']),
  exit: exitSchema.nullable(),
  argv: z.array(TEXT).max(1000),
  cwd: TEXT,
  startCwd: TEXT.optional(),
  cols: z.number().int().min(1).max(2000),
  rows: z.number().int().min(1).max(1000),
  title: TEXT,
  clients: z.object({ owners: z.number().int(), watchers: z.number().int() }),
  createdAt: TIME,
  lastOutputAt: TIME,
  bellAt: TIME,
  attention: attentionSchema,
  metadata: z.record(z.string(), z.unknown()),
  screenUnavailable: TEXT.optional(),
});

/** A session info from a host, or undefined when it is not one (its shell state stays there: tabs ask for it). */
export function remoteSessionInfo(raw: unknown): SessionInfo | undefined {
  const parsed = sessionInfoSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

/** The session infos of a host's list that are ones, at most MAX_REMOTE_SESSIONS. */
export function remoteSessionList(raw: unknown): SessionInfo[] {
  if (!Array.isArray(raw)) return [];
  const infos: SessionInfo[] = [];
  for (const item of raw) {
    const info = remoteSessionInfo(item);
    if (info) infos.push(info);
    if (infos.length >= MAX_REMOTE_SESSIONS) break;
  }
  return infos;
}

const eventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('removed'), id: remoteSessionIdSchema }),
  z.object({ type: z.literal('activity'), id: remoteSessionIdSchema, at: TIME }),
  z.object({ type: z.literal('idle'), id: remoteSessionIdSchema, at: TIME }),
  z.object({ type: z.literal('bell'), id: remoteSessionIdSchema, at: TIME }),
  z.object({ type: z.literal('attention'), id: remoteSessionIdSchema, attention: attentionSchema }),
  z.object({ type: z.literal('exit'), id: remoteSessionIdSchema, exit: exitSchema }),
]);

/** A session event from a host (not a channel's), or undefined when it is not one a window follows. */
export function remoteEvent(raw: unknown): DaemonEvent | undefined {
  if (!raw || typeof raw !== 'object' || 'channel' in raw) return undefined;
  if ((raw as { type?: unknown }).type === 'session') {
    const session = remoteSessionInfo((raw as { session?: unknown }).session);
    return session ? { type: 'session', session } : undefined;
  }
  const parsed = eventSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

const tabEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('role'), channel: z.number().int(), role: z.enum(['owner', 'watcher']), reason: TEXT }),
  z.object({ type: z.literal('exit'), id: remoteSessionIdSchema, exit: exitSchema }),
  z.object({ type: z.literal('removed'), id: remoteSessionIdSchema }),
]);

/**
 * An event a host's tab acts on (its channel's role, its session's exit, change or removal), or undefined when it
 * is not one: a forged role or exit status never reaches the tab's input or its terminal.
 */
export function remoteTabEvent(raw: unknown): DaemonEvent | undefined {
  if ((raw as { type?: unknown } | null)?.type === 'session') {
    const session = remoteSessionInfo((raw as { session?: unknown }).session);
    return session ? { type: 'session', session } : undefined;
  }
  const parsed = tabEventSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}
