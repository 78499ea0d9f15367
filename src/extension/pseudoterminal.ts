// One VS Code terminal tab showing one daemon session. The tab never holds a process: it attaches
// to the session (as input owner, or as watcher when another window has input), writes the
// snapshot then the live output, and sends keys and its size. close() only detaches: VS Code also
// calls it when the window goes away, so killing is decided elsewhere (see tabs.ts).
// Plain Node (vscode's types only), so a tab's life is tested against a real daemon without VS Code.
/* eslint-disable max-lines -- every effect of the tab's state machine (tabState.ts) lives here, beside the move */
import type * as vscode from 'vscode';
import { type Attachment, type HoldfastClient, RequestError } from '../client/client';
import { DisposableStore, Emitter, type IDisposable, timeout } from '../base/disposable';
import { type DaemonEvent, ErrorCode, type Role, type SessionInfo } from '../protocol/messages';
import { archiveAction } from './archives';
import { guardLocalEcho } from './localEchoGuard';
import { archivedNotice, exitNotice, failureNotice, hostReconnecting, NOTICE } from './notices';
import { TabInput } from './tabInput';
import { RendererPace } from './rendererWriter';
import { DEFAULT_PACE, TabOutput } from './tabOutput';
import { TabView } from './tabView';
import * as life from './tabState';
import { remoteSessionInfo, remoteTabEvent } from '../link/remoteSessions';
import { remoteKey } from './sessionKey';
import type { Size, TabHost, TabLink, TabTarget } from './tabHost';
import { type UiText, uiText } from '../text/uiText';

/** How long a tab waits for its size before attaching without one (the panel may be hidden). */
const SIZE_WAIT_MS = 1000;

export class SessionTab implements vscode.Pseudoterminal, IDisposable {
  private readonly store = new DisposableStore();
  private readonly writeEmitter = this.store.add(new Emitter<string>());
  private readonly closeEmitter = this.store.add(new Emitter<void>());
  /** Names are rendered with icons in the tab: UI text. */
  private readonly nameEmitter = this.store.add(new Emitter<UiText>());
  private readonly dimensionsEmitter = this.store.add(new Emitter<vscode.TerminalDimensions | undefined>());
  readonly onDidWrite: vscode.Event<string> = this.writeEmitter.event;
  readonly onDidClose: vscode.Event<void> = this.closeEmitter.event;
  readonly onDidChangeName: vscode.Event<UiText> = this.nameEmitter.event;
  readonly onDidOverrideDimensions: vscode.Event<vscode.TerminalDimensions | undefined> = this.dimensionsEmitter.event;

  private state: life.TabState = life.initialTabState;
  private readonly out = new TabOutput(
    (text) => this.writeEmitter.fire(guardLocalEcho(text)),
    () => this.resync(),
    {
      ...DEFAULT_PACE,
      // Typing first: while the user types in another tab, this one keeps less waiting in the renderer.
      maxUnparsedChars: () =>
        this.host.typing?.elsewhere(this) ? RendererPace.TypingUnparsedChars : RendererPace.MaxUnparsedChars,
    },
  );
  /** Whether the tab is on screen, as the daemon knows it (a hidden tab is sent nothing). */
  private readonly view = new TabView((line) => this.host.warn(line));
  private size: Size | undefined;
  private sizeWait: IDisposable | undefined;
  private historyPending = false; // attached while hidden: the scrollback is asked for once shown
  private attachment: Attachment | undefined;
  /** Counts attach attempts: what a superseded one (its connection lost meanwhile) brings is dropped. */
  private attempt = 0;
  private readonly input = new TabInput({
    attachment: () => this.attachment,
    size: () => this.size,
    print: (text) => this.out.print(text),
    watching: () => this.fitToSession(),
    owning: () => this.dimensionsEmitter.fire(undefined),
    claimed: (session) => this.tookInput(session),
  });
  private info: SessionInfo | undefined;
  /** Set before the extension closes the tab itself (detach, kill), so closing is not a user's "kill". */
  closeIntent: 'detach' | 'removed' | undefined;

  constructor(
    private readonly host: TabHost,
    private readonly target: TabTarget,
  ) {
    if (target.kind === 'existing') this.info = target.session;
  }

  get session(): SessionInfo | undefined {
    return this.info;
  }

  /** The tab's name: the session's, or the one a new session will get. */
  get pendingName(): string {
    return this.info?.name ?? (this.target.kind === 'new' ? this.target.name : '');
  }

  /**
   * The session's key in this window (sessionKey.ts): its id for this machine's, "@HOST/ID" for a host's, so that
   * nothing of this machine (kill, layout, hooks) ever takes a host's session for one of its own.
   */
  get sessionId(): string | undefined {
    if (!this.info) return undefined;
    return this.remoteHost === undefined ? this.info.id : remoteKey(this.remoteHost, this.info.id);
  }

  /** The tab's title for a session name: a host's session says its host, as its section does. */
  tabName(name: string): UiText {
    return uiText(this.remoteHost === undefined ? name : `${name} (${this.remoteHost})`);
  }

  /** The SSH host whose session this is (undefined: this machine's). */
  get remoteHost(): string | undefined {
    return this.target.kind === 'existing' ? this.target.host : undefined;
  }

  /** The connection the tab attaches over: this machine's daemon's, or its host's one connection. */
  private get link(): TabLink {
    const name = this.remoteHost;
    if (name === undefined) return this.host.connection;
    return (
      this.host.hostLink?.(name) ?? {
        client: undefined,
        get: () => Promise.reject(new Error(`${name} is no longer in holdfast.hosts`)),
      }
    );
  }

  /** The nonce its terminal is made with (shellIntegration.ts). */
  get shellNonce(): string | undefined {
    return this.target.shellNonce;
  }

  /** Where the tab is in its life (tabState.ts). */
  get status(): life.TabStateKind {
    return this.state.kind;
  }

  get isClosed(): boolean {
    return this.state.kind === 'closed';
  }

  /** Nothing of the session runs any more (exited, archived, gone): closing the tab has nothing to ask about. */
  get exited(): boolean {
    return life.processEnded(this.state) ?? this.info?.state === 'exited';
  }

  /** Moves to the state a transition gives; false (and no move) when the transition refuses. */
  private move(next: life.TabState | undefined): boolean {
    if (!next) return false;
    this.state = next;
    // Keys held while away go once live (attach); a tab that ends up anything else sends none of them.
    if (next.kind !== 'attaching' && next.kind !== 'reconnecting' && next.kind !== 'live') this.input.dropHeld();
    return true;
  }

  // ---- Pseudoterminal ----

  open(initialDimensions: vscode.TerminalDimensions | undefined): void {
    this.out.open();
    if (initialDimensions && initialDimensions.columns > 0 && initialDimensions.rows > 0)
      this.size = { cols: initialDimensions.columns, rows: initialDimensions.rows };
    // A restored tab attaches at once, hidden or not: its session has a size, and the tab's own
    // follows when VS Code lays it out. Only a new session waits for one (it is created with it).
    if (this.size || this.target.kind !== 'new') this.start();
    else this.sizeWait = this.store.add(timeout(SIZE_WAIT_MS, () => this.start()));
  }

  setDimensions(dimensions: vscode.TerminalDimensions): void {
    if (dimensions.columns <= 0 || dimensions.rows <= 0) return;
    this.host.laidOut?.(this); // VS Code sizes only what it shows
    const changed = !this.size || this.size.cols !== dimensions.columns || this.size.rows !== dimensions.rows;
    this.size = { cols: dimensions.columns, rows: dimensions.rows };
    this.requestHistoryIfShown();
    if (this.state.kind === 'opening') {
      if (this.out.isOpen) this.start();
      return;
    }
    if (changed && this.input.isOwner && this.state.kind === 'live') this.resize(this.attachment!, this.size);
  }

  handleInput(keys: string): void {
    const data = this.out.takeAnswers(keys); // the renderer's answers to the output's pacing probes are not keys
    if (!data) return;
    this.host.typing?.typed(this);
    if (this.state.kind === 'live') this.input.type(data);
    else if (this.state.kind === 'attaching' || this.state.kind === 'reconnecting') this.input.hold(data);
    else if (this.state.kind === 'failed') this.retry(); // the failure notice says a key tries again
    // ended, gone or closed: nothing reads keys
  }

  close(): void {
    this.move(life.close(this.state));
    this.out.close();
    this.dropAttachment();
    this.store.dispose();
  }

  dispose(): void {
    this.close();
  }

  // ---- driven by the window ----

  /** The connection dropped: the channel (or the attach in flight) is dead until the window reconnects. */
  connectionLost(): void {
    const was = this.state.kind;
    if (!this.attachment && was !== 'attaching' && was !== 'replacing') return;
    this.attachment = undefined;
    this.view.detached();
    if (this.move(life.connectionLost(this.state)) && (was === 'live' || was === 'attaching'))
      this.out.print(this.remoteHost === undefined ? NOTICE.reconnecting : hostReconnecting(this.remoteHost));
  }

  /** The daemon is gone (stopped, crashed, or restarted on purpose): this session's process died with it. */
  daemonGone(restarted: boolean): void {
    if (!this.info) return; // no session yet: the tab's start fails on its own
    const ended = life.processEnded(this.state);
    if (!this.move(life.sessionGone(this.state, restarted ? 'daemonRestarted' : 'daemonStopped'))) return;
    this.attachment = undefined;
    this.view.detached();
    if (!ended) this.out.print(restarted ? NOTICE.daemonRestarted : NOTICE.daemonGone);
  }

  /** A (new) connection is up: attach again (or create the new session the lost connection did not answer). */
  reconnected(client: HoldfastClient): void {
    if (this.state.kind === 'failed' && !this.info) return; // creating failed: only a key tries again
    if (this.move(life.reconnect(this.state))) this.reattach(client);
  }

  /** A failed tab tries again (a key was typed in it). */
  private retry(): void {
    if (this.move(life.reconnect(this.state))) this.reattach(this.link.client);
  }

  private reattach(client: HoldfastClient | undefined): void {
    if (!this.info) return this.launch(); // the new session was never created (or its answer was lost)
    void (client ? Promise.resolve(client) : this.link.get())
      .then((c) => this.attach(c, this.input.role))
      .catch((err) => this.attachFailed('reattaching', err));
  }

  /** The tab was shown or hidden (tabVisibility.ts): a hidden tab is sent nothing, and its screen once shown. */
  setShown(shown: boolean): void {
    this.view.set(shown);
  }

  /** Takes input for this session (the user asked for it, e.g. by focusing it from the session list). */
  takeInput(): Promise<void> {
    return this.input.take();
  }

  /** An archived (or exited) session is about to be resumed or relaunched (see replaceSession). */
  expectReplacement(): void {
    this.move(life.beginReplacement(this.state));
  }

  replacementFailed(): void {
    this.move(life.replacementFailed(this.state));
    const client = this.link.client; // the connection came back meanwhile: attach again now
    if (client) this.reconnected(client);
  }

  /**
   * The new run that took this tab's archived session's place: show it here, with input. A failed
   * attach leaves the tab reconnecting (its connection dropped) or failed, never attaching.
   */
  async replaceSession(session: SessionInfo, note: string): Promise<void> {
    this.dropAttachment();
    this.info = session;
    this.nameEmitter.fire(this.tabName(session.name));
    if (!this.move(life.replaced(this.state))) return; // closed meanwhile
    try {
      await this.attach(await this.link.get(), 'owner', note);
    } catch (err) {
      if (!this.attachFailed('attaching', err)) throw err; // else it reattaches with the next connection
    }
  }

  rename(name: string): void {
    if (this.info) this.info = { ...this.info, name };
    this.nameEmitter.fire(this.tabName(name));
  }

  /** Closes the tab from our side (after Detach or Kill, or when the session was removed). */
  closeTab(intent: 'detach' | 'removed'): void {
    this.closeIntent ??= intent;
    this.closeEmitter.fire();
    this.close();
  }

  // ---- attaching ----

  private start(): void {
    if (!this.move(life.start(this.state))) return;
    this.sizeWait?.dispose();
    this.launch();
  }

  /** Attaching: creates the session first if the tab has none yet. */
  private launch(): void {
    const creating = this.target.kind === 'new' && !this.info;
    void this.run().catch((err) => {
      if (this.attachFailed(creating ? 'starting the session' : 'attaching', err)) return;
      const what = creating ? 'start a terminal' : 'attach to the session';
      this.host.reportError(`Holdfast could not ${what}`, err);
    });
  }

  private async run(): Promise<void> {
    const client = await this.link.get();
    if (this.isClosed) return;
    let role: Role;
    if (this.target.kind === 'new') {
      const session = (this.info = await this.target.create(client, this.size));
      this.host.sessionKnown(this, session);
      if (this.isClosed) return;
      role = 'owner';
    } else {
      // Another window has input: watch until the user types here.
      role = this.input.firstRole(this.target.session.clients.owners);
    }
    await this.attach(client, role);
  }

  /**
   * Attaching failed: a session that no longer exists makes the tab a record (true: nothing more to
   * report); anything else is said in the tab.
   */
  private attachFailed(action: string, err: unknown): boolean {
    if (err instanceof SupersededAttach) return true;
    if (err instanceof RequestError && err.code === ErrorCode.NoSession) {
      if (this.move(life.sessionGone(this.state, 'sessionRemoved'))) this.out.print(NOTICE.sessionGone);
      return true;
    }
    // Not attaching any more: the connection dropped meanwhile (reconnecting) or the tab closed.
    if (!this.move(life.attachFailed(this.state))) return true;
    this.out.print(`${failureNotice(action, err)} (type a key to try again)`);
    return false;
  }

  private async attach(client: HoldfastClient, role: Role, notice?: string): Promise<void> {
    const id = this.info!.id;
    const attempt = ++this.attempt;
    this.out.expectSnapshot();
    try {
      const size = role === 'owner' ? this.size : undefined;
      // Not on screen: nothing is sent until it is (capability `view`), then the screen and the scrollback.
      this.view.set(this.host.isShown?.(this) ?? true);
      const view = this.view.attachView(client);
      const attachment = await client
        .attach(
          // The screen shows at once; the scrollback follows in a second snapshot, for a hidden tab
          // (no size yet) once it is shown: ten restored tabs do not all parse their history at load.
          { session: id, role, cols: size?.cols, rows: size?.rows, screenFirst: true, historyLater: !this.size, view },
          {
            onSnapshot: (bytes, why) => this.out.snapshot(bytes, why),
            onOutput: (bytes) => this.out.output(bytes),
            onEvent: (event) => this.onEvent(event),
          },
        )
        .catch((err: unknown) => {
          throw attempt === this.attempt ? err : new SupersededAttach();
        });
      if (this.superseded(attempt)) {
        void attachment.detach().catch(() => undefined);
        if (this.isClosed) return;
        throw new SupersededAttach();
      }
      const session = this.checked(attachment.session);
      if (!session) {
        void attachment.detach().catch(() => undefined);
        throw new Error(`${this.remoteHost} sent a session that does not fit`);
      }
      this.attachment = attachment;
      this.view.landed(client, attachment, view);
      this.historyPending = !this.size && !view; // attached hidden: the daemon sends the history when shown
      this.requestHistoryIfShown();
      this.input.attachedAs(role);
      this.update(session);
      this.landed(session);
      if (role === 'watcher') {
        this.out.printAfterSnapshot(NOTICE.watching);
        this.fitToSession();
      } else {
        this.tookInput(session);
        // The size may have changed while attaching.
        const { cols, rows } = session;
        if (this.size && this.state.kind === 'live' && (this.size.cols !== cols || this.size.rows !== rows))
          this.resize(attachment, this.size);
      }
      if (notice) this.out.printAfterSnapshot(notice);
      if (this.state.kind === 'live') this.input.release();
    } finally {
      if (attempt === this.attempt) this.out.attachSettled();
    }
  }

  /** Sends the tab's size; a refusal (e.g. a size the daemon does not allow) is a line in the log. */
  private resize(attachment: Attachment, size: Size): void {
    attachment
      .resize(size.cols, size.rows)
      .catch((err) =>
        this.host.warn(`resizing ${this.info?.id} to ${size.cols}x${size.rows}: ${(err as Error).message}`),
      );
  }

  /** Closed, or another attach (on a new connection) took this one's place. */
  private superseded(attempt: number): boolean {
    return this.isClosed || attempt !== this.attempt || this.state.kind !== 'attaching';
  }

  /**
   * The tab is attached: it shows the session in its real state. Every attach (first, after a
   * reload, after a reconnect) starts from a snapshot that resets the screen, so an ended
   * session's notice is printed after each one: a restored tab must not look alive.
   */
  private landed(session: SessionInfo): void {
    const archived = archiveAction(session);
    if (!this.move(life.attached(this.state, { state: session.state, exit: session.exit, archived }))) return;
    if (this.state.kind === 'archived') this.out.printAfterSnapshot(archivedNotice(this.state.action, session));
    else if (this.state.kind === 'exited') this.out.printAfterSnapshot(exitNotice(this.state.exit));
  }

  /** The tab fell behind its session's output: the daemon redraws it, or a full snapshot replaces what it dropped. */
  private resync(): boolean {
    const attachment = this.attachment;
    if (!attachment) return false;
    this.historyPending = false;
    const failed = () => {
      if (this.attachment === attachment) this.out.resyncFailed(); // else the next attach brings a snapshot
    };
    if (!this.view.redraw(failed)) attachment.requestHistory().catch(failed);
    return true;
  }

  /** A tab attached while hidden gets its scrollback once VS Code lays it out (it has a size then). */
  private requestHistoryIfShown(): void {
    if (!this.historyPending || !this.size || !this.attachment) return;
    this.historyPending = false;
    const attachment = this.attachment;
    attachment.requestHistory().catch((err) => {
      // Detached or reconnecting meanwhile: the next attach brings the history with it.
      if (this.attachment === attachment) this.out.print(failureNotice('loading the scrollback', err));
    });
  }

  /** An event of the tab's channel or session: a host's is checked first (src/link/remoteSessions.ts). */
  private onEvent(raw: DaemonEvent): void {
    const event = this.remoteHost === undefined ? raw : remoteTabEvent(raw);
    if (!event) return;
    const id = this.info?.id;
    switch (event.type) {
      case 'role':
        this.input.roleChanged(event.role);
        return;
      case 'exit':
        if (event.id !== id) return;
        // While attaching, the notice comes when the attach lands (see landed).
        if (this.move(life.processExited(this.state, event.exit)) && this.state.kind === 'exited')
          this.out.printAfterSnapshot(exitNotice(event.exit));
        return;
      case 'session': {
        const session = event.session;
        if (session.id !== id) return;
        this.update(session);
        this.input.sessionChanged(session.clients.owners);
        return;
      }
      case 'removed':
        // A new run taking this session's place removes the old one: the tab stays for it.
        if (event.id !== id || this.state.kind === 'replacing') return;
        this.host.sessionRemoved(this);
        this.closeTab('removed');
        return;
      default:
        return;
    }
  }

  /** A session info as the tab may use it: a host's is checked first (src/link/remoteSessions.ts). */
  private checked(session: SessionInfo): SessionInfo | undefined {
    return this.remoteHost === undefined ? session : remoteSessionInfo(session);
  }

  /** This tab has input now: its own size applies, and the session's `code` hook points to this window. */
  private tookInput(session: SessionInfo): void {
    this.update(session);
    this.dimensionsEmitter.fire(undefined);
    this.host.becameOwner(this, session);
  }

  private update(session: SessionInfo): void {
    const renamed = this.info !== undefined && this.info.name !== session.name;
    this.info = session;
    if (renamed) this.nameEmitter.fire(this.tabName(session.name));
  }

  /** A watcher shows the session at the owner's size (VS Code only honours it when smaller than the tab). */
  private fitToSession(): void {
    if (this.info && this.info.cols > 0 && this.info.rows > 0)
      this.dimensionsEmitter.fire({ columns: this.info.cols, rows: this.info.rows });
  }

  private dropAttachment(): void {
    const attachment = this.attachment;
    this.attachment = undefined;
    this.view.detached();
    void attachment?.detach().catch(() => undefined); // no longer shown: a failed detach changes nothing
  }
}

/** An attach that a later one replaced (its connection dropped meanwhile): its result is not this tab's. */
class SupersededAttach extends Error {}
