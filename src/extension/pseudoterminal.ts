// One VS Code terminal tab showing one daemon session. The tab never holds a process: it attaches
// to the session (as input owner, or as watcher when another window has input), writes the
// snapshot then the live output, and sends keys and its size. close() only detaches: VS Code also
// calls it when the window goes away, so killing is decided elsewhere (see tabs.ts).
import * as vscode from 'vscode';
import { Attachment, HoldfastClient, RequestError, SnapshotReason } from '../protocol/client';
import { DisposableStore, IDisposable, timeout } from '../protocol/disposable';
import { CreateParams, DaemonEvent, ErrorCode, Role, SessionInfo } from '../protocol/messages';
import { archivedFrom } from '../protocol/recovery';
import { archiveAction } from './archives';
import { DaemonConnection } from './daemonConnection';
import { archivedNotice, exitNotice, failureNotice, NOTICE, noticeLine } from './notices';

/** What a tab shows: a session to create when the tab opens, or one that exists. */
export type TabTarget =
  | { kind: 'new'; name: string; prepare(size: Size | undefined): Promise<CreateParams> }
  | { kind: 'existing'; session: SessionInfo };

export interface Size {
  cols: number;
  rows: number;
}

/** What a tab needs from the window around it. */
export interface TabHost {
  readonly connection: DaemonConnection;
  /** The tab knows its session (a new one was created). */
  sessionKnown(tab: SessionTab, session: SessionInfo): void;
  /** This window now has input for the session: point the session's `code` hook here. */
  becameOwner(tab: SessionTab, session: SessionInfo): void;
  /** The session was removed from the daemon; the tab closes itself. */
  sessionRemoved(tab: SessionTab): void;
  /** Something the user must see beyond the tab (e.g. the daemon could not start). */
  reportError(message: string, error: unknown): void;
}

/** How long a tab waits for its size before attaching without one (the panel may be hidden). */
const SIZE_WAIT_MS = 1000;
/** After a reload the previous window's connection may linger briefly: a tab that had to start as a watcher takes input back if the owner leaves this soon. */
const RECLAIM_WINDOW_MS = 5000;

/** Notices shown again after a history snapshot (which starts with a reset); older ones are dropped. */
const MAX_NOTICES_KEPT = 16;

export class SessionTab implements vscode.Pseudoterminal, IDisposable {
  private readonly store = new DisposableStore();
  private readonly writeEmitter = this.store.add(new vscode.EventEmitter<string>());
  private readonly closeEmitter = this.store.add(new vscode.EventEmitter<void>());
  private readonly nameEmitter = this.store.add(new vscode.EventEmitter<string>());
  private readonly dimensionsEmitter = this.store.add(new vscode.EventEmitter<vscode.TerminalDimensions | undefined>());
  readonly onDidWrite = this.writeEmitter.event;
  readonly onDidClose = this.closeEmitter.event;
  readonly onDidChangeName = this.nameEmitter.event;
  readonly onDidOverrideDimensions = this.dimensionsEmitter.event;

  private opened = false;
  private started = false;
  private closed = false;
  private size: Size | undefined;
  private sizeWait: IDisposable | undefined;
  private beforeOpen: string[] = []; // VS Code drops what a pseudoterminal writes before open()
  private pendingWrite = '';
  private flushHandle: NodeJS.Immediate | undefined;
  private afterSnapshot: string[] = []; // notices wait for the snapshot, which starts with a reset
  private noticesShown: string[] = []; // since the last snapshot, at most MAX_NOTICES_KEPT
  private historyPending = false; // attached while hidden: the scrollback is asked for once shown
  private snapshotSeen = false;
  private decoder = new TextDecoder('utf-8');
  private attachment: Attachment | undefined;
  private attaching = false;
  private role: Role = 'owner';
  private claiming: Promise<void> | undefined;
  private queuedInput: string[] = [];
  private reclaimUntil = 0;
  private info: SessionInfo | undefined;
  /** The process ended; the tab keeps the last screen. */
  exited = false;
  /** Set before the extension closes the tab itself (detach, kill), so closing is not a user's "kill". */
  closeIntent: 'detach' | 'removed' | undefined;
  /** The daemon lost this session (it stopped, or the session was removed); the tab is just a record. */
  private gone = false;
  /** The connection dropped while attached: attach again when it is back. */
  private lost = false;
  /** The user closed the tab before its new session existed: kill it as soon as it does. */
  killWhenCreated = false;
  /** A new run is taking this archived session's place: its removal does not close the tab. */
  private replacing = false;

  constructor(
    private readonly host: TabHost,
    private readonly target: TabTarget,
  ) {
    if (target.kind === 'existing') {
      this.info = target.session;
      this.exited = target.session.state === 'exited';
    }
  }

  get session(): SessionInfo | undefined {
    return this.info;
  }

  /** The tab's name: the session's, or the one a new session will get. */
  get pendingName(): string {
    return this.info?.name ?? (this.target.kind === 'new' ? this.target.name : '');
  }

  get sessionId(): string | undefined {
    return this.info?.id;
  }

  get isOwner(): boolean {
    return this.attachment !== undefined && this.role === 'owner';
  }

  get isClosed(): boolean {
    return this.closed;
  }

  // ---- Pseudoterminal ----

  open(initialDimensions: vscode.TerminalDimensions | undefined): void {
    this.opened = true;
    for (const text of this.beforeOpen.splice(0)) this.writeEmitter.fire(text);
    if (initialDimensions && initialDimensions.columns > 0 && initialDimensions.rows > 0)
      this.size = { cols: initialDimensions.columns, rows: initialDimensions.rows };
    // A restored tab attaches at once, hidden or not: its session has a size, and the tab's own
    // follows when VS Code lays it out. Only a new session waits for one (it is created with it).
    if (this.size || this.target.kind !== 'new') this.start();
    else this.sizeWait = this.store.add(timeout(SIZE_WAIT_MS, () => this.start()));
  }

  setDimensions(dimensions: vscode.TerminalDimensions): void {
    if (dimensions.columns <= 0 || dimensions.rows <= 0) return;
    const changed = !this.size || this.size.cols !== dimensions.columns || this.size.rows !== dimensions.rows;
    this.size = { cols: dimensions.columns, rows: dimensions.rows };
    this.requestHistoryIfShown();
    if (!this.started) {
      if (this.opened) this.start();
      return;
    }
    if (changed && this.isOwner && !this.exited)
      this.attachment!.resize(this.size.cols, this.size.rows).catch(() => undefined);
  }

  handleInput(data: string): void {
    if (this.closed || this.gone || this.exited) return;
    if (!this.attachment) return; // attaching or reconnecting: keys have nowhere to go yet
    if (this.role === 'owner') {
      this.attachment.write(data);
      return;
    }
    // A watcher takes input over by typing (and its keys follow once it has).
    this.queuedInput.push(data);
    this.claiming ??= this.claim().finally(() => (this.claiming = undefined));
  }

  close(): void {
    this.closed = true;
    this.sizeWait?.dispose();
    if (this.flushHandle) clearImmediate(this.flushHandle);
    const attachment = this.attachment;
    this.attachment = undefined;
    void attachment?.detach();
    this.store.dispose();
  }

  dispose(): void {
    this.close();
  }

  // ---- driven by the window ----

  /** The connection dropped: the channel is dead until the window reconnects. */
  connectionLost(): void {
    if (!this.attachment || this.closed) return;
    this.attachment = undefined;
    this.lost = true;
    if (!this.exited && !this.gone) this.print(NOTICE.reconnecting);
  }

  /** The daemon is gone (stopped, crashed, or restarted on purpose): this session's process died with it. */
  daemonGone(restarted: boolean): void {
    if (this.closed || this.gone || !this.info) return;
    this.gone = true;
    this.attachment = undefined;
    if (!this.exited) this.print(restarted ? NOTICE.daemonRestarted : NOTICE.daemonGone);
  }

  /** A (new) connection is up: attach again if the tab had a session. */
  reconnected(client: HoldfastClient): void {
    if (this.closed || this.gone || !this.info || !this.lost || this.attaching) return;
    this.lost = false;
    void this.attach(client, this.role).catch((err) => {
      if (err instanceof RequestError && err.code === ErrorCode.NoSession) this.markGone();
      else this.print(failureNotice('reattaching', err));
    });
  }

  /** Takes input for this session (the user asked for it, e.g. by focusing it from the session list). */
  takeInput(): Promise<void> {
    if (this.role === 'owner' || !this.attachment) return Promise.resolve();
    this.claiming ??= this.claim().finally(() => (this.claiming = undefined));
    return this.claiming;
  }

  /** An archived session is about to be resumed or relaunched (see replaceSession). */
  expectReplacement(): void {
    this.replacing = true;
  }

  replacementFailed(): void {
    this.replacing = false;
  }

  /** The new run that took this tab's archived session's place: show it here, with input. */
  async replaceSession(session: SessionInfo, note: string): Promise<void> {
    const old = this.attachment;
    this.attachment = undefined;
    void old?.detach().catch(() => undefined);
    this.info = session;
    this.exited = false;
    this.gone = false;
    this.lost = false;
    this.replacing = false;
    this.nameEmitter.fire(session.name);
    if (this.closed) return;
    const client = await this.host.connection.get();
    await this.attach(client, 'owner', note);
  }

  rename(name: string): void {
    if (this.info) this.info = { ...this.info, name };
    this.nameEmitter.fire(name);
  }

  /** Closes the tab from our side (after Detach or Kill, or when the session was removed). */
  closeTab(intent: 'detach' | 'removed'): void {
    this.closeIntent ??= intent;
    this.closeEmitter.fire();
    this.close();
  }

  // ---- attaching ----

  private start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.sizeWait?.dispose();
    void this.run().catch((err) => {
      this.print(failureNotice(this.target.kind === 'new' && !this.info ? 'starting the session' : 'attaching', err));
      this.host.reportError(
        this.target.kind === 'new' && !this.info
          ? 'Holdfast could not start a terminal'
          : 'Holdfast could not attach to the session',
        err,
      );
    });
  }

  private async run(): Promise<void> {
    const client = await this.host.connection.get();
    if (this.closed) return;
    let role: Role;
    if (this.target.kind === 'new') {
      const params = await this.target.prepare(this.size);
      const { session } = await client.request('create', { ...params, cols: this.size?.cols, rows: this.size?.rows });
      this.info = session;
      this.host.sessionKnown(this, session);
      if (this.closed) return;
      role = 'owner';
    } else {
      // Another window has input: watch until the user types here.
      role = this.target.session.clients.owners > 0 ? 'watcher' : 'owner';
      if (role === 'watcher') this.reclaimUntil = Date.now() + RECLAIM_WINDOW_MS;
    }
    try {
      await this.attach(client, role);
    } catch (err) {
      if (err instanceof RequestError && err.code === ErrorCode.NoSession) this.markGone();
      else throw err;
    }
  }

  private async attach(client: HoldfastClient, role: Role, notice?: string): Promise<void> {
    const id = this.info!.id;
    this.attaching = true;
    this.snapshotSeen = false;
    this.afterSnapshot = [];
    try {
      const size = role === 'owner' ? this.size : undefined;
      const attachment = await client.attach(
        // The screen shows at once; the scrollback follows in a second snapshot, for a hidden tab
        // (no size yet) once it is shown: ten restored tabs do not all parse their history at load.
        { session: id, role, cols: size?.cols, rows: size?.rows, screenFirst: true, historyLater: !this.size },
        {
          onSnapshot: (bytes, why) => this.onSnapshot(bytes, why),
          onOutput: (bytes) => this.emit(this.decoder.decode(bytes, { stream: true })),
          onEvent: (event) => this.onEvent(event),
        },
      );
      if (this.closed) {
        void attachment.detach();
        return;
      }
      this.attachment = attachment;
      this.historyPending = !this.size;
      this.requestHistoryIfShown();
      this.role = role;
      this.update(attachment.session);
      const archived = archiveAction(attachment.session);
      if (archived) {
        this.exited = true;
        this.printAfterSnapshot(
          archivedNotice(archived, archivedFrom(attachment.session.metadata)!.writtenAt, attachment.session.cwd),
        );
      } else if (attachment.session.state === 'exited' && !this.exited) {
        this.exited = true;
        this.printAfterSnapshot(exitNotice(attachment.session.exit));
      }
      if (role === 'watcher') {
        this.printAfterSnapshot(NOTICE.watching);
        this.fitToSession();
      } else {
        this.dimensionsEmitter.fire(undefined);
        this.host.becameOwner(this, attachment.session);
        // The size may have changed while attaching.
        if (
          this.size &&
          !this.exited &&
          (this.size.cols !== attachment.session.cols || this.size.rows !== attachment.session.rows)
        ) {
          attachment.resize(this.size.cols, this.size.rows).catch(() => undefined);
        }
      }
      if (notice) this.printAfterSnapshot(notice);
    } finally {
      this.attaching = false;
    }
  }

  private async claim(): Promise<void> {
    const attachment = this.attachment;
    if (!attachment) return;
    try {
      const session = await attachment.claim(this.size?.cols, this.size?.rows);
      if (attachment !== this.attachment) return;
      this.role = 'owner';
      this.reclaimUntil = 0;
      this.update(session);
      this.dimensionsEmitter.fire(undefined);
      this.host.becameOwner(this, session);
      for (const data of this.queuedInput.splice(0)) attachment.write(data);
    } catch (err) {
      this.queuedInput = [];
      this.print(failureNotice('taking input', err));
    }
  }

  /** A tab attached while hidden gets its scrollback once VS Code lays it out (it has a size then). */
  private requestHistoryIfShown(): void {
    if (!this.historyPending || !this.size || !this.attachment) return;
    this.historyPending = false;
    const attachment = this.attachment;
    attachment.requestHistory().catch((err) => {
      // Detached or reconnecting meanwhile: the next attach brings the history with it.
      if (this.attachment === attachment) this.print(failureNotice('loading the scrollback', err));
    });
  }

  private onSnapshot(bytes: Buffer, why: SnapshotReason): void {
    this.decoder = new TextDecoder('utf-8');
    this.emit(this.decoder.decode(bytes, { stream: true }));
    this.snapshotSeen = true;
    // The history snapshot starts with a reset too: the notices printed since the screen come back.
    if (why === 'history') for (const text of this.noticesShown) this.emit(noticeLine(text));
    else this.noticesShown = [];
    for (const text of this.afterSnapshot.splice(0)) this.print(text);
  }

  private onEvent(event: DaemonEvent): void {
    const id = this.info?.id;
    switch (event.type) {
      case 'role':
        this.role = event.role;
        if (event.role === 'watcher') {
          this.queuedInput = [];
          this.print(NOTICE.inputMoved);
          this.fitToSession();
        } else this.dimensionsEmitter.fire(undefined);
        return;
      case 'exit':
        if (event.id !== id || this.exited) return;
        this.exited = true;
        this.printAfterSnapshot(exitNotice(event.exit));
        return;
      case 'session':
        if (event.session.id !== id) return;
        this.update(event.session);
        // The previous window's input left just after we arrived (a reload): take input back.
        if (
          this.role === 'watcher' &&
          this.attachment &&
          event.session.clients.owners === 0 &&
          Date.now() < this.reclaimUntil
        )
          void this.takeInput();
        else if (this.role === 'watcher') this.fitToSession();
        return;
      case 'removed':
        if (event.id !== id || this.replacing) return;
        this.host.sessionRemoved(this);
        this.closeTab('removed');
        return;
      default:
        return;
    }
  }

  private update(session: SessionInfo): void {
    const renamed = this.info !== undefined && this.info.name !== session.name;
    this.info = session;
    if (renamed) this.nameEmitter.fire(session.name);
  }

  /** A watcher shows the session at the owner's size (VS Code only honours it when smaller than the tab). */
  private fitToSession(): void {
    if (this.info && this.info.cols > 0 && this.info.rows > 0)
      this.dimensionsEmitter.fire({ columns: this.info.cols, rows: this.info.rows });
  }

  private markGone(): void {
    if (this.gone) return;
    this.gone = true;
    this.attachment = undefined;
    this.print(NOTICE.sessionGone);
  }

  private printAfterSnapshot(text: string): void {
    if (this.snapshotSeen || !this.attaching) this.print(text);
    else this.afterSnapshot.push(text);
  }

  private print(text: string): void {
    if (this.noticesShown.push(text) > MAX_NOTICES_KEPT) this.noticesShown.shift();
    this.emit(noticeLine(text));
  }

  /** Output arrives in many small frames; the tab gets what one turn of the event loop brought, at once. */
  private emit(text: string): void {
    if (!text || this.closed) return;
    if (!this.opened) {
      this.beforeOpen.push(text);
      return;
    }
    this.pendingWrite += text;
    this.flushHandle ??= setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushHandle = undefined;
    const text = this.pendingWrite;
    this.pendingWrite = '';
    if (text && !this.closed) this.writeEmitter.fire(text);
  }
}
