// The quick pick both Reply… and Approve / Deny open when no session was named: one row per session,
// its name, phase and reason as the program wrote them, linking nothing.
import { type UiText, uiText } from '../text/uiText';
import type { AttentionCard } from './attentionOrder';
import { showQuickPick } from './ui';

export async function pickAttentionCard(
  cards: readonly AttentionCard[],
  placeHolder: UiText,
): Promise<AttentionCard | undefined> {
  const pick = await showQuickPick(
    cards.map((card) => ({
      label: uiText(card.name),
      description: card.host === undefined ? uiText(card.phase) : uiText(`${card.phase} · ${card.host}`),
      detail: card.reason ? uiText(card.reason) : undefined,
      card,
    })),
    { placeHolder },
  );
  return pick?.card;
}
