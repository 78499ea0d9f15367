// What the pure-Node parts of the extension log through: the window's "Holdfast" log channel
// (a vscode.LogOutputChannel fits it) in the extension, an array in a test.
export interface Log {
  info(message: string): void;
  warn(message: string): void;
}
