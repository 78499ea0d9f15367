// VS Code's UI renders links and icons, so text reaches it only through src/extension/ui.ts, as UiText
// (scripts/uiSinks.mjs, spread into eslint.config.mjs): a raw call or field, or a cast to UiText, fails the lint.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Case, lint } from './helpers/lint';

const RAW_SINKS: Case[] = [
  {
    file: 'src/extension/x.ts',
    code: 'import * as vscode from "vscode";\nvscode.window.showInformationMessage(reason);\n',
  },
  { file: 'src/extension/x.ts', code: 'window.showWarningMessage(name, { modal: true });\n' },
  { file: 'src/extension/x.ts', code: 'void vscode.window.showInputBox({ prompt: card.reason });\n' },
  { file: 'src/extension/x.ts', code: 'vscode.window.showQuickPick(items);\n' },
  { file: 'src/extension/x.ts', code: 'const pick = vscode.window.createQuickPick();\n' },
  { file: 'src/extension/x.ts', code: 'vscode.window.setStatusBarMessage(title, 5000);\n' },
  { file: 'src/extension/x.ts', code: 'vscode.window.createTerminal({ name: session.name });\n' },
  { file: 'src/extension/x.ts', code: 'const tip = new vscode.MarkdownString(title);\n' },
  { file: 'src/extension/x.ts', code: 'const item = new TreeItem(name);\n' },
  { file: 'src/extension/x.ts', code: 'item.tooltip = cwd;\n' },
  { file: 'src/extension/x.ts', code: 'view.title = session.title;\n' },
  { file: 'src/extension/x.ts', code: 'view.badge = { value: 1, tooltip: name };\n' },
  { file: 'src/extension/x.ts', code: 'statusItem.text = `$(bell) ${reason}`;\n' },
  { file: 'src/extension/x.ts', code: 'const shown = reason as UiText;\n' },
  { file: 'src/daemon/x.ts', code: 'const shown = <UiText>reason;\n' },
  { file: 'src/extension/webview/x.ts', code: 'const shown = reason as UiText;\n' },
];

const ALLOWED: Case[] = [
  { file: 'src/extension/ui.ts', code: 'vscode.window.showInformationMessage(message, ...actions);\n' },
  { file: 'src/extension/x.ts', code: 'void showInformation(ui`Holdfast: ${uiText(reason)}`);\n' },
  { file: 'src/extension/webview/x.ts', code: 'view.title.title = card.title ?? "";\nnode.textContent = card.name;\n' },
  { file: 'src/text/uiText.ts', code: 'return text as UiText;\n' },
  { file: 'src/extension/x.ts', code: 'const at = document.lineAt(3).text === wanted;\n' },
];

test('a raw VS Code UI call or field, or a cast to UiText, fails the lint, naming what to use', async () => {
  const reports = await lint(RAW_SINKS);
  RAW_SINKS.forEach((c, i) => {
    assert.equal(reports[i].length, 1, `${c.file}: ${c.code} gave ${JSON.stringify(reports[i])}`);
    assert.match(reports[i][0], /^no-restricted-syntax: .*(src\/extension\/ui\.ts|src\/text\/uiText\.ts)/, c.code);
  });
});

test('the UI calls through ui.ts, with UiText, and DOM text in the webview pass', async () => {
  const reports = await lint(ALLOWED);
  ALLOWED.forEach((c, i) => assert.deepEqual(reports[i], [], `${c.file}: ${c.code}`));
});
