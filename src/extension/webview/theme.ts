// A preview's colours and font: VS Code's terminal theme, read from the page's CSS variables.
import type { ITheme } from '@xterm/xterm';
import { cssVar } from './dom';

/** xterm's colours from VS Code's terminal theme colours (the --vscode-terminal-* variables). */
export function terminalTheme(): ITheme {
  const ansi = ['Black', 'Red', 'Green', 'Yellow', 'Blue', 'Magenta', 'Cyan', 'White'];
  const theme: ITheme = {
    background:
      cssVar('--vscode-terminal-background') ??
      cssVar('--vscode-panel-background') ??
      cssVar('--vscode-editor-background'),
    foreground: cssVar('--vscode-terminal-foreground') ?? cssVar('--vscode-editor-foreground'),
    cursor: cssVar('--vscode-terminalCursor-foreground') ?? cssVar('--vscode-terminal-foreground'),
    cursorAccent: cssVar('--vscode-terminalCursor-background'),
    selectionBackground: cssVar('--vscode-terminal-selectionBackground'),
  };
  const record = theme as Record<string, string | undefined>;
  for (const name of ansi) {
    const key = name.toLowerCase();
    record[key] = cssVar(`--vscode-terminal-ansi${name}`);
    record[`bright${name}`] = cssVar(`--vscode-terminal-ansiBright${name}`);
  }
  return theme;
}

export function fontFamily(): string {
  return cssVar('--vscode-editor-font-family') ?? 'monospace';
}
