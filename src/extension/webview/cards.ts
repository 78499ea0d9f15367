// Every card on the page, by session id. A card's preview streams while it is on screen: one
// scrolled away stops a moment later (the host detaches its watcher), and resyncs from a fresh
// snapshot when it comes back.
import type { Card } from '../sessionState';
import { type CardView, createView, tickView, updateView } from './cardView';
import { vscode } from './host';
import { Preview } from './preview';

/** A preview scrolled away streams this much longer (scrolling back and forth costs no reattach). */
const UNWATCH_DELAY_MS = 600;

export class Cards {
  private readonly views = new Map<string, CardView>();
  /** The extension host's clock minus ours: elapsed times count from the host's. */
  private clockOffset = 0;
  private readonly intersection = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        const id = (entry.target as HTMLElement).dataset.sessionId;
        const view = id ? this.views.get(id) : undefined;
        if (!view) continue;
        if (entry.isIntersecting) this.onScreen(view);
        else this.offScreen(view);
      }
    },
    { threshold: 0 },
  );

  get(id: string): CardView | undefined {
    return this.views.get(id);
  }

  /** Sets the host's clock (the model's `now`). */
  setClock(hostNow: number): void {
    this.clockOffset = hostNow - Date.now();
  }

  /** Drops the cards of sessions not in `ids`. */
  keepOnly(ids: ReadonlySet<string>): void {
    for (const view of [...this.views.values()]) if (!ids.has(view.card.id)) this.disposeView(view);
  }

  /** Shows `cards` in `list`, in order: a new card is created, a known one updated and moved. */
  place(list: HTMLElement, cards: Card[]): void {
    const now = this.now();
    let index = 0;
    for (const card of cards) {
      let view = this.views.get(card.id);
      if (!view) {
        view = createView(card);
        this.intersection.observe(view.previewHost);
        this.views.set(card.id, view);
      }
      updateView(view, card, now);
      if (list.children[index] !== view.root) list.insertBefore(view.root, list.children[index] ?? null);
      index++;
    }
  }

  /** Updates every card's elapsed time. */
  tick(): void {
    const now = this.now();
    for (const view of this.views.values()) tickView(view, now);
  }

  /** Recolours every preview (the theme changed). */
  retheme(): void {
    for (const view of this.views.values()) view.preview?.retheme();
  }

  private now(): number {
    return Date.now() + this.clockOffset;
  }

  private onScreen(view: CardView): void {
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

  private offScreen(view: CardView): void {
    if (!view.watching || view.unwatchTimer !== undefined) return;
    view.unwatchTimer = window.setTimeout(() => {
      view.unwatchTimer = undefined;
      view.watching = false;
      view.root.dataset.streaming = 'false';
      vscode.postMessage({ type: 'unwatch', id: view.card.id });
    }, UNWATCH_DELAY_MS);
  }

  private disposeView(view: CardView): void {
    this.intersection.unobserve(view.previewHost);
    if (view.unwatchTimer !== undefined) clearTimeout(view.unwatchTimer);
    view.preview?.dispose();
    view.root.remove();
    this.views.delete(view.card.id);
  }
}
