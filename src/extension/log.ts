// What the pure-Node parts of the extension log through: the window's "Holdfast" log channel
// (a vscode.LogOutputChannel fits it) in the extension, an array in a test.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
export interface Log {
  info(message: string): void;
  warn(message: string): void;
}
