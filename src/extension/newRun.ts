// Resume / Relaunch: a new run of an archived (or exited) session, asked of the daemon while the tab
// that shows the session waits for it (replacing: the old session's removal does not close it). Every
// step can fail, the connection first (the daemon gone at that moment): the tab is then back as it was,
// taking keys and reconnecting, never left replacing.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import type { SessionInfo } from '../protocol/messages';
import type { ShellIntegrationParams } from '../protocol/shell';
import { readLayout } from '../protocol/tabLayout';
import { printable } from '../text/printable';
import { commandLine } from '../text/shellQuote';
import { hookPath } from './codeCli';
import type { DaemonConnection } from './daemonConnection';
import type { SessionTab } from './pseudoterminal';

/** What a new run needs of the window. */
export interface NewRunContext {
  readonly connection: Pick<DaemonConnection, 'get' | 'socket'>;
  readonly windowCliHook: string | undefined;
  sessionStart(
    cliHook?: string,
    shellNonce?: string,
  ): { env: Record<string, string>; shellIntegration?: ShellIntegrationParams };
  /** Keeps the nonce the new run's shell was started with (its tab trusts its command lines). */
  sessionStarted(session: SessionInfo, nonce: string | undefined): void;
}

export interface NewRunRequest {
  id: string;
  how: 'resume' | 'relaunch';
  /** The resume command of the session's agent profile, as this window's settings have it. */
  resumeArgv?: string[];
  /** The session as this window knows it (its metadata holds its `code` hook). */
  known: SessionInfo | undefined;
}

/**
 * Asks the daemon for the new run; the tab showing the session (if any) waits replacing meanwhile.
 * Resolves with the new session and the line its tab shows; throws with the tab back as it was.
 */
export async function startNewRun(
  ctx: NewRunContext,
  request: NewRunRequest,
  tab: SessionTab | undefined,
): Promise<{ session: SessionInfo; note: string }> {
  tab?.expectReplacement();
  try {
    const client = await ctx.connection.get();
    // The new run keeps the session's metadata, so its `code` hook too (pointed here when the tab takes input).
    const hookId = ctx.windowCliHook ? readLayout(request.known?.metadata).cliHook : undefined;
    const start = ctx.sessionStart(hookId ? hookPath(ctx.connection.socket, hookId) : undefined, tab?.shellNonce);
    const { env, shellIntegration } = start;
    const { id, resumeArgv } = request;
    if (request.how === 'resume') {
      const result = await client.request('resume', { session: id, env, ...(resumeArgv ? { resumeArgv } : {}) });
      const session = result.session;
      const what = '(a new run of the agent; the conversation continues)';
      return { session, note: `resumed: ${commandLine(result.argv)} in ${printable(session.cwd)} ${what}` };
    }
    const session = (await client.request('relaunch', { session: id, env, shellIntegration })).session;
    ctx.sessionStarted(session, tab?.shellNonce);
    const what = '(a new run, not the old process)';
    return { session, note: `relaunched: ${commandLine(session.argv)} in ${printable(session.cwd)} ${what}` };
  } catch (err) {
    tab?.replacementFailed();
    throw err;
  }
}
