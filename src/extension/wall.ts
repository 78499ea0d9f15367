// "Holdfast: Show All Sessions": every session's live preview in a grid in the editor area
// (watchers, the sidebar's webview code in its "wall" layout); a click focuses that session.
// The wall comes back after a window reload (a panel serializer), like the terminals do.
import * as vscode from 'vscode';
import { DisposableStore } from '../base/disposable';
import { type PreviewDeps, PreviewHost, type SessionFeed } from './previewHost';
import { sessionsHtml } from './sessionsPage';
import { createWebviewPanel } from './ui';
import { ui } from '../text/uiText';

export const WALL_VIEW_TYPE = 'holdfast.wall';

export function registerWall(extensionUri: vscode.Uri, feed: SessionFeed, deps: PreviewDeps): vscode.Disposable {
  const store = new DisposableStore();
  const options: vscode.WebviewOptions = {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview')],
  };
  let open: vscode.WebviewPanel | undefined;

  const serve = (panel: vscode.WebviewPanel) => {
    open = panel;
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'holdfast.svg');
    panel.webview.options = options;
    const panelStore = store.add(new DisposableStore());
    const host = panelStore.add(new PreviewHost(panel.webview, feed, deps));
    host.setVisible(panel.visible);
    // A background tab streams nothing; brought forward, every tile resyncs.
    panelStore.add(panel.onDidChangeViewState(() => host.setVisible(panel.visible)));
    panelStore.add(
      panel.onDidDispose(() => {
        if (open === panel) open = undefined;
        store.delete(panelStore);
      }),
    );
    panel.webview.html = sessionsHtml(panel.webview, extensionUri, 'wall');
  };

  store.add(
    vscode.commands.registerCommand('holdfast.showAllSessions', () => {
      if (open) open.reveal();
      else serve(createWebviewPanel(WALL_VIEW_TYPE, ui`Holdfast Sessions`, vscode.ViewColumn.Active, options));
    }),
  );
  store.add(
    vscode.window.registerWebviewPanelSerializer(WALL_VIEW_TYPE, {
      deserializeWebviewPanel: async (panel) => serve(panel),
    }),
  );
  // The panel itself is VS Code's: left open when the extension stops, so a reload restores it.
  return store;
}
