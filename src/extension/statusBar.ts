// The status bar item: the daemon's state and how many sessions run; a click lists the sessions.
import * as vscode from 'vscode';
import { DisposableStore } from '../protocol/disposable';
import { DaemonConnection } from './daemonConnection';
import { SessionList } from './sessionList';

export class StatusBar implements vscode.Disposable {
  private readonly store = new DisposableStore();
  private readonly item = vscode.window.createStatusBarItem('holdfast.status', vscode.StatusBarAlignment.Left, 10);

  constructor(
    private readonly connection: DaemonConnection,
    private readonly sessions: SessionList,
  ) {
    this.item.name = 'Holdfast';
    this.item.command = 'holdfast.attachSession';
    this.store.add(this.item);
    this.store.add(connection.onDidChangeState(() => this.render()));
    this.store.add(sessions.onDidChange(() => this.render()));
    this.render();
    this.item.show();
  }

  private render(): void {
    const state = this.connection.state;
    this.item.backgroundColor = undefined;
    switch (state.kind) {
      case 'connecting':
        this.item.text = '$(sync~spin) Holdfast';
        this.item.tooltip = 'Holdfast: connecting to the terminal daemon…';
        return;
      case 'stopped':
        this.item.text = '$(circle-slash) Holdfast';
        this.item.tooltip = 'Holdfast: no daemon is running. A new Holdfast terminal starts one.';
        return;
      case 'failed':
        this.item.text = '$(error) Holdfast';
        this.item.tooltip = `Holdfast: ${state.error.message}\nRun "Holdfast: Show Daemon Status" for details.`;
        this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
        return;
      case 'connected': {
        const running = this.sessions.running;
        const total = this.sessions.all.length;
        const hello = state.client.hello;
        this.item.text = `$(pinned) ${running}`;
        const exited = total > running ? `, ${total - running} exited` : '';
        this.item.tooltip =
          `Holdfast: daemon ${hello.version} (pid ${hello.pid}, ${hello.startMode}); ` +
          `${running} running session${running === 1 ? '' : 's'}${exited}. Click to list sessions.`;
        return;
      }
    }
  }

  dispose(): void {
    this.store.dispose();
  }
}
