// Which sessions need you, in the order Go to Next / Previous Agent Needing Attention walks them:
// those waiting for you first, then those done, each oldest first. Pure: no vscode import, unit-tested.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import type { Card } from './sessionState';

/** The fields ordering and notifying need of a card. */
export type AttentionCard = Pick<
  Card,
  'id' | 'host' | 'name' | 'agent' | 'agentLabel' | 'phase' | 'since' | 'reason' | 'permissionPrompt' | 'hookAgrees'
>;

/** Cards that wait for you or are done: waiting first, then done, each oldest first (ties by id). */
export function needingAttention<C extends AttentionCard>(cards: readonly C[]): C[] {
  const rank = (card: C) => (card.phase === 'waiting' ? 0 : 1);
  return cards
    .filter((card) => card.phase === 'waiting' || card.phase === 'done')
    .sort((a, b) => rank(a) - rank(b) || a.since - b.since || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The session after `current` in `order` (before it, for -1), going round; from outside the order
 * (none in front, or the one in front needs nothing), the first (the last, for -1).
 */
export function stepThrough(
  order: readonly string[],
  current: string | undefined,
  direction: 1 | -1,
): string | undefined {
  if (order.length === 0) return undefined;
  const at = current === undefined ? -1 : order.indexOf(current);
  if (at < 0) return direction === 1 ? order[0] : order[order.length - 1];
  return order[(at + direction + order.length) % order.length];
}
