// The "Sessions" view in Holdfast's activity-bar container: a card per session with a live
// preview (see previewHost.ts and webview/main.ts), and a badge counting the sessions waiting for
// you. Also registers the wall of screens.
import * as vscode from 'vscode';
import { DisposableStore } from '../base/disposable';
import { type PreviewDeps, PreviewHost, type SessionFeed } from './previewHost';
import { sessionsHtml } from './sessionsPage';
import { waitingCount } from './sessionState';
import { registerWall } from './wall';
import { setBadge } from './ui';
import { ui, type UiText } from '../text/uiText';

export const SESSIONS_VIEW = 'holdfast.sessions';

class SessionsViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private readonly store = new DisposableStore();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly feed: SessionFeed,
    private readonly deps: PreviewDeps,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    const viewStore = this.store.add(new DisposableStore());
    view.webview.options = {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview')],
    };
    const host = viewStore.add(new PreviewHost(view.webview, this.feed, this.deps));
    host.setVisible(view.visible);
    // Hidden (collapsed, another container shown): no streams; shown again: fresh snapshots.
    viewStore.add(view.onDidChangeVisibility(() => host.setVisible(view.visible)));
    viewStore.add(view.onDidDispose(() => this.store.delete(viewStore)));
    view.webview.html = sessionsHtml(view.webview, this.extensionUri, 'sidebar');
    const showBadge = () => setBadge(view, waitingBadge(this.feed));
    viewStore.add(this.feed.onDidChange(showBadge));
    showBadge();
  }

  dispose(): void {
    this.store.dispose();
  }
}

/** The number of sessions waiting for you (any workspace); none clears the badge. */
function waitingBadge(feed: SessionFeed): { value: number; tooltip: UiText } | undefined {
  const model = feed.model();
  const value = waitingCount([...model.here, ...model.others]);
  if (value === 0) return undefined;
  return { value, tooltip: ui`${value} Holdfast session${value === 1 ? ui`` : ui`s`} waiting for you` };
}

/** The sidebar view and the wall of screens, both showing `feed`. */
export function registerSidebar(
  context: vscode.ExtensionContext,
  feed: SessionFeed,
  deps: PreviewDeps,
): vscode.Disposable {
  const store = new DisposableStore();
  const provider = store.add(new SessionsViewProvider(context.extensionUri, feed, deps));
  store.add(vscode.window.registerWebviewViewProvider(SESSIONS_VIEW, provider));
  store.add(registerWall(context.extensionUri, feed, deps));
  return store;
}
