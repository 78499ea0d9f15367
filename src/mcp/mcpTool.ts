// What an MCP tool of `holdfast mcp` is (schemas in, structured result out, plus a short text)
// and the pieces every tool shares: the daemon connection, the rights, the session summary.
import { z } from 'zod';
import { type HoldfastClient, NoDaemonError, RequestError } from '../client/client';
import { Capability, ErrorCode, type SessionInfo } from '../protocol/messages';
import { printable } from '../text/printable';
import { agentOf } from '../protocol/recovery';
import { statusOf } from '../agents/sessionStatus';
import { compilePattern, PatternError, type TextPattern } from '../text/textPattern';
import type { DaemonLink } from '../link/daemonLink';
import { remoteSessionInfo, remoteSessionList } from '../link/remoteSessions';
import { remoteKey } from '../link/sessionKey';
import { lossReason, lostLine, mayPass, reconnect } from '../link/reconnect';
import type { Rights } from './mcpRights';

export interface ToolContext {
  /** The daemon: this machine's socket, or an SSH host's (`holdfast mcp --host`). */
  link: DaemonLink;
  env: NodeJS.ProcessEnv;
  /** The server's directory: where a session starts unless told otherwise. */
  cwd: string;
  rights: Rights;
  /** Aborted when the client cancels the call (or gives up on it): its daemon connection closes. */
  signal?: AbortSignal;
  /** The call may be made again when its connection is lost under it (a reading tool's). */
  askAgain?: boolean;
  /** The configured hosts' contexts, by name (mcpHosts.ts); none with `--host` or a scoped HOLDFAST_TOKEN. */
  hosts?: ReadonlyMap<string, ToolContext>;
}

export type Shape = Record<string, z.ZodType>;

export interface ToolResult<O> {
  data: O;
  /** A few lines for the model: every field a program or user chose made printable. */
  text: string;
}

export interface ToolDef<I extends Shape = Shape, O extends Shape = Shape> {
  name: string;
  title: string;
  description: string;
  /** Reading tools are all that --read-only offers. */
  readOnly: boolean;
  /** Ends or removes something (kill): hinted to clients that ask before such a call. */
  destructive?: boolean;
  input: I;
  output: O;
  run(args: z.infer<z.ZodObject<I>>, ctx: ToolContext): Promise<ToolResult<z.infer<z.ZodObject<O>>>>;
}

/** Keeps the schema types of one tool checked against its run function. */
export function defineTool<I extends Shape, O extends Shape>(tool: ToolDef<I, O>): ToolDef {
  return tool;
}

/**
 * The connection the tools use. With --sessions or --read-only the daemon enforces the rights too: the
 * server asks it for a credential of the sessions it may see now (read-only with --read-only) and makes
 * every request with it, and what start_session starts gets that credential in its environment.
 */
async function scopedClient(ctx: ToolContext, base: HoldfastClient, forStarted: boolean): Promise<HoldfastClient> {
  const { rights } = ctx;
  // An older daemon has no credentials: the server's own checks are all there is then.
  if ((!rights.restricted && !rights.readOnly) || !base.supports(Capability.Grant)) return base;
  for (let attempt = 1; ; attempt++) {
    const sessions = rights.restricted
      ? rights.credentialSessions((await base.request('list', {})).sessions, forStarted)
      : undefined;
    try {
      const { credential } = await base.request('grant', { sessions, readOnly: rights.readOnly || undefined });
      return await ctx.link.connect({ credential });
    } catch (err) {
      // A session removed between the list and the grant: list again.
      const gone =
        err instanceof RequestError && (err.code === ErrorCode.NoSession || err.code === ErrorCode.Forbidden);
      if (!gone || attempt === 3) throw err;
    }
  }
}

/**
 * Runs `fn` with a connection to a running daemon (never starting one) and closes it. A connection lost under a call
 * that may be made again (a handoff, ssh gone) is said on stderr in one line, reconnected, and the call made again.
 */
export async function withDaemon<T>(ctx: ToolContext, fn: (client: HoldfastClient) => Promise<T>): Promise<T> {
  let base: HoldfastClient;
  try {
    base = await ctx.link.connect();
  } catch (err) {
    // Dropped in the handshake (ssh gone): as after it. No daemon at all is said at once.
    if (!ctx.askAgain || err instanceof NoDaemonError || !mayPass(err)) throw err;
    process.stderr.write(`holdfast mcp: ${lostLine(ctx.link, err as Error)}\n`);
    base = await reconnect(ctx.link, { signal: ctx.signal });
  }
  for (;;) {
    let lost: Error | undefined;
    try {
      return await withScoped(ctx, base, async (client) => {
        let settled = false;
        const closed = client.onClose((error) => {
          if (!settled) lost = lossReason(ctx.link, client, error);
        });
        try {
          return await fn(client);
        } finally {
          settled = true;
          closed.dispose();
        }
      });
    } catch (err) {
      if (!ctx.askAgain || !lost || err instanceof RequestError || ctx.signal?.aborted) throw err;
      process.stderr.write(`holdfast mcp: ${lostLine(ctx.link, lost)}\n`);
    }
    base = await reconnect(ctx.link, { signal: ctx.signal });
  }
}

/**
 * Runs `fn` with the tools' connection made from `base` (see scopedClient) and closes both;
 * `forStarted`: the connection start_session creates with, whose credential the new session carries.
 */
export async function withScoped<T>(
  ctx: ToolContext,
  base: HoldfastClient,
  fn: (client: HoldfastClient) => Promise<T>,
  forStarted = false,
): Promise<T> {
  let client = base;
  // A cancelled wait must not hold its daemon wait for up to ten minutes.
  const cancel = () => {
    client.close();
    base.close();
  };
  ctx.signal?.addEventListener('abort', cancel, { once: true });
  try {
    client = await scopedClient(ctx, base, forStarted);
    // The credential is held by the new connection from here on.
    if (client !== base) base.close();
    if (ctx.signal?.aborted) throw new Error('cancelled by the client');
    return await fn(client);
  } finally {
    ctx.signal?.removeEventListener('abort', cancel);
    cancel();
  }
}

/** The daemon's sessions: a host's checked first (src/link/remoteSessions.ts), as it may send anything. */
async function listed(ctx: ToolContext, client: HoldfastClient): Promise<SessionInfo[]> {
  const { sessions } = await client.request('list', {});
  return ctx.link.host ? remoteSessionList(sessions) : sessions;
}

/** A session info a daemon answered with: a host's is checked (src/link/remoteSessions.ts), else it is refused. */
export function checked(ctx: ToolContext, info: SessionInfo): SessionInfo {
  if (!ctx.link.host) return info;
  const fit = remoteSessionInfo(info);
  if (!fit) throw new Error(`${ctx.link.name} answered with a session that is not one`);
  return fit;
}

/** The sessions this client may see. */
export async function visibleSessions(ctx: ToolContext, client: HoldfastClient): Promise<SessionInfo[]> {
  return (await listed(ctx, client)).filter((s) => ctx.rights.visible(s));
}

/** The session `ref` names, if this client may see it; refused like a missing one otherwise. */
export async function resolveSession(ctx: ToolContext, client: HoldfastClient, ref: string): Promise<SessionInfo> {
  return ctx.rights.resolve(await listed(ctx, client), ref);
}

/** A client's pattern compiled (RE2, linear time), or an error that says what is wrong with it. */
export function patternOf(pattern: string, flags: string | undefined): TextPattern {
  try {
    return compilePattern(pattern, flags ?? '');
  } catch (err) {
    if (err instanceof PatternError) throw new Error(`invalid pattern: ${err.message}`, { cause: err });
    throw err;
  }
}

export const sessionRef = z.string().min(1).max(512).describe('a session id, or a unique session name');

/** Where the next page starts; absent on the last page. */
export const page = (total: number, offset: number, count: number) =>
  offset + count < total ? offset + count : undefined;

/** The hosts that did not answer a tool that spans them (mcpHosts.ts), each with its one line. */
export const unreachableSchema = z.array(z.object({ host: z.string(), error: z.string() })).optional();

/** Paging of long results: `offset` is where the page starts, `limit` its size. */
export function pageInput(defaultLimit: number, maxLimit: number) {
  return {
    offset: z.number().int().min(0).optional().describe('first item of the page (0-based)'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(maxLimit)
      .optional()
      .describe(`items per page (default ${defaultLimit}, at most ${maxLimit})`),
  };
}

// Output fields that may be absent are optional, never nullable: a `["number", "null"]` type is
// refused by clients that map schemas onto a single-type dialect (Gemini's function declarations).
export const summaryShape = {
  /** "@HOST/ID" for a configured host's session (src/link/sessionKey.ts). */
  id: z.string(),
  /** A configured host's name; absent for the server's own daemon's sessions. */
  host: z.string().optional(),
  name: z.string(),
  /** running | waiting (for input) | done (its turn or command) | idle | exited | archived */
  phase: z.enum(['running', 'waiting', 'done', 'idle', 'exited', 'archived']),
  /** Once exited: the code, or the signal that ended it. */
  exitCode: z.number().optional(),
  signal: z.string().optional(),
  command: z.array(z.string()),
  cwd: z.string(),
  title: z.string(),
  cols: z.number(),
  rows: z.number(),
  /** The agent profile it was started with, if any. */
  agent: z.string().optional(),
  /** Waiting or done: why (its agent's last message, or the last text on its screen). */
  reason: z.string().optional(),
};
export const summarySchema = z.object(summaryShape);
export type SessionSummary = z.infer<typeof summarySchema>;

/** A session as a tool reports it (`host`: a configured host's): its phase as the VS Code sidebar shows it. */
export function summarize(info: SessionInfo, now = Date.now(), host?: string): SessionSummary {
  const agent = agentOf(info.metadata);
  return {
    id: host === undefined ? info.id : remoteKey(host, info.id),
    ...(host === undefined ? {} : { host }),
    name: info.name,
    phase: statusOf(info, now).phase,
    exitCode: info.exit?.code ?? undefined,
    signal: info.exit?.signal ?? undefined,
    command: info.argv,
    cwd: info.cwd,
    title: info.title,
    cols: info.cols,
    rows: info.rows,
    agent: typeof agent?.profile === 'string' ? agent.profile : undefined,
    reason: info.state === 'exited' ? undefined : info.attention?.reason,
  };
}

/** One line about a session, printable. */
export function summaryLine(s: SessionSummary): string {
  const exit = s.signal ? ` (${s.signal})` : s.exitCode !== undefined ? ` (${s.exitCode})` : '';
  const name = s.name ? ` "${printable(s.name)}"` : '';
  const agent = s.agent ? ` agent=${printable(s.agent)}` : '';
  const title = s.title ? ` title="${printable(s.title)}"` : '';
  const reason = s.reason ? ` reason="${printable(s.reason)}"` : '';
  return `${s.id}${name} ${s.phase}${exit} cwd=${printable(s.cwd)}${agent}${title}${reason}`;
}

/** Lines of a screen or history for the text part: printable, numbered from `first`. */
export function numberedLines(lines: readonly string[], first: number): string {
  return lines.map((line, i) => `${first + i}: ${printable(line)}`).join('\n');
}
