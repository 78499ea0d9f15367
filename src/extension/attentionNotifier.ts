// Tells you when a session of this workspace starts waiting for you while it is not in front (its
// tab is not the active terminal of a focused window, or it has no tab here): one notification per
// transition into waiting, at most one per session per quiet period (notificationPacer.ts), with "Show",
// which focuses its tab or attaches one (holdfast.focusSession).
// Only this workspace's sessions (the sidebar's first group), so one window notifies, not every
// window. The setting holdfast.notifications.waiting turns it off.
import * as vscode from 'vscode';
import { DisposableStore } from '../protocol/disposable';
import { printable } from '../protocol/printable';
import { Phase } from '../protocol/sessionStatus';
import { Log } from './log';
import { NotificationPacer } from './notificationPacer';
import type { SessionFeed } from './previewHost';
import { Card, startedWaiting } from './sessionState';
import { settings } from './settings';

export class AttentionNotifier implements vscode.Disposable {
  private readonly store = new DisposableStore();
  /** This workspace's sessions as last seen (one first seen waiting, after a reload, is not told). */
  private phases = new Map<string, Phase>();
  private readonly pacer = new NotificationPacer();

  constructor(
    private readonly feed: SessionFeed,
    /** Whether the session's tab is the active terminal of this window (focus is checked here). */
    private readonly isActiveTab: (id: string) => boolean,
    private readonly log: Log,
  ) {
    this.store.add(feed.onDidChange(() => this.check()));
    this.check();
  }

  private check(): void {
    const cards = this.feed.model().here;
    const started = startedWaiting(this.phases, cards);
    this.phases = new Map(cards.map((card) => [card.id, card.phase]));
    this.pacer.keepOnly(new Set(this.phases.keys()));
    if (started.length === 0 || !settings.waitingNotifications()) return;
    for (const card of started) if (!this.inFront(card.id) && this.pacer.take(card.id)) void this.notify(card);
  }

  private inFront(id: string): boolean {
    return vscode.window.state.focused && this.isActiveTab(id);
  }

  private async notify(card: Card): Promise<void> {
    this.log.info(`attention: ${card.id} ("${card.name}") is waiting; notifying`);
    // A name can come from a script or an agent (holdfast new, MCP): shown printable, like program text.
    const name = printable(card.name);
    const who = card.agent === 'terminal' ? `"${name}"` : `${card.agentLabel} "${name}"`;
    const choice = await vscode.window.showInformationMessage(`Holdfast: ${who} is waiting for you.`, 'Show');
    if (choice !== 'Show') return;
    // The command reports its own failures; a rejection here means it is not registered.
    await vscode.commands.executeCommand('holdfast.focusSession', card.id).then(undefined, (err: unknown) => {
      this.log.warn(`attention: focusing ${card.id} failed: ${err instanceof Error ? err.message : String(err)}`);
    });
  }

  dispose(): void {
    this.store.dispose();
  }
}
