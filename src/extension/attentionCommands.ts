// Answering the sessions that need you without hunting for them: Go to Next / Previous Agent Needing
// Attention (waiting first, then done, oldest first: attentionOrder.ts), Reply… (one line of text,
// then Enter, typed into the session the user chose, through the daemon's `send`), and Approve / Deny
// (the daemon's `answer`: it sends the prompt's keys only once it has checked the prompt on the screen).
import * as vscode from 'vscode';
import type { PromptChoice } from '../agents/permissionPrompt';
import { hasControl, printable } from '../text/printable';
import { type AttentionCard, needingAttention, stepThrough } from './attentionOrder';
import type { SessionFeed } from './previewHost';
import type { TabManager } from './tabs';

/** Every session that needs you (any workspace, as the status-bar count), in walking order. */
function queue(feed: SessionFeed): AttentionCard[] {
  const model = feed.model();
  return needingAttention([...model.here, ...model.others]);
}

async function goToAttention(feed: SessionFeed, tabs: TabManager, direction: 1 | -1): Promise<void> {
  const order = queue(feed).map((card) => card.id);
  const id = stepThrough(order, tabs.activeTab()?.sessionId, direction);
  if (!id) {
    vscode.window.setStatusBarMessage('Holdfast: no session needs you.', 4000);
    return;
  }
  await vscode.commands.executeCommand('holdfast.focusSession', id);
}

/**
 * The session to answer: the one given (a notification's, a card's), else one the user picks among
 * those that need you (`atPrompt`: those at a permission prompt).
 */
async function answerTarget(
  feed: SessionFeed,
  id: string | undefined,
  atPrompt: boolean,
  placeHolder: string,
): Promise<AttentionCard | undefined> {
  const model = feed.model();
  const cards = [...model.here, ...model.others];
  if (typeof id === 'string') return cards.find((card) => card.id === id);
  const waiting = needingAttention(cards).filter((card) => !atPrompt || card.permissionPrompt);
  if (waiting.length === 0) {
    const none = atPrompt ? 'no session is at a permission prompt Holdfast can answer' : 'no session needs you';
    void vscode.window.showInformationMessage(`Holdfast: ${none}.`);
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    waiting.map((card) => ({ label: card.name, description: card.phase, detail: card.reason, card })),
    { placeHolder },
  );
  return pick?.card;
}

async function replySession(feed: SessionFeed, tabs: TabManager, id: string | undefined): Promise<void> {
  const card = await answerTarget(feed, id, false, 'Reply to which Holdfast session?');
  if (!card) return;
  // Names and reasons are program text: printable (the daemon made the reason so), and shown as text.
  const text = await vscode.window.showInputBox({
    title: `Reply to "${printable(card.name)}"`,
    prompt: card.reason ?? 'One line of text; Enter sends it to the session, then Enter.',
    placeHolder: 'Your answer (sent with Enter)',
    validateInput: (value) => (hasControl(value) ? 'One line of text: no control characters.' : undefined),
  });
  if (text === undefined) return;
  const client = await tabs.connection.get();
  await client.request('send', { session: card.id, data: `${text}\r` });
}

/** Approve / Deny: the daemon refuses (no-prompt) unless the prompt it knows is on the session's screen. */
async function answerPrompt(feed: SessionFeed, tabs: TabManager, id: unknown, choice: PromptChoice): Promise<void> {
  const verb = choice === 'approve' ? 'Approve' : 'Deny';
  const card = await answerTarget(feed, typeof id === 'string' ? id : undefined, true, `${verb} which prompt?`);
  if (!card) return;
  const client = await tabs.connection.get();
  const { question } = await client.request('answer', { session: card.id, choice });
  const done = choice === 'approve' ? 'approved' : 'denied';
  vscode.window.setStatusBarMessage(`Holdfast: ${done} "${printable(card.name)}": ${printable(question)}`, 5000);
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
  return [
    run('holdfast.nextAttention', 'Go to Next Agent Needing Attention', () => goToAttention(feed, tabs, 1)),
    run('holdfast.previousAttention', 'Go to Previous Agent Needing Attention', () => goToAttention(feed, tabs, -1)),
    run('holdfast.replySession', 'Reply', (id) => replySession(feed, tabs, typeof id === 'string' ? id : undefined)),
    run('holdfast.approve', 'Approve', (id) => answerPrompt(feed, tabs, id, 'approve')),
    run('holdfast.deny', 'Deny', (id) => answerPrompt(feed, tabs, id, 'deny')),
  ];
}
