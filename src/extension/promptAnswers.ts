// Approve / Deny an agent's permission prompt (a notification's buttons, a card's, the palette's commands).
// The daemon's `answer` sends the prompt's keys only once it has checked the prompt on the screen, and only
// at once where the agent's own hook said it asks (`hookAgrees`): a program can print any prompt's layout.
// Else the prompt's block, as its screen shows it, is put in front of the user first, and the answer names
// what was shown (its digest): if the screen shows anything else by then, nothing is sent.
import { type HoldfastClient, RequestError } from '../client/client';
import { ErrorCode, type AnswerResult } from '../protocol/messages';
import {
  findPermissionPrompt,
  type PromptChoice,
  promptArea,
  promptAreaDigest,
  VERIFIED_PROMPTS,
} from '../agents/permissionPrompt';
import { ui, uiJoin, uiText } from '../text/uiText';
import { type AttentionCard, needingAttention } from './attentionOrder';
import { pickAttentionCard } from './attentionPick';
import type { SessionFeed } from './sessionFeed';
import { everyCard } from './sessionState';
import type { TabManager } from './tabs';
import { showInformation, showModal, showStatusMessage } from './ui';

/**
 * The session to answer: the one given (a notification's, a card's); from the palette, the one in the active
 * tab when its agent draws prompts Holdfast knows (the prompt the user is looking at, marked or not), else
 * one the user picks among those at a prompt.
 */
async function promptTarget(
  feed: SessionFeed,
  tabs: TabManager,
  id: string | undefined,
  choice: PromptChoice,
): Promise<AttentionCard | undefined> {
  const cards = everyCard(feed.model());
  if (id !== undefined) return cards.find((card) => card.id === id);
  const active = cards.find((card) => card.id === tabs.activeTab()?.sessionId);
  if (active && (active.permissionPrompt || Object.hasOwn(VERIFIED_PROMPTS, active.agent))) return active;
  const waiting = needingAttention(cards).filter((card) => card.permissionPrompt);
  if (waiting.length === 0) {
    void showInformation(ui`Holdfast: no session is at a permission prompt Holdfast can answer.`);
    return undefined;
  }
  const verb = choice === 'approve' ? ui`Approve` : ui`Deny`;
  return pickAttentionCard(waiting, ui`${verb} which prompt?`);
}

/** The answer, sent at once: undefined when the daemon wants the prompt shown first (its hook's word ended). */
async function answerAgreed(client: HoldfastClient, session: string, choice: PromptChoice) {
  try {
    return await client.request('answer', { session, choice });
  } catch (err) {
    if (err instanceof RequestError && err.code === ErrorCode.Unconfirmed) return undefined;
    throw err;
  }
}

/** The prompt's block shown in a dialog; answered, naming what was shown, once the user says so. */
async function answerShown(client: HoldfastClient, session: string, card: AttentionCard, choice: PromptChoice) {
  const { lines } = await client.request('read', { session });
  const prompt = findPermissionPrompt(card.agent, lines);
  if (!prompt) throw new Error(`"${card.name}" shows no permission prompt Holdfast knows now: nothing was sent`);
  const area = promptArea(lines, prompt);
  const button = choice === 'approve' ? ui`Approve` : ui`Deny`;
  const key = uiText(prompt.keys[choice]);
  const rows = uiJoin(area.map(uiText), ui`\n`);
  const why = ui`Its agent's own hook has not said that it asks, so here is the prompt as its screen shows it`;
  const picked = await showModal(
    ui`${button} what the screen of "${uiText(card.name)}" asks?`,
    ui`${why}; ${button} types "${key}" into it.\n\n${rows}`,
    button,
  );
  if (picked !== button) return undefined;
  return client.request('answer', { session, choice, shown: promptAreaDigest(area) });
}

export async function answerPrompt(
  feed: SessionFeed,
  tabs: TabManager,
  id: string | undefined,
  choice: PromptChoice,
): Promise<void> {
  const card = await promptTarget(feed, tabs, id, choice);
  if (!card) return;
  // A host's session is answered by its host's daemon, under its own id there.
  const { client, id: session } = await feed.clientFor(card.id);
  const result: AnswerResult | undefined =
    (card.hookAgrees ? await answerAgreed(client, session, choice) : undefined) ??
    (await answerShown(client, session, card, choice));
  if (!result) return;
  const done = choice === 'approve' ? ui`approved` : ui`denied`;
  showStatusMessage(ui`Holdfast: ${done} "${uiText(card.name)}": ${uiText(result.question)}`, 5000);
}
