// One session's card: name, agent icon, state, elapsed time, title, why it waits, branch, cwd, action
// buttons and the host element of its preview. Keys on a focused card: Enter/Space focus, F2 rename, Delete
// kill or remove, arrows move between cards.
import type { Card, CardAction } from '../sessionState';
import type { Phase } from '../../agents/sessionStatus';
import { el } from './dom';
import { formatElapsed } from './elapsed';
import { run } from './host';
import { ACTION_LABELS, agentIcon, ICONS } from './icons';
import type { Preview } from './preview';

export interface CardView {
  card: Card;
  root: HTMLElement;
  name: HTMLElement;
  agent: HTMLElement;
  state: HTMLElement;
  /** The state's mark: a coloured dot, or a check when done. */
  dot: HTMLElement;
  stateLabel: HTMLElement;
  elapsed: HTMLElement;
  title: HTMLElement;
  /** Waiting or done: why (its agent's last message, or the last text on its screen). */
  reason: HTMLElement;
  cwd: HTMLElement;
  /** The worktree's branch, when the session runs in one. */
  branch: HTMLElement;
  actions: HTMLElement;
  previewHost: HTMLElement;
  preview?: Preview;
  watching: boolean;
  unwatchTimer?: number;
  actionKey: string;
}

const PHASE_LABELS: Record<Phase, string> = {
  running: 'Running',
  idle: 'Idle',
  waiting: 'Waiting for input',
  done: 'Done',
  exited: 'Exited',
  archived: 'Archived',
};

function stateText(card: Card): string {
  if (card.phase === 'exited')
    return card.exitLabel ? card.exitLabel[0].toUpperCase() + card.exitLabel.slice(1) : 'Exited';
  if (card.phase === 'archived') return card.exitLabel ? `Archived (${card.exitLabel})` : 'Archived';
  return PHASE_LABELS[card.phase];
}

/** The card's elements, empty until updateView fills them. */
export function createView(card: Card): CardView {
  const rootEl = el('div', 'card');
  rootEl.tabIndex = 0;
  rootEl.setAttribute('role', 'listitem');
  rootEl.dataset.sessionId = card.id;

  const head = el('div', 'card-head');
  const agent = el('span', 'agent-icon');
  const name = el('span', 'name');
  const actions = el('div', 'actions');
  actions.setAttribute('role', 'toolbar');
  head.append(agent, name, actions);

  const meta = el('div', 'card-meta');
  const state = el('span', 'state');
  const dot = el('span', 'dot');
  const stateLabel = el('span', 'state-label');
  const elapsed = el('span', 'elapsed');
  state.append(dot, stateLabel, elapsed);
  const title = el('span', 'title');
  meta.append(state, title);

  const reason = el('div', 'reason');
  const cwd = el('div', 'cwd');
  const branch = el('div', 'branch');
  const previewHost = el('div', 'preview');
  previewHost.dataset.sessionId = card.id;
  rootEl.append(head, meta, reason, branch, cwd, previewHost);

  const view: CardView = {
    card,
    root: rootEl,
    name,
    agent,
    state,
    dot,
    stateLabel,
    elapsed,
    title,
    reason,
    cwd,
    branch,
    actions,
    previewHost,
    watching: false,
    actionKey: '',
  };
  // A host's card opens its session in a tab here too (its id is the key "@HOST/ID").
  rootEl.addEventListener('click', () => run('focusSession', view.card.id));
  rootEl.addEventListener('keydown', (event) => onCardKey(view, event));
  return view;
}

/** Shows `card` in its view; `now` is the extension host's clock. */
export function updateView(view: CardView, card: Card, now: number): void {
  view.card = card;
  if (view.root.dataset.phase !== card.phase) view.dot.innerHTML = card.phase === 'done' ? ICONS.check : '';
  view.root.dataset.phase = card.phase;
  view.name.textContent = card.name;
  view.agent.innerHTML = agentIcon(card.agent);
  view.agent.title = card.agentLabel;
  view.state.dataset.phase = card.phase;
  view.stateLabel.textContent = stateText(card);
  view.title.textContent = card.title ?? '';
  view.title.title = card.title ?? '';
  view.title.hidden = !card.title;
  // Program text, set as text (never markup), like the title.
  view.reason.textContent = card.reason ?? '';
  view.reason.title = card.reason ?? '';
  view.reason.hidden = !card.reason;
  // The cwd is cut from the left (direction: rtl); the marks keep its slashes in place.
  view.cwd.textContent = card.cwd ? `\u200e${card.cwd}\u200e` : '';
  view.cwd.title = card.cwd ?? '';
  view.cwd.hidden = !card.cwd;
  view.branch.textContent = card.branch ? `\u2387 ${card.branch}` : '';
  view.branch.title = card.branch ? `git worktree branch ${card.branch}` : '';
  view.branch.hidden = !card.branch;
  view.root.setAttribute(
    'aria-label',
    `${card.name}, ${card.agentLabel}, ${stateText(card)}${card.title ? `, ${card.title}` : ''}` +
      (card.reason ? `: ${card.reason}` : ''),
  );
  const deleteDoes = card.actions.includes('killSession') ? 'kill' : 'remove';
  view.root.title =
    `${card.name} — ${card.agentLabel} — ${card.cols}×${card.rows}${card.cwd ? `\n${card.cwd}` : ''}` +
    `\nEnter: focus · F2: rename · Delete: ${deleteDoes}`;
  const key = `${card.actions.join(',')}\n${card.startAgain ?? ''}`;
  if (key !== view.actionKey) {
    view.actionKey = key;
    view.actions.replaceChildren(...card.actions.map((action) => actionButton(view, action)));
  }
  tickView(view, now);
}

/** The elapsed time on the card; `now` is the extension host's clock. */
export function tickView(view: CardView, now: number): void {
  const ago = view.card.phase === 'exited' || view.card.phase === 'archived';
  view.elapsed.textContent = `${formatElapsed(now - view.card.since)}${ago ? ' ago' : ''}`;
}

function actionButton(view: CardView, action: CardAction): HTMLButtonElement {
  const button = el('button', `action action-${action}`);
  button.type = 'button';
  button.innerHTML = ICONS[action];
  const startAgain = action === 'resumeSession' || action === 'relaunchSession' ? view.card.startAgain : undefined;
  // The exact command comes from a checkpoint file any program could edit: shown before the click.
  button.title = startAgain ? `${ACTION_LABELS[action]} ${startAgain}` : ACTION_LABELS[action];
  button.setAttribute('aria-label', `${ACTION_LABELS[action]} ${view.card.name}`);
  button.addEventListener('click', (event) => {
    event.stopPropagation();
    run(action, view.card.id);
  });
  return button;
}

function onCardKey(view: CardView, event: KeyboardEvent): void {
  if (event.target !== view.root) return;
  const id = view.card.id;
  switch (event.key) {
    case 'Enter':
    case ' ':
      run('focusSession', id);
      break;
    case 'F2':
      if (view.card.host === undefined) run('renameSession', id); // a host's session is renamed there
      break;
    case 'Delete':
      if (view.card.actions.includes('killSession')) run('killSession', id);
      else if (view.card.actions.includes('removeSession')) run('removeSession', id);
      break;
    case 'ArrowDown':
    case 'ArrowUp': {
      const cards = Array.from(document.querySelectorAll<HTMLElement>('.card')).filter((c) => c.offsetParent !== null);
      const next = cards[cards.indexOf(view.root) + (event.key === 'ArrowDown' ? 1 : -1)];
      next?.focus();
      break;
    }
    default:
      return;
  }
  event.preventDefault();
}
