// The one module that hands text to VS Code's UI: notifications and dialogs, input boxes, quick picks, the
// status bar, a view's badge, terminal and panel names. VS Code renders links (`[x](command:…)` runs a
// command) and icons (`$(name)`) in these, so each takes only UiText (src/text/uiText.ts): our own
// literals, or other text, a program's above all, made so by uiText(). The lint (scripts/uiSinks.mjs)
// keeps VS Code's UI calls out of every other file of src/extension.
import * as vscode from 'vscode';
import { ui, type UiText } from '../text/uiText';

/** A notification; resolves to the button chosen. */
export function showInformation<A extends UiText>(message: UiText, ...actions: A[]): Thenable<A | undefined> {
  return vscode.window.showInformationMessage(message, ...actions);
}

export function showWarning<A extends UiText>(message: UiText, ...actions: A[]): Thenable<A | undefined> {
  return vscode.window.showWarningMessage(message, ...actions);
}

export function showError<A extends UiText>(message: UiText, ...actions: A[]): Thenable<A | undefined> {
  return vscode.window.showErrorMessage(message, ...actions);
}

/** A modal dialog: `detail` under the message, and Cancel beside the actions. */
export function showModal<A extends UiText>(message: UiText, detail: UiText | undefined, ...actions: A[]) {
  return vscode.window.showWarningMessage(message, { modal: true, detail }, ...actions);
}

/** For a few seconds in the status bar. */
export function showStatusMessage(text: UiText, ms: number): vscode.Disposable {
  return vscode.window.setStatusBarMessage(text, ms);
}

export interface UiInputBoxOptions {
  title?: UiText;
  prompt?: UiText;
  placeHolder?: UiText;
  /** The text the box starts with: the user's to edit, shown as it is (never rendered). */
  value?: string;
  valueSelection?: [number, number];
  validateInput?(value: string): UiText | undefined | Thenable<UiText | undefined>;
}

export function showInputBox(options: UiInputBoxOptions): Thenable<string | undefined> {
  return vscode.window.showInputBox(options);
}

export type UiQuickPickItem = Omit<vscode.QuickPickItem, 'label' | 'description' | 'detail'> & {
  label: UiText;
  description?: UiText;
  detail?: UiText;
};

export interface UiQuickPickOptions {
  title?: UiText;
  placeHolder?: UiText;
  matchOnDescription?: boolean;
  matchOnDetail?: boolean;
}

export function showQuickPick<T extends UiQuickPickItem>(
  items: readonly T[],
  options: UiQuickPickOptions,
): Thenable<T | undefined> {
  return vscode.window.showQuickPick(items, options);
}

/** A quick pick kept open and updated (Search Sessions): its text is set through update() only. */
export class UiQuickPick<T extends UiQuickPickItem> implements vscode.Disposable {
  private readonly pick = vscode.window.createQuickPick<T>();
  readonly onDidChangeValue = this.pick.onDidChangeValue;
  readonly onDidAccept = this.pick.onDidAccept;
  readonly onDidHide = this.pick.onDidHide;

  constructor(title: UiText, placeholder: UiText) {
    this.pick.title = title;
    this.pick.placeholder = placeholder;
    this.pick.matchOnDescription = false;
    this.pick.matchOnDetail = false;
  }

  update(state: { title?: UiText; items?: readonly T[]; busy?: boolean }): void {
    if (state.title !== undefined) this.pick.title = state.title;
    if (state.items !== undefined) this.pick.items = state.items;
    if (state.busy !== undefined) this.pick.busy = state.busy;
  }

  get selectedItems(): readonly T[] {
    return this.pick.selectedItems;
  }

  show(): void {
    this.pick.show();
  }

  hide(): void {
    this.pick.hide();
  }

  dispose(): void {
    this.pick.dispose();
  }
}

/** A status bar item whose text and tooltip are set together. */
export class UiStatusBarItem implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;

  constructor(id: string, name: UiText, alignment: vscode.StatusBarAlignment, priority: number) {
    this.item = vscode.window.createStatusBarItem(id, alignment, priority);
    this.item.name = name;
  }

  set(look: { text: UiText; tooltip: UiText; command: string; background?: vscode.ThemeColor }): void {
    this.item.text = look.text;
    this.item.tooltip = look.tooltip;
    this.item.command = look.command;
    this.item.backgroundColor = look.background;
  }

  show(): void {
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}

/** A view's badge, or none. */
export function setBadge(view: vscode.WebviewView, badge: { value: number; tooltip: UiText } | undefined): void {
  view.badge = badge;
}

/** A terminal tab's options: its name is rendered with icons (and as markdown in its hover). */
export type UiTerminalOptions = Omit<vscode.ExtensionTerminalOptions, 'name'> & { name: UiText };

export function terminalProfile(options: UiTerminalOptions): vscode.TerminalProfile {
  return new vscode.TerminalProfile(options);
}

export function createTerminal(options: UiTerminalOptions): vscode.Terminal {
  return vscode.window.createTerminal(options);
}

export function createWebviewPanel(
  viewType: string,
  title: UiText,
  column: vscode.ViewColumn,
  options: vscode.WebviewPanelOptions & vscode.WebviewOptions,
): vscode.WebviewPanel {
  return vscode.window.createWebviewPanel(viewType, title, column, options);
}

/** What an environment change is for, shown (as markdown) where VS Code lists it. */
export function describeEnvironment(collection: vscode.EnvironmentVariableCollection, description: UiText): void {
  collection.description = description;
}

/** An error, with the ways to look into it: the daemon's status and its log. */
export function showErrorWithHelp(message: UiText): void {
  void showError(message, ui`Show Daemon Status`, ui`Open Log`).then((choice) => {
    if (choice === 'Show Daemon Status') void vscode.commands.executeCommand('holdfast.showStatus');
    else if (choice === 'Open Log') void vscode.commands.executeCommand('holdfast.openLog');
  });
}
