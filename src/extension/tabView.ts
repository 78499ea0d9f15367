// Whether a tab is on screen, told to the daemon (capability `view`): a hidden tab is sent nothing and gets
// its screen, then its scrollback, once shown again; one whose renderer fell behind is redrawn (screens, not
// bytes) until its session's flood is over. Against a daemon without the capability a tab streams as before.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import type { Attachment, HoldfastClient } from '../client/client';
import { Capability, type ChannelView } from '../protocol/messages';

export class TabView {
  private shown = true;
  /** The attachment the daemon knows the view of, and the view it has. */
  private attached: { client: HoldfastClient; attachment: Attachment; view: ChannelView } | undefined;

  constructor(private readonly warn: (line: string) => void) {}

  get isShown(): boolean {
    return this.shown;
  }

  /** The view an attach on `client` asks for: hidden when the tab is not on screen (no snapshot until it is). */
  attachView(client: HoldfastClient): 'hidden' | undefined {
    return !this.shown && client.supports(Capability.View) ? 'hidden' : undefined;
  }

  /** An attach landed, asked with `asked`: the tab's view may have changed meanwhile. */
  landed(client: HoldfastClient, attachment: Attachment, asked: 'hidden' | undefined): void {
    this.attached = { client, attachment, view: asked ?? 'live' };
    this.set(this.shown, true);
  }

  detached(): void {
    this.attached = undefined;
  }

  /** The tab was shown or hidden; false when the daemon cannot be told (not attached, or it has no views). */
  set(shown: boolean, force = false): boolean {
    if (shown === this.shown && !force) return true;
    this.shown = shown;
    const view = shown ? 'live' : 'hidden';
    if (this.attached?.view === view) return true;
    return this.send(view);
  }

  /** The tab fell behind its session: redrawn by the daemon; false when it cannot (ask for a snapshot then). */
  redraw(onFailure: () => void): boolean {
    return this.send('redraw', onFailure);
  }

  private send(view: ChannelView, onFailure?: () => void): boolean {
    const attached = this.attached;
    if (!attached || !attached.client.supports(Capability.View)) return false;
    attached.view = view === 'redraw' ? 'live' : view;
    attached.client.request('view', { channel: attached.attachment.channel, view }).catch((err: Error) => {
      if (this.attached !== attached) return; // detached or reconnected meanwhile: the next attach sets it
      this.warn(`setting the view of channel ${attached.attachment.channel} to ${view}: ${err.message}`);
      onFailure?.();
    });
    return true;
  }
}
