// What the user's actions on a session mean for its tab: closing a tab (kill, keep running, or
// ask: VS Code calls a pseudoterminal's close() also when the window goes away, so a session is
// killed only when window.onDidCloseTerminal says the *user* closed its tab), Kill, Detach,
// Resume / Relaunch in the same tab, and the extension's part of a session's metadata.
import * as vscode from 'vscode';
import { RequestError } from '../client/client';
import { ErrorCode, type SessionInfo } from '../protocol/messages';
import { readLayout, type TabLayout, type TabLocation, withLayout } from '../protocol/tabLayout';
import type { DaemonConnection } from './daemonConnection';
import { startNewRun } from './newRun';
import type { SessionTab } from './pseudoterminal';
import type { SessionList } from './sessionList';
import type { SessionStart } from './sessionStart';
import { settings } from './settings';
import { leaveGroupPatches } from './splitLayout';
import type { TabRegistry } from './tabRegistry';
import { showModal } from './ui';
import { ui, uiText } from '../text/uiText';

type LayoutPatch = Partial<Record<keyof TabLayout, unknown>>;

/** What the session actions need from the window's tabs. */
export interface ActionsContext {
  readonly registry: TabRegistry;
  readonly connection: DaemonConnection;
  readonly sessions: SessionList;
  readonly windowCliHook: string | undefined;
  /** The window is going away: record nothing more. */
  isFrozen(): boolean;
  freeze(): void;
  sessionStart(cliHook?: string, shellNonce?: string): SessionStart;
  /** A new run's shell was started with `nonce` (its tab's). */
  sessionStarted(session: SessionInfo, nonce: string | undefined): void;
  showSession(session: SessionInfo, location: TabLocation): vscode.Terminal | undefined;
  reportError(message: string, error: unknown): void;
  warn(line: string): void;
  /** A session killed here is gone. */
  sessionRemoved(session: SessionInfo): void;
  /** A host's session's tab was closed for good: it is not reopened after a reload (remoteTabRecord.ts). */
  forgetRemote(key: string): void;
}

export class SessionActions {
  /** Tabs the user closed before their new session existed: killed as soon as it does. */
  private readonly killWhenCreated = new WeakSet<SessionTab>();

  constructor(private readonly ctx: ActionsContext) {}

  /** A terminal closed: decide what that means for its session. */
  async onClosed(terminal: vscode.Terminal): Promise<void> {
    const tab = this.ctx.registry.untrack(terminal);
    if (!tab) return;
    const reason = terminal.exitStatus?.reason;
    if (reason === vscode.TerminalExitReason.Shutdown) this.ctx.freeze();
    if (tab.remoteHost !== undefined) {
      // A host's session runs on there: closing its tab here only detaches (the tab's close() did).
      const closed = tab.closeIntent || reason === vscode.TerminalExitReason.User;
      if (closed && !this.ctx.isFrozen() && tab.sessionId) this.ctx.forgetRemote(tab.sessionId);
      return;
    }
    if (tab.closeIntent || reason !== vscode.TerminalExitReason.User || this.ctx.isFrozen()) return;
    // The user closed the tab (trash icon, Kill Terminal, closing the editor tab).
    const id = tab.sessionId;
    if (!id) {
      this.killWhenCreated.add(tab); // still being created: kill it once it exists
      return;
    }
    await this.applyCloseAction(id, tab.session?.name ?? id, tab.exited);
  }

  /** A tab's new session exists: record it as active if its tab is; kill it if the user closed the tab meanwhile. */
  sessionCreated(tab: SessionTab, session: SessionInfo): void {
    // The tab became active before its session existed, so the layout tracker could not record it.
    const terminal = this.ctx.registry.terminalOf(tab);
    if (terminal && terminal === vscode.window.activeTerminal && !this.ctx.isFrozen())
      void this.updateLayout(session.id, { activeAt: Date.now() }).catch((err) =>
        this.ctx.warn(`recording the layout of ${session.id}: ${(err as Error).message}`),
      );
    if (this.killWhenCreated.has(tab))
      void this.killSession(session.id).catch((err) => this.ctx.warn(`killing ${session.id}: ${err}`));
  }

  private async applyCloseAction(id: string, name: string, exited: boolean): Promise<void> {
    let action = settings.closeAction();
    if (action === 'ask' && !exited) {
      const closed = ui`Holdfast: the terminal "${uiText(name)}" was closed.`;
      const choice = await showModal(
        ui`${closed} Kill its session, or keep it running in the background?`,
        undefined,
        ui`Kill`,
        ui`Keep Running`,
      );
      action = choice === 'Kill' ? 'kill' : 'detach';
    }
    try {
      if (action === 'detach' && !exited) await this.leaveSplitGroup(id, { detached: true });
      else await this.killSession(id);
    } catch (err) {
      this.ctx.reportError(`Holdfast could not ${action === 'detach' ? 'detach' : 'kill'} the session "${name}"`, err);
    }
  }

  /** Ends a session and removes it (its tab closes when the daemon says it was removed). */
  async killSession(id: string): Promise<void> {
    const tab = this.ctx.registry.tabForSession(id);
    if (tab) tab.closeIntent = 'removed';
    const client = await this.ctx.connection.get();
    const known = this.ctx.sessions.get(id) ?? tab?.session;
    try {
      this.ctx.sessionRemoved((await client.request('kill', { session: id, remove: true })).session);
    } catch (err) {
      if (!(err instanceof RequestError)) throw err;
      if (err.code === ErrorCode.NoSession) return;
      if (err.code !== ErrorCode.Exited) throw err;
      await client.request('remove', { session: id });
      if (known) this.ctx.sessionRemoved(known);
    }
    await this.leaveSplitGroup(id, undefined, true);
  }

  /**
   * Takes a session out of its split group in the record, with `own` changes to its layout in the
   * same write (one write: a second one could start from metadata that misses the first). When it
   * led the group, the next member leads. `gone`: the session was removed (only the members change).
   * The members' writes only log a failure: the restore plan copes with a group whose first is gone.
   */
  async leaveSplitGroup(id: string, own?: LayoutPatch, gone = false): Promise<void> {
    const patches = leaveGroupPatches(
      this.ctx.sessions.all.filter((s) => !gone || s.id !== id),
      id,
    );
    const leaves = patches.some((p) => p.id === id);
    if (own || leaves) await this.updateLayout(id, { ...own, ...(leaves ? { splitOf: undefined } : {}) });
    try {
      for (const patch of patches) if (patch.id !== id) await this.updateLayout(patch.id, { splitOf: patch.splitOf });
    } catch (err) {
      this.ctx.warn(`updating the split group of ${id}: ${(err as Error).message}`);
    }
  }

  /**
   * Starts an archived (or exited) session again in its own tab, which stays where it is: `resume`
   * continues an agent's conversation, `relaunch` runs the command again. A new run, not the old process.
   * `resumeArgv` is the resume command of the session's agent profile as this window's settings have it.
   */
  async startAgain(id: string, how: 'resume' | 'relaunch', resumeArgv?: string[]): Promise<SessionInfo> {
    const { registry } = this.ctx;
    const tab = registry.tabForSession(id);
    const known = tab?.session ?? this.ctx.sessions.get(id);
    const { session, note } = await startNewRun(this.ctx, { id, how, resumeArgv, known }, tab);
    if (tab && !tab.isClosed) {
      registry.unbind(id, tab);
      registry.bind(session.id, tab);
      await tab.replaceSession(session, note);
      registry.terminalOf(tab)?.show();
    } else {
      this.ctx.showSession(session, readLayout(session.metadata).location ?? 'panel');
    }
    return session;
  }

  /** Hides a tab and keeps its session running (it comes back through Attach to Session…). */
  async detach(tab: SessionTab): Promise<void> {
    const id = tab.sessionId;
    if (id && tab.remoteHost === undefined) await this.leaveSplitGroup(id, { detached: true });
    tab.closeTab('detach');
  }

  /** Changes the extension's part of a session's metadata, keeping every other key. */
  async updateLayout(id: string, patch: LayoutPatch): Promise<void> {
    const client = this.ctx.connection.client ?? (await this.ctx.connection.get());
    const base = this.ctx.sessions.get(id)?.metadata ?? this.ctx.registry.tabForSession(id)?.session?.metadata;
    await client.request('update', { session: id, metadata: withLayout(base, patch) });
  }
}
