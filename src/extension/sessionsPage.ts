// The page of the Sessions view and of the wall of screens: strict CSP with a nonce, resources through asWebviewUri.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

/** The page of the sidebar and of the wall: the same script and styles, `mode` picks the layout. */
export function sessionsHtml(webview: vscode.Webview, extensionUri: vscode.Uri, mode: 'sidebar' | 'wall'): string {
  const nonce = randomBytes(16).toString('base64');
  const asset = (name: string) =>
    webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', name)).toString();
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    `font-src ${webview.cspSource}`,
    // 'unsafe-inline' for styles only: xterm.js's DOM renderer writes <style> elements and inline
    // style attributes (cell widths, colours). Scripts need the nonce.
    `style-src ${webview.cspSource} 'unsafe-inline'`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${asset('xterm.css')}">
<link rel="stylesheet" href="${asset('sessions.css')}">
<title>Holdfast Sessions</title>
</head>
<body data-mode="${mode}">
<div id="root" role="list" aria-label="Holdfast sessions"></div>
<script nonce="${nonce}" src="${asset('sessions.js')}"></script>
</body>
</html>`;
}
