// When the user last typed into a Holdfast tab of this window, and into which. While they type, the other
// tabs hand the renderer less at a time (rendererWriter.ts) and the sidebar's previews are posted less often
// (previewHost.ts), so that the echo of what they type waits behind less: typing comes first, as it does in
// the daemon (ptyReadGate.ts).
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).

/** A key this recent (ms): the user types. The daemon's figure too (ReadTuning.TypingMs). */
export const TYPING_MS = 1000;

export class WindowTyping {
  private at = -Infinity;
  private where: unknown;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** A key was typed into `tab`. */
  typed(tab: unknown): void {
    this.at = this.now();
    this.where = tab;
  }

  /** The user types (into any tab). */
  get typing(): boolean {
    return this.now() - this.at < TYPING_MS;
  }

  /** The user types into a tab other than `tab`. */
  elsewhere(tab: unknown): boolean {
    return this.typing && this.where !== tab;
  }
}
