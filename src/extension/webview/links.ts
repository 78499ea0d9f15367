// Links in a preview (OSC 8 hyperlinks and URLs a program prints) are never followed: a preview
// shows untrusted program output, and xterm.js would otherwise open them in a new window.
import type { ILinkHandler } from '@xterm/xterm';

export const PREVIEW_LINKS: ILinkHandler = {
  activate: () => undefined,
  allowNonHttpProtocols: false,
};
