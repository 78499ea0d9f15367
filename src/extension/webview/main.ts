// The sessions webview (sidebar and wall of screens): cards with state and a live preview of each
// session's screen in xterm.js. Browser code: no vscode, no node. The extension host attaches as
// a watcher and forwards the snapshot and the stream (previewHost.ts); a preview takes the
// session's size and is scaled to fit with a CSS transform, so it never asks the session to
// resize. Previews off-screen stop streaming and resync from a snapshot when they come back.
import { ITheme, Terminal } from '@xterm/xterm';
import type { Card, CardAction, Phase, SidebarModel } from '../sessionState';
import { formatElapsed } from './elapsed';
import { PREVIEW_LINKS } from './links';
import { ACTION_LABELS, agentIcon, ICONS } from './icons';
import type { FromWebview, ToWebview, WebviewCommand } from './messages';

interface VsCodeApi {
  postMessage(message: FromWebview): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const mode: 'sidebar' | 'wall' = document.body.dataset.mode === 'wall' ? 'wall' : 'sidebar';
const root = document.getElementById('root') as HTMLElement;

/** A preview scrolled away streams this much longer (scrolling back and forth costs no reattach). */
const UNWATCH_DELAY_MS = 600;
/** Largest preview height in CSS pixels: the screen is scaled down to fit width and this. */
const MAX_PREVIEW_HEIGHT = mode === 'wall' ? 420 : 200;
const FONT_SIZE = 12;

// ---- helpers ----

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function run(command: WebviewCommand, id?: string): void {
  vscode.postMessage({ type: 'run', command, id });
}

function cssVar(name: string): string | undefined {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || undefined;
}

/** xterm's colours from VS Code's terminal theme colours (the --vscode-terminal-* variables). */
function terminalTheme(): ITheme {
  const ansi = ['Black', 'Red', 'Green', 'Yellow', 'Blue', 'Magenta', 'Cyan', 'White'];
  const theme: ITheme = {
    background:
      cssVar('--vscode-terminal-background') ??
      cssVar('--vscode-panel-background') ??
      cssVar('--vscode-editor-background'),
    foreground: cssVar('--vscode-terminal-foreground') ?? cssVar('--vscode-editor-foreground'),
    cursor: cssVar('--vscode-terminalCursor-foreground') ?? cssVar('--vscode-terminal-foreground'),
    cursorAccent: cssVar('--vscode-terminalCursor-background'),
    selectionBackground: cssVar('--vscode-terminal-selectionBackground'),
  };
  const record = theme as Record<string, string | undefined>;
  for (const name of ansi) {
    const key = name.toLowerCase();
    record[key] = cssVar(`--vscode-terminal-ansi${name}`);
    record[`bright${name}`] = cssVar(`--vscode-terminal-ansiBright${name}`);
  }
  return theme;
}

function fontFamily(): string {
  return cssVar('--vscode-editor-font-family') ?? 'monospace';
}

const PHASE_LABELS: Record<Phase, string> = {
  running: 'Running',
  idle: 'Idle',
  waiting: 'Waiting for input',
  exited: 'Exited',
  archived: 'Archived',
};

function stateText(card: Card): string {
  if (card.phase === 'exited')
    return card.exitLabel ? card.exitLabel[0].toUpperCase() + card.exitLabel.slice(1) : 'Exited';
  if (card.phase === 'archived') return card.exitLabel ? `Archived (${card.exitLabel})` : 'Archived';
  return PHASE_LABELS[card.phase];
}

// ---- previews ----

class Preview {
  readonly term: Terminal;
  private readonly inner: HTMLElement;
  private readonly observer: ResizeObserver;

  constructor(
    private readonly host: HTMLElement,
    cols: number,
    rows: number,
  ) {
    this.inner = el('div', 'preview-inner');
    host.append(this.inner);
    this.term = new Terminal({
      cols,
      rows,
      scrollback: 0,
      disableStdin: true,
      cursorBlink: false,
      cursorInactiveStyle: 'none',
      fontSize: FONT_SIZE,
      fontFamily: fontFamily(),
      theme: terminalTheme(),
      allowProposedApi: false,
      // A preview is program output, not a place to follow its OSC 8 links from (xterm.js would open them).
      linkHandler: PREVIEW_LINKS,
    });
    this.term.open(this.inner);
    // Not a place to type: keep its hidden textarea out of the tab order.
    if (this.term.textarea) this.term.textarea.tabIndex = -1;
    this.noteSize();
    this.observer = new ResizeObserver(() => this.fit());
    this.observer.observe(host);
    const screen = this.inner.querySelector('.xterm-screen');
    if (screen) this.observer.observe(screen);
    this.fit();
  }

  /** The session's screen: reset, take its size, draw. */
  snapshot(data: string, cols: number, rows: number): void {
    this.term.reset();
    this.resize(cols, rows);
    this.term.write(data);
  }

  write(data: string): void {
    this.term.write(data);
  }

  resize(cols: number, rows: number): void {
    if (cols > 0 && rows > 0 && (cols !== this.term.cols || rows !== this.term.rows)) {
      this.term.resize(cols, rows);
      this.noteSize();
      requestAnimationFrame(() => this.fit());
    }
  }

  /** The preview's terminal size, readable in the page (the session's own size: never the other way round). */
  private noteSize(): void {
    this.host.dataset.cols = String(this.term.cols);
    this.host.dataset.rows = String(this.term.rows);
  }

  retheme(): void {
    this.term.options.theme = terminalTheme();
    this.term.options.fontFamily = fontFamily();
  }

  /** Scales the screen (its natural size in pixels) down to the card's width and the height limit. */
  fit(): void {
    const screen = this.inner.querySelector<HTMLElement>('.xterm-screen');
    const width = screen?.offsetWidth ?? 0;
    const height = screen?.offsetHeight ?? 0;
    if (!width || !height || !this.host.clientWidth) return;
    const scale = Math.min(1, this.host.clientWidth / width, MAX_PREVIEW_HEIGHT / height);
    this.inner.style.transform = `scale(${scale})`;
    this.host.style.height = `${Math.ceil(height * scale)}px`;
  }

  dispose(): void {
    this.observer.disconnect();
    this.term.dispose();
    this.inner.remove();
  }
}

// ---- cards ----

interface CardView {
  card: Card;
  root: HTMLElement;
  name: HTMLElement;
  agent: HTMLElement;
  state: HTMLElement;
  stateLabel: HTMLElement;
  elapsed: HTMLElement;
  title: HTMLElement;
  cwd: HTMLElement;
  actions: HTMLElement;
  previewHost: HTMLElement;
  preview?: Preview;
  watching: boolean;
  unwatchTimer?: number;
  actionKey: string;
}

const views = new Map<string, CardView>();
let clockOffset = 0; // extension host clock - ours
let current: SidebarModel | undefined;

const intersection = new IntersectionObserver(
  (entries) => {
    for (const entry of entries) {
      const id = (entry.target as HTMLElement).dataset.sessionId;
      const view = id ? views.get(id) : undefined;
      if (!view) continue;
      if (entry.isIntersecting) onScreen(view);
      else offScreen(view);
    }
  },
  { threshold: 0 },
);

function onScreen(view: CardView): void {
  if (view.unwatchTimer !== undefined) {
    clearTimeout(view.unwatchTimer);
    view.unwatchTimer = undefined;
  }
  view.preview ??= new Preview(view.previewHost, view.card.cols, view.card.rows);
  if (!view.watching) {
    view.watching = true;
    view.root.dataset.streaming = 'true';
    vscode.postMessage({ type: 'watch', id: view.card.id });
  }
}

function offScreen(view: CardView): void {
  if (!view.watching || view.unwatchTimer !== undefined) return;
  view.unwatchTimer = window.setTimeout(() => {
    view.unwatchTimer = undefined;
    view.watching = false;
    view.root.dataset.streaming = 'false';
    vscode.postMessage({ type: 'unwatch', id: view.card.id });
  }, UNWATCH_DELAY_MS);
}

function createView(card: Card): CardView {
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

  const cwd = el('div', 'cwd');
  const previewHost = el('div', 'preview');
  previewHost.dataset.sessionId = card.id;
  rootEl.append(head, meta, cwd, previewHost);

  const view: CardView = {
    card,
    root: rootEl,
    name,
    agent,
    state,
    stateLabel,
    elapsed,
    title,
    cwd,
    actions,
    previewHost,
    watching: false,
    actionKey: '',
  };
  rootEl.addEventListener('click', () => run('focusSession', view.card.id));
  rootEl.addEventListener('keydown', (event) => onCardKey(view, event));
  intersection.observe(previewHost);
  return view;
}

function updateView(view: CardView, card: Card): void {
  view.card = card;
  view.root.dataset.phase = card.phase;
  view.name.textContent = card.name;
  view.agent.innerHTML = agentIcon(card.agent);
  view.agent.title = card.agentLabel;
  view.state.dataset.phase = card.phase;
  view.stateLabel.textContent = stateText(card);
  view.title.textContent = card.title ?? '';
  view.title.title = card.title ?? '';
  view.title.hidden = !card.title;
  // The cwd is cut from the left (direction: rtl); the marks keep its slashes in place.
  view.cwd.textContent = card.cwd ? `\u200e${card.cwd}\u200e` : '';
  view.cwd.title = card.cwd ?? '';
  view.cwd.hidden = !card.cwd;
  view.root.setAttribute(
    'aria-label',
    `${card.name}, ${card.agentLabel}, ${stateText(card)}${card.title ? `, ${card.title}` : ''}`,
  );
  view.root.title = `${card.name} — ${card.agentLabel} — ${card.cols}×${card.rows}${card.cwd ? `\n${card.cwd}` : ''}\nEnter: focus · F2: rename · Delete: ${card.actions.includes('killSession') ? 'kill' : 'remove'}`;
  const key = card.actions.join(',');
  if (key !== view.actionKey) {
    view.actionKey = key;
    view.actions.replaceChildren(...card.actions.map((action) => actionButton(view, action)));
  }
  tickOne(view, Date.now() + clockOffset);
}

function actionButton(view: CardView, action: CardAction): HTMLButtonElement {
  const button = el('button', `action action-${action}`);
  button.type = 'button';
  button.innerHTML = ICONS[action];
  button.title = ACTION_LABELS[action];
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
      run('renameSession', id);
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

function disposeView(view: CardView): void {
  intersection.unobserve(view.previewHost);
  if (view.unwatchTimer !== undefined) clearTimeout(view.unwatchTimer);
  view.preview?.dispose();
  view.root.remove();
  views.delete(view.card.id);
}

// ---- the page ----

interface PageState {
  othersCollapsed?: boolean;
}
const pageState: PageState = (vscode.getState() as PageState | undefined) ?? {};

const empty = el('div', 'empty');
const hereHeading = el('div', 'section-heading', 'This Workspace');
const hereList = el('div', 'cards');
const hereNone = el('div', 'none', 'No sessions in this workspace.');
const othersHeading = el('button', 'section-heading collapsible');
const othersList = el('div', 'cards others');
othersHeading.type = 'button';
othersHeading.addEventListener('click', () => {
  pageState.othersCollapsed = !pageState.othersCollapsed;
  vscode.setState(pageState);
  if (current) render(current);
});
buildEmpty();
root.append(empty, hereHeading, hereNone, hereList, othersHeading, othersList);

function buildEmpty(): void {
  const text = el(
    'p',
    undefined,
    'Holdfast runs your terminals and coding agents in a background daemon, so they keep running through window reloads, restarts and crashes.',
  );
  const buttons = el('div', 'empty-buttons');
  const terminal = el('button', 'primary', 'New Terminal');
  terminal.type = 'button';
  terminal.addEventListener('click', () => run('newTerminal'));
  const agent = el('button', 'secondary', 'New Agent');
  agent.type = 'button';
  agent.addEventListener('click', () => run('newAgent'));
  buttons.append(terminal, agent);
  empty.append(text, buttons);
}

function placeCards(list: HTMLElement, cards: Card[]): void {
  let index = 0;
  for (const card of cards) {
    let view = views.get(card.id);
    if (!view) {
      view = createView(card);
      views.set(card.id, view);
      updateView(view, card);
    } else updateView(view, card);
    if (list.children[index] !== view.root) list.insertBefore(view.root, list.children[index] ?? null);
    index++;
  }
}

function render(model: SidebarModel): void {
  current = model;
  clockOffset = model.now - Date.now();
  const ids = new Set([...model.here, ...model.others].map((c) => c.id));
  for (const view of [...views.values()]) if (!ids.has(view.card.id)) disposeView(view);

  const total = model.here.length + model.others.length;
  empty.hidden = total > 0;
  empty.classList.toggle('disconnected', !model.connected);
  const showHeadings = model.others.length > 0;
  hereHeading.hidden = !showHeadings;
  hereNone.hidden = !(showHeadings && model.here.length === 0);
  placeCards(hereList, model.here);
  placeCards(othersList, model.others);
  othersHeading.hidden = model.others.length === 0;
  const collapsed = !!pageState.othersCollapsed;
  othersHeading.innerHTML = `${ICONS.chevron}<span>Other Workspaces (${model.others.length})</span>`;
  othersHeading.classList.toggle('collapsed', collapsed);
  othersHeading.setAttribute('aria-expanded', String(!collapsed));
  othersList.hidden = collapsed;
  document.body.dataset.sessions = String(total);
}

function tickOne(view: CardView, now: number): void {
  const ago = view.card.phase === 'exited' || view.card.phase === 'archived';
  view.elapsed.textContent = `${formatElapsed(now - view.card.since)}${ago ? ' ago' : ''}`;
}

// Elapsed times tick here, in the page: the extension host never polls for them.
window.setInterval(() => {
  const now = Date.now() + clockOffset;
  for (const view of views.values()) tickOne(view, now);
}, 1000);

// A theme change (body class, the --vscode-* variables on <html>): recolour the previews.
new MutationObserver(() => {
  for (const view of views.values()) view.preview?.retheme();
}).observe(document.body, { attributes: true, attributeFilter: ['class'] });

window.addEventListener('message', (event: MessageEvent<ToWebview>) => {
  const message = event.data;
  switch (message?.type) {
    case 'model':
      render(message.model);
      return;
    case 'snapshot': {
      const view = views.get(message.id);
      if (view?.watching) view.preview?.snapshot(message.data, message.cols, message.rows);
      return;
    }
    case 'output': {
      const view = views.get(message.id);
      if (view?.watching) view.preview?.write(message.data);
      return;
    }
    case 'resize':
      views.get(message.id)?.preview?.resize(message.cols, message.rows);
      return;
  }
});

vscode.postMessage({ type: 'ready' });
