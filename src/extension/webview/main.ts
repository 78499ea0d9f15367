// The sessions webview (sidebar and wall of screens): cards with state and a live preview of each
// session's screen in xterm.js. Browser code: no vscode, no node. The extension host attaches as
// a watcher and forwards the snapshot and the stream (previewHost.ts); a preview takes the
// session's size and is scaled to fit with a CSS transform, so it never asks the session to
// resize (preview.ts). Previews off-screen stop streaming and resync from a snapshot when they
// come back (cards.ts). This module is the page: its sections and the host's messages.
import type { SidebarModel } from '../sessionState';
import { Cards } from './cards';
import { el } from './dom';
import { run, vscode } from './host';
import { HostSections } from './hostSections';
import { ICONS } from './icons';
import type { ToWebview } from './messages';

interface PageState {
  othersCollapsed?: boolean;
}

const root = document.getElementById('root') as HTMLElement;
const pageState: PageState = (vscode.getState() as PageState | undefined) ?? {};
const cards = new Cards();
let current: SidebarModel | undefined;

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
const hostsRoot = el('div', 'hosts');
const hosts = new HostSections(hostsRoot, cards);
buildEmpty();
root.append(empty, hereHeading, hereNone, hereList, othersHeading, othersList, hostsRoot);

/** What the page shows with no session: what Holdfast is, and buttons to start one. */
function buildEmpty(): void {
  const text = el(
    'p',
    undefined,
    'Holdfast runs your terminals and coding agents in a background daemon, ' +
      'so they keep running through window reloads, restarts and crashes.',
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

function render(model: SidebarModel): void {
  current = model;
  cards.setClock(model.now);
  const remote = model.hosts.flatMap((h) => h.cards);
  cards.keepOnly(new Set([...model.here, ...model.others, ...remote].map((c) => c.id)));

  const total = model.here.length + model.others.length + remote.length;
  empty.hidden = total > 0;
  empty.classList.toggle('disconnected', !model.connected);
  // With hosts, this machine's sessions are a section of their own too.
  const showHeadings = model.others.length > 0 || model.hosts.length > 0;
  hereHeading.hidden = !showHeadings;
  hereNone.hidden = !(showHeadings && model.here.length === 0);
  cards.place(hereList, model.here);
  cards.place(othersList, model.others);
  othersHeading.hidden = model.others.length === 0;
  const collapsed = !!pageState.othersCollapsed;
  othersHeading.innerHTML = `${ICONS.chevron}<span>Other Workspaces (${model.others.length})</span>`;
  othersHeading.classList.toggle('collapsed', collapsed);
  othersHeading.setAttribute('aria-expanded', String(!collapsed));
  othersList.hidden = collapsed;
  hosts.render(model.hosts);
  document.body.dataset.sessions = String(total);
}

// Elapsed times tick here, in the page: the extension host never polls for them.
window.setInterval(() => cards.tick(), 1000);

// A theme change (body class, the --vscode-* variables on <html>): recolour the previews.
new MutationObserver(() => cards.retheme()).observe(document.body, { attributes: true, attributeFilter: ['class'] });

window.addEventListener('message', (event: MessageEvent<ToWebview>) => {
  const message = event.data;
  switch (message?.type) {
    case 'model':
      render(message.model);
      return;
    case 'snapshot': {
      const view = cards.get(message.id);
      if (view?.watching) view.preview?.snapshot(message.data, message.cols, message.rows);
      return;
    }
    case 'output': {
      const view = cards.get(message.id);
      if (view?.watching) view.preview?.write(message.data);
      return;
    }
    case 'resize':
      cards.get(message.id)?.preview?.resize(message.cols, message.rows);
      return;
  }
});

vscode.postMessage({ type: 'ready' });
