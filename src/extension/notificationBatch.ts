// Coalescing attention notifications: sessions that start to need you within a short window of the
// first make one notification ("3 agents need you: a, b, c"), not a stack of them; and the text of
// each. Pure: no vscode import, unit-tested (notificationPacer.ts keeps each session's quiet period).
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import { ui, type UiText, uiJoin, uiText } from '../text/uiText';
import type { AttentionCard } from './attentionOrder';

/** Sessions starting to need you this soon after the first are told in the same notification. */
export const COALESCE_WINDOW_MS = 1500;
/** Names listed in a coalesced notification at most; the rest are counted. */
const NAMES_SHOWN = 5;

/** The actions a notification offers (the e2e clicks them by these labels). */
export const NotificationAction = {
  Approve: ui`Approve`,
  Deny: ui`Deny`,
  Reply: ui`Reply…`,
  Show: ui`Show`,
  ShowNext: ui`Show Next`,
} as const;

/** Ids added within a window of the first, handed to `flush` together at its end (each once, in order). */
export class NotificationBatch {
  private pending: string[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly flush: (ids: string[]) => void,
    private readonly windowMs = COALESCE_WINDOW_MS,
  ) {}

  add(id: string): void {
    if (!this.pending.includes(id)) this.pending.push(id);
    this.timer ??= setTimeout(() => {
      const ids = this.pending;
      this.pending = [];
      this.timer = undefined;
      this.flush(ids);
    }, this.windowMs);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = [];
  }
}

/** A session as a notification names it: `Claude Code "fix-tests"`, or `"build"` for a terminal. */
function who(card: AttentionCard): UiText {
  const named = ui`"${uiText(card.name)}"`;
  // A host's session says where it runs: the same name may run here too.
  const name = card.host === undefined ? named : ui`${named} on ${uiText(card.host)}`;
  return card.agent === 'terminal' ? name : ui`${uiText(card.agentLabel)} ${name}`;
}

/**
 * One session's notification, with why it waits (Approve / Deny at a permission prompt the daemon can
 * answer, where Reply…'s Enter would pick a choice blind); several sessions' in one line with their names.
 */
export function notificationText(cards: readonly AttentionCard[]): { message: UiText; actions: UiText[] } {
  if (cards.length === 1) {
    const [card] = cards;
    const what = card.phase === 'done' ? ui`is done` : ui`is waiting for you`;
    // The reason is the program's text (its screen, its agent's message): it links nothing here.
    const why = card.reason ? ui`: ${uiText(card.reason)}` : ui`.`;
    const answers = card.permissionPrompt
      ? [NotificationAction.Approve, NotificationAction.Deny]
      : [NotificationAction.Reply];
    return { message: ui`Holdfast: ${who(card)} ${what}${why}`, actions: [...answers, NotificationAction.Show] };
  }
  const kind = cards.every((card) => card.agent !== 'terminal') ? ui`agents` : ui`sessions`;
  const names = uiJoin(
    cards.slice(0, NAMES_SHOWN).map((card) => uiText(card.name)),
    ui`, `,
  );
  const more = cards.length > NAMES_SHOWN ? ui` and ${cards.length - NAMES_SHOWN} more` : ui``;
  return {
    message: ui`Holdfast: ${cards.length} ${kind} need you: ${names}${more}`,
    actions: [NotificationAction.ShowNext],
  };
}
