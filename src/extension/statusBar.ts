// The status bar item: the daemon's state, how many sessions run and how many wait for you; a click
// goes to the next session needing you while some wait (holdfast.nextAttention), else lists the sessions.
import * as vscode from 'vscode';
import { DisposableStore } from '../base/disposable';
import { DaemonConnection } from './daemonConnection';
import type { SessionFeed } from './previewHost';
import { SessionList } from './sessionList';
import { waitingCount } from './sessionState';

export class StatusBar implements vscode.Disposable {
  private readonly store = new DisposableStore();
  private readonly item = vscode.window.createStatusBarItem('holdfast.status', vscode.StatusBarAlignment.Left, 10);

  constructor(
    private readonly connection: DaemonConnection,
    private readonly sessions: SessionList,
    private readonly feed: SessionFeed,
  ) {
    this.item.name = 'Holdfast';
    this.item.command = 'holdfast.attachSession';
    this.store.add(this.item);
    this.store.add(connection.onDidChangeState(() => this.render()));
    this.store.add(sessions.onDidChange(() => this.render()));
    this.store.add(feed.onDidChange(() => this.render()));
    this.render();
    this.item.show();
  }

  private render(): void {
    const state = this.connection.state;
    this.item.backgroundColor = undefined;
    this.item.command = 'holdfast.attachSession';
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
        const model = this.feed.model();
        const waiting = waitingCount([...model.here, ...model.others]);
        this.item.text = `$(pinned) ${running}${waiting > 0 ? ` $(bell) ${waiting}` : ''}`;
        const exited = total > running ? `, ${total - running} exited` : '';
        const waits = waiting > 0 ? `, ${waiting} waiting for you` : '';
        if (waiting > 0) this.item.command = 'holdfast.nextAttention';
        const click = waiting > 0 ? 'Click to go to the next one waiting.' : 'Click to list sessions.';
        this.item.tooltip =
          `Holdfast: daemon ${hello.version} (pid ${hello.pid}, ${hello.startMode}); ` +
          `${running} running session${running === 1 ? '' : 's'}${exited}${waits}. ${click}`;
        return;
      }
    }
  }

  dispose(): void {
    this.store.dispose();
  }
}
