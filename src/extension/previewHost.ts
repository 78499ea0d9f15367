// What the sidebar and the wall of screens share on the extension host side:
//  - PreviewHost: one per webview; a watcher attachment for each preview the webview shows
//    (snapshot, then the stream; a host's, screens only), forwarded with postMessage. Watchers never
//    write and never resize: a preview follows the session's size, never the other way round.
import * as vscode from 'vscode';
import type { Attachment, HoldfastClient } from '../client/client';
import { DisposableStore, type IDisposable, timeout } from '../base/disposable';
import type { SessionList } from './sessionList';
import type { PreviewDeps, SessionFeed } from './sessionFeed';
export type { PreviewDeps, SessionFeed } from './sessionFeed';
import type { FromWebview, ToWebview, WebviewCommand } from './webview/messages';
import { Capability } from '../protocol/messages';
import { showError } from './ui';
import { ui, uiText } from '../text/uiText';
import { onHost, parseKey } from './sessionKey';

/** Output is batched into one message per preview this often. */
const OUTPUT_FLUSH_MS = 40;
/** While the user types in a tab, a preview's screens and output are posted this often at most: typing first. */
const TYPING_FLUSH_MS = 250;
/** A preview that fell this far behind is resynced with a fresh snapshot instead. */
const MAX_PENDING_CHARS = 1 << 20;

const COMMANDS: ReadonlySet<WebviewCommand> = new Set<WebviewCommand>([
  'focusSession',
  'openSessionInEditor',
  'renameSession',
  'killSession',
  'removeSession',
  'resumeSession',
  'relaunchSession',
  'replySession',
  'approve',
  'deny',
  'newTerminal',
  'newAgent',
  'showAllSessions',
]);

/** A preview is never sized from a host's word beyond what a session can be. */
function fits(cols: unknown, rows: unknown): boolean {
  return (
    Number.isInteger(cols) &&
    Number.isInteger(rows) &&
    (cols as number) > 0 &&
    (rows as number) > 0 &&
    (cols as number) <= 2000 &&
    (rows as number) <= 1000
  );
}

/** One watched preview: its attachment and the output not yet posted. */
interface Watch {
  id: string;
  attachment?: Attachment;
  decoder: TextDecoder;
  /** A screen not posted yet (the user types): posted before `pending`, which follows it. */
  screen?: string;
  pending: string;
  flush?: IDisposable;
  cols: number;
  rows: number;
}

/** Serves one webview: the model, and a watcher stream per preview it asks for while it is visible. */
export class PreviewHost implements IDisposable {
  private readonly store = new DisposableStore();
  /** Previews the webview shows (asked with 'watch'). */
  private readonly wanted = new Set<string>();
  private readonly watches = new Map<string, Watch>();
  private visible = true;
  private ready = false;

  constructor(
    private readonly webview: vscode.Webview,
    private readonly feed: SessionFeed,
    private readonly deps: PreviewDeps,
  ) {
    this.store.add(webview.onDidReceiveMessage((message: FromWebview) => this.onMessage(message)));
    this.store.add(feed.onDidChange(() => this.onModel()));
    // A new connection (reconnect, new daemon): the old channels are gone; watch again.
    this.store.add(deps.connection.onDidConnect(() => this.rewatchAll(onHost(undefined))));
    this.store.add(deps.connection.onDidLose(() => this.dropAll(onHost(undefined))));
    if (deps.remotes) {
      this.store.add(deps.remotes.onDidConnect(({ host }) => this.rewatchAll(onHost(host))));
      this.store.add(deps.remotes.onDidLose((host) => this.dropAll(onHost(host))));
    }
    this.store.add({ dispose: () => this.dropAll() });
  }

  /** A hidden view streams nothing; shown again, every preview resyncs from a fresh snapshot. */
  setVisible(visible: boolean): void {
    if (visible === this.visible) return;
    this.visible = visible;
    if (visible) {
      this.post({ type: 'model', model: this.feed.model() });
      this.rewatchAll();
    } else this.dropAll();
  }

  /** Sessions with a live watcher stream (for the log and tests of this class). */
  get streaming(): string[] {
    return [...this.watches.keys()];
  }

  private onMessage(message: FromWebview): void {
    switch (message?.type) {
      case 'ready':
        // A (re)loaded page: it has no previews yet.
        this.ready = true;
        this.wanted.clear();
        this.dropAll();
        this.post({ type: 'model', model: this.feed.model() });
        return;
      case 'watch':
        if (typeof message.id !== 'string') return;
        this.wanted.add(message.id);
        if (this.visible) void this.watch(message.id);
        return;
      case 'unwatch':
        this.wanted.delete(message.id);
        this.drop(message.id);
        return;
      case 'run':
        if (!COMMANDS.has(message.command)) return;
        this.run(message.command, message.id);
        return;
    }
  }

  private run(command: WebviewCommand, id: string | undefined): void {
    const args = typeof id === 'string' ? [id] : [];
    vscode.commands.executeCommand(`holdfast.${command}`, ...args).then(undefined, (err: unknown) => {
      const detail = err instanceof Error ? err.message : String(err);
      this.deps.log.error(`sidebar: holdfast.${command} failed: ${detail}`);
      void showError(ui`Holdfast: ${uiText(detail)}`);
    });
  }

  private onModel(): void {
    if (!this.ready || !this.visible) return;
    const model = this.feed.model();
    this.post({ type: 'model', model });
    // Removed sessions: their streams end.
    const ids = new Set([...model.here, ...model.others, ...model.hosts.flatMap((h) => h.cards)].map((c) => c.id));
    for (const id of [...this.wanted]) {
      if (!ids.has(id)) {
        this.wanted.delete(id);
        this.drop(id);
      }
    }
  }

  /** The connection and session list a session key belongs to: this machine's, or its host's. */
  private sourceOf(key: string): { client?: HoldfastClient; sessions?: SessionList; id: string; remote?: boolean } {
    const { host, id } = parseKey(key);
    if (host === undefined) return { client: this.deps.connection.client, sessions: this.deps.sessions, id };
    const remote = this.deps.remotes?.get(host);
    return { client: remote?.connection.client, sessions: remote?.sessions, id, remote: true };
  }

  private async watch(key: string): Promise<void> {
    if (this.watches.has(key)) return;
    const { client, sessions, id, remote } = this.sourceOf(key);
    if (!client || client.isClosed) return; // watched again when the connection is back
    const info = sessions?.get(id);
    if (!info) return; // not a session of that host (any more)
    const watch: Watch = {
      id: key,
      decoder: new TextDecoder('utf-8'),
      pending: '',
      cols: info?.cols ?? 80,
      rows: info?.rows ?? 24,
    };
    this.watches.set(key, watch);
    try {
      const attachment = await client.attach(
        // A host's preview, over SSH, is sent screens only (a flood of it costs screens a second, not its bytes).
        { session: id, role: 'watcher', ...(remote && client.supports(Capability.Screens) ? { view: 'screens' } : {}) },
        {
          onSnapshot: (bytes) => {
            if (this.watches.get(key) !== watch) return;
            watch.pending = '';
            watch.decoder = new TextDecoder('utf-8');
            watch.screen = watch.decoder.decode(bytes, { stream: true });
            if (this.deps.typing?.typing) watch.flush ??= timeout(TYPING_FLUSH_MS, () => this.flush(watch));
            else this.flush(watch);
          },
          onOutput: (bytes) => this.queue(watch, bytes),
          onEvent: (event) => {
            if (event.type !== 'session' || event.session.id !== id || this.watches.get(key) !== watch) return;
            if (event.session.cols === watch.cols && event.session.rows === watch.rows) return;
            if (!fits(event.session.cols, event.session.rows)) return;
            // Output before the resize was laid out for the old size: it goes first.
            this.flush(watch);
            watch.cols = event.session.cols;
            watch.rows = event.session.rows;
            this.post({ type: 'resize', id: key, cols: watch.cols, rows: watch.rows });
          },
        },
      );
      if (this.watches.get(key) !== watch) {
        attachment.dispose(); // unwatched while attaching
        return;
      }
      watch.attachment = attachment;
      const { cols, rows } = attachment.session;
      if ((cols !== watch.cols || rows !== watch.rows) && fits(cols, rows)) {
        this.flush(watch);
        watch.cols = attachment.session.cols;
        watch.rows = attachment.session.rows;
        this.post({ type: 'resize', id: key, cols: watch.cols, rows: watch.rows });
      }
    } catch (err) {
      if (this.watches.get(key) === watch) this.watches.delete(key);
      this.deps.log.warn(`sidebar: watching ${key}: ${(err as Error).message}`);
    }
  }

  private queue(watch: Watch, bytes: Buffer): void {
    if (this.watches.get(watch.id) !== watch) return;
    watch.pending += watch.decoder.decode(bytes, { stream: true });
    if (watch.pending.length > MAX_PENDING_CHARS) {
      // The webview is far behind (a flood): a fresh snapshot is cheaper than the backlog.
      this.drop(watch.id);
      if (this.wanted.has(watch.id) && this.visible) void this.watch(watch.id);
      return;
    }
    const ms = this.deps.typing?.typing ? TYPING_FLUSH_MS : OUTPUT_FLUSH_MS;
    watch.flush ??= timeout(ms, () => this.flush(watch));
  }

  private flush(watch: Watch): void {
    watch.flush?.dispose();
    watch.flush = undefined;
    const screen = watch.screen;
    watch.screen = undefined;
    if (screen !== undefined)
      this.post({ type: 'snapshot', id: watch.id, data: screen, cols: watch.cols, rows: watch.rows });
    if (!watch.pending) return;
    const data = watch.pending;
    watch.pending = '';
    this.post({ type: 'output', id: watch.id, data });
  }

  private drop(id: string): void {
    const watch = this.watches.get(id);
    if (!watch) return;
    this.watches.delete(id);
    watch.flush?.dispose();
    watch.attachment?.dispose();
  }

  /** Drops the streams of the sessions `which` picks (all by default). */
  private dropAll(which: (key: string) => boolean = () => true): void {
    for (const key of [...this.watches.keys()]) if (which(key)) this.drop(key);
  }

  private rewatchAll(which: (key: string) => boolean = () => true): void {
    this.dropAll(which);
    if (!this.visible) return;
    for (const key of this.wanted) if (which(key)) void this.watch(key);
  }

  private post(message: ToWebview): void {
    // Rejected only when the webview is gone: its PreviewHost is disposed with it, nothing to tell.
    void this.webview.postMessage(message).then(undefined, () => undefined);
  }

  dispose(): void {
    this.store.dispose();
  }
}
