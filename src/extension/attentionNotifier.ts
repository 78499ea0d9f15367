// Tells you when a session of this workspace starts waiting for you (or, with holdfast.notifications.done,
// finishes its turn) while it is not in front (its tab is not the active terminal of a focused
// window, or it has no tab here). At most one notification per session per quiet period
// (notificationPacer.ts); sessions starting within a short window of each other make one
// notification (notificationBatch.ts). One session's says why it waits and offers "Reply…" (an input
// box; the text and Enter go to that session), or at a permission prompt the daemon knows "Approve"
// and "Deny" (holdfast.approve / holdfast.deny), and "Show" (holdfast.focusSession); several
// sessions' offers "Show Next" (holdfast.nextAttention).
// Only this workspace's sessions (the sidebar's first group), so one window notifies, not every
// window. The setting holdfast.notifications.waiting turns the waiting ones off.
import * as vscode from 'vscode';
import { DisposableStore } from '../base/disposable';
import type { Phase } from '../agents/sessionStatus';
import { needingAttention } from './attentionOrder';
import type { Log } from './log';
import { NotificationAction, NotificationBatch, notificationText } from './notificationBatch';
import { showInformation } from './ui';
import { NotificationPacer } from './notificationPacer';
import type { SessionFeed } from './sessionFeed';
import { becameDone, type Card, startedWaiting } from './sessionState';
import { settings } from './settings';

export class AttentionNotifier implements vscode.Disposable {
  private readonly store = new DisposableStore();
  /** This workspace's sessions as last seen (one first seen waiting, after a reload, is not told). */
  private phases = new Map<string, Phase>();
  private readonly pacer = new NotificationPacer();
  private readonly batch = this.store.add(new NotificationBatch((ids) => void this.notify(ids)));

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
    const cards = this.candidates();
    const started = [
      ...(settings.waitingNotifications() ? startedWaiting(this.phases, cards) : []),
      ...(settings.doneNotifications() ? becameDone(this.phases, cards) : []),
    ];
    this.phases = new Map(cards.map((card) => [card.id, card.phase]));
    this.pacer.keepOnly(new Set(this.phases.keys()));
    for (const card of started) if (!this.inFront(card.id) && this.pacer.take(card.id)) this.batch.add(card.id);
  }

  /** The sessions told about: this workspace's, and every SSH host's (they belong to no workspace here). */
  private candidates(): Card[] {
    const model = this.feed.model();
    return [...model.here, ...model.hosts.flatMap((host) => host.cards)];
  }

  private inFront(id: string): boolean {
    return vscode.window.state.focused && this.isActiveTab(id);
  }

  /** The sessions of a batch that still need you and are not in front, told in one notification. */
  private async notify(ids: string[]): Promise<void> {
    const cards = needingAttention(this.candidates().filter((c) => ids.includes(c.id) && !this.inFront(c.id)));
    if (cards.length === 0) return;
    this.log.info(`attention: notifying for ${cards.map((c) => `${c.id} (${c.phase})`).join(', ')}`);
    // Names and reasons come from programs and scripts: notificationText makes them UI text.
    const { message, actions } = notificationText(cards);
    const choice = await showInformation(message, ...actions);
    const target = cards[0].id;
    // Show: its tab here (a host's session's over its host's connection; the key says which).
    if (choice === NotificationAction.Show) await this.run('holdfast.focusSession', target);
    else if (choice === NotificationAction.Reply) await this.run('holdfast.replySession', target);
    else if (choice === NotificationAction.Approve) await this.run('holdfast.approve', target);
    else if (choice === NotificationAction.Deny) await this.run('holdfast.deny', target);
    else if (choice === NotificationAction.ShowNext) await this.run('holdfast.nextAttention');
  }

  private async run(command: string, ...args: string[]): Promise<void> {
    // The command reports its own failures; a rejection here means it is not registered.
    await vscode.commands.executeCommand(command, ...args).then(undefined, (err: unknown) => {
      this.log.warn(`attention: ${command} failed: ${err instanceof Error ? err.message : String(err)}`);
    });
  }

  dispose(): void {
    this.store.dispose();
  }
}
