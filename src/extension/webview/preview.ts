// One card's live preview: the session's screen in xterm.js at the session's own size, scaled
// down with a CSS transform to fit the card (a preview never asks the session to resize).
import { Terminal } from '@xterm/xterm';
import { el } from './dom';
import { mode } from './host';
import { PREVIEW_LINKS } from './links';
import { fontFamily, terminalTheme } from './theme';

/** Largest preview height in CSS pixels: the screen is scaled down to fit width and this. */
const MAX_PREVIEW_HEIGHT = mode === 'wall' ? 420 : 200;
const FONT_SIZE = 12;

export class Preview {
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
