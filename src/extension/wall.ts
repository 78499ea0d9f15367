// "Holdfast: Show All Sessions": every session's live preview in a grid in the editor area
// (watchers, the sidebar's webview code in its "wall" layout); a click focuses that session.
import * as vscode from 'vscode';
import { DisposableStore } from '../protocol/disposable';
import { PreviewDeps, PreviewHost, SessionFeed, sessionsHtml } from './previewHost';

export const WALL_VIEW_TYPE = 'holdfast.wall';

export function registerWall(extensionUri: vscode.Uri, feed: SessionFeed, deps: PreviewDeps): vscode.Disposable {
  const store = new DisposableStore();
  let open: vscode.WebviewPanel | undefined;
  store.add(
    vscode.commands.registerCommand('holdfast.showAllSessions', () => {
      if (open) {
        open.reveal();
        return;
      }
      const panel = vscode.window.createWebviewPanel(WALL_VIEW_TYPE, 'Holdfast Sessions', vscode.ViewColumn.Active, {
        enableScripts: true,
        localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview')],
      });
      open = panel;
      panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'holdfast.svg');
      const panelStore = store.add(new DisposableStore());
      const host = panelStore.add(new PreviewHost(panel.webview, feed, deps));
      // A background tab streams nothing; brought forward, every tile resyncs.
      panelStore.add(panel.onDidChangeViewState(() => host.setVisible(panel.visible)));
      panelStore.add(
        panel.onDidDispose(() => {
          open = undefined;
          store.delete(panelStore);
        }),
      );
      panel.webview.html = sessionsHtml(panel.webview, extensionUri, 'wall');
    }),
  );
  store.add({ dispose: () => open?.dispose() });
  return store;
}
