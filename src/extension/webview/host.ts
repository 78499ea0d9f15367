// The page's link to the extension host (previewHost.ts): VS Code's webview API, which a page
// may acquire only once, and the layout the host asked for.
import type { FromWebview, WebviewCommand } from './messages';

interface VsCodeApi {
  postMessage(message: FromWebview): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

export const vscode = acquireVsCodeApi();

/** The sidebar's narrow list, or the wall of screens in the editor area. */
export const mode: 'sidebar' | 'wall' = document.body.dataset.mode === 'wall' ? 'wall' : 'sidebar';

/** Runs `holdfast.<command>` in the extension host (for a card, with its session id). */
export function run(command: WebviewCommand, id?: string): void {
  vscode.postMessage({ type: 'run', command, id });
}
