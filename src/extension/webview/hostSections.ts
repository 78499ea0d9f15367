// The page's SSH host sections (holdfast.hosts), after this machine's sessions: per host a heading with its name, its
// state or its one-line failure, and its cards. Every text is set as DOM text (a host's words are program text).
import type { HostSection } from '../sessionState';
import type { Cards } from './cards';
import { el } from './dom';

interface HostView {
  root: HTMLElement;
  heading: HTMLElement;
  status: HTMLElement;
  list: HTMLElement;
}

export class HostSections {
  private readonly views = new Map<string, HostView>();

  constructor(
    private readonly container: HTMLElement,
    private readonly cards: Cards,
  ) {}

  render(hosts: readonly HostSection[]): void {
    const names = new Set(hosts.map((h) => h.name));
    for (const [name, view] of [...this.views]) {
      if (names.has(name)) continue;
      view.root.remove();
      this.views.delete(name);
    }
    for (const host of hosts) {
      const view = this.views.get(host.name) ?? this.create(host.name);
      this.container.append(view.root); // the setting's order
      view.root.dataset.state = host.state;
      view.status.textContent =
        host.state === 'failed'
          ? (host.error ?? 'not connected')
          : host.state === 'connecting'
            ? 'Connecting…'
            : host.cards.length === 0
              ? 'No sessions.'
              : '';
      view.status.hidden = view.status.textContent === '';
      this.cards.place(view.list, host.cards);
    }
  }

  private create(name: string): HostView {
    const root = el('section', 'host');
    root.dataset.host = name;
    root.setAttribute('aria-label', `Sessions on ${name}`);
    const heading = el('div', 'section-heading host-heading', name);
    const status = el('div', 'none host-status');
    status.setAttribute('role', 'status');
    const list = el('div', 'cards');
    root.append(heading, status, list);
    const view = { root, heading, status, list };
    this.views.set(name, view);
    return view;
  }
}
