// Answering the sessions that need you without hunting for them: Go to Next / Previous Agent Needing
// Attention (waiting first, then done, oldest first: attentionOrder.ts), Reply… (one line of text,
// then Enter, typed into the session the user chose, through the daemon's `send`), and Approve / Deny
// (promptAnswers.ts).
import * as vscode from 'vscode';
import { hasControl } from '../text/printable';
import { ui, uiText } from '../text/uiText';
import { type AttentionCard, needingAttention, stepThrough } from './attentionOrder';
import { pickAttentionCard } from './attentionPick';
import type { SessionFeed } from './sessionFeed';
import { answerPrompt } from './promptAnswers';
import { everyCard } from './sessionState';
import type { TabManager } from './tabs';
import { showInformation, showInputBox, showStatusMessage } from './ui';

/** Every session that needs you (any workspace, as the status-bar count, then every host's), in walking order. */
function queue(feed: SessionFeed): AttentionCard[] {
  const model = feed.model();
  return needingAttention([...model.here, ...model.others, ...model.hosts.flatMap((host) => host.cards)]);
}

async function goToAttention(feed: SessionFeed, tabs: TabManager, direction: 1 | -1): Promise<void> {
  const order = queue(feed).map((card) => card.id);
  const id = stepThrough(order, tabs.activeTab()?.sessionId, direction);
  if (!id) {
    showStatusMessage(ui`Holdfast: no session needs you.`, 4000);
    return;
  }
  await vscode.commands.executeCommand('holdfast.focusSession', id);
}

/** The session to reply to: the one given (a notification's, a card's), else one picked among those that need you. */
async function replyTarget(feed: SessionFeed, id: string | undefined): Promise<AttentionCard | undefined> {
  const cards = everyCard(feed.model());
  if (typeof id === 'string') return cards.find((card) => card.id === id);
  const waiting = needingAttention(cards);
  if (waiting.length === 0) {
    void showInformation(ui`Holdfast: no session needs you.`);
    return undefined;
  }
  return pickAttentionCard(waiting, ui`Reply to which Holdfast session?`);
}

async function replySession(feed: SessionFeed, id: string | undefined): Promise<void> {
  const card = await replyTarget(feed, id);
  if (!card) return;
  // Its reason is the program's text (its screen, its agent's message): the prompt shows it, links nothing.
  const text = await showInputBox({
    title: ui`Reply to "${uiText(card.name)}"`,
    prompt: card.reason ? uiText(card.reason) : ui`One line of text; Enter sends it to the session, then Enter.`,
    placeHolder: ui`Your answer (sent with Enter)`,
    validateInput: (value) => (hasControl(value) ? ui`One line of text: no control characters.` : undefined),
  });
  if (text === undefined) return;
  const { client, id: session } = await feed.clientFor(card.id);
  await client.request('send', { session, data: `${text}\r` });
}

/** The commands, each reporting its own failure in one message. */
export function registerAttentionCommands(feed: SessionFeed, tabs: TabManager): vscode.Disposable[] {
  const run = (command: string, title: string, fn: (...args: unknown[]) => Promise<void>) =>
    vscode.commands.registerCommand(command, async (...args: unknown[]) => {
      try {
        await fn(...args);
      } catch (err) {
        tabs.reportError(`Holdfast: ${title} failed`, err);
      }
    });
  const idOf = (id: unknown) => (typeof id === 'string' ? id : undefined);
  return [
    run('holdfast.nextAttention', 'Go to Next Agent Needing Attention', () => goToAttention(feed, tabs, 1)),
    run('holdfast.previousAttention', 'Go to Previous Agent Needing Attention', () => goToAttention(feed, tabs, -1)),
    run('holdfast.replySession', 'Reply', (id) => replySession(feed, idOf(id))),
    run('holdfast.approve', 'Approve', (id) => answerPrompt(feed, tabs, idOf(id), 'approve')),
    run('holdfast.deny', 'Deny', (id) => answerPrompt(feed, tabs, idOf(id), 'deny')),
  ];
}
