// The status bar item: the daemon's state, how many sessions run and how many wait for you; a click
// goes to the next session needing you while some wait (holdfast.nextAttention), else lists the sessions.
import * as vscode from 'vscode';
import { DisposableStore } from '../base/disposable';
import type { DaemonConnection } from './daemonConnection';
import type { SessionFeed } from './sessionFeed';
import type { SessionList } from './sessionList';
import { waitingCount } from './sessionState';
import { UiStatusBarItem } from './ui';
import { ui, uiText } from '../text/uiText';

export class StatusBar implements vscode.Disposable {
  private readonly store = new DisposableStore();
  private readonly item = new UiStatusBarItem('holdfast.status', ui`Holdfast`, vscode.StatusBarAlignment.Left, 10);

  constructor(
    private readonly connection: DaemonConnection,
    private readonly sessions: SessionList,
    private readonly feed: SessionFeed,
  ) {
    this.store.add(this.item);
    this.store.add(connection.onDidChangeState(() => this.render()));
    this.store.add(sessions.onDidChange(() => this.render()));
    this.store.add(feed.onDidChange(() => this.render()));
    this.render();
    this.item.show();
  }

  private render(): void {
    const state = this.connection.state;
    const command = 'holdfast.attachSession';
    switch (state.kind) {
      case 'connecting':
        return this.item.set({
          text: ui`$(sync~spin) Holdfast`,
          tooltip: ui`Holdfast: connecting to the terminal daemon…`,
          command,
        });
      case 'stopped':
        return this.item.set({
          text: ui`$(circle-slash) Holdfast`,
          tooltip: ui`Holdfast: no daemon is running. A new Holdfast terminal starts one.`,
          command,
        });
      case 'failed':
        return this.item.set({
          text: ui`$(error) Holdfast`,
          tooltip: ui`Holdfast: ${uiText(state.error.message)}\nRun "Holdfast: Show Daemon Status" for details.`,
          command,
          background: new vscode.ThemeColor('statusBarItem.errorBackground'),
        });
      case 'connected': {
        const running = this.sessions.running;
        const total = this.sessions.all.length;
        const hello = state.client.hello;
        const model = this.feed.model();
        const waiting = waitingCount([...model.here, ...model.others]);
        const exited = total > running ? ui`, ${total - running} exited` : ui``;
        const waits = waiting > 0 ? ui`, ${waiting} waiting for you` : ui``;
        const click = waiting > 0 ? ui`Click to go to the next one waiting.` : ui`Click to list sessions.`;
        const daemon = ui`daemon ${uiText(hello.version)} (pid ${hello.pid}, ${uiText(hello.startMode)})`;
        const sessions = ui`${running} running session${running === 1 ? ui`` : ui`s`}${exited}${waits}`;
        return this.item.set({
          text: waiting > 0 ? ui`$(pinned) ${running} $(bell) ${waiting}` : ui`$(pinned) ${running}`,
          tooltip: ui`Holdfast: ${daemon}; ${sessions}. ${click}`,
          command: waiting > 0 ? 'holdfast.nextAttention' : command,
        });
      }
    }
  }

  dispose(): void {
    this.store.dispose();
  }
}
