// One terminal session: a program on a PTY, its emulator, its attached clients and its state.
import { DisposableStore, disposeAll, Emitter, type IDisposable } from '../../base/disposable';
import type { AttentionState, ChannelView, DaemonEvent, ExitStatus, SessionInfo } from '../../protocol/messages';
import { agentOf } from '../../protocol/recovery';
import { scrollbackWithinBudget } from '../../protocol/limits';
import { ClientRoles, type Subscriber } from '../clients/clientRoles';
import type { SessionTextCopy } from '../common/sessionText';
import { GroupKill } from '../pty/groupKill';
import { promptProfileOf } from './promptAnswer';
import { SessionActivity } from './sessionActivity';
import type { ProgramProcess } from '../pty/programPty';
import { PtyProcess } from '../pty/ptyProcess';
import { PtyReadGate, type TypingSignal } from '../pty/ptyReadGate';
import { SequenceBoundary } from '../pty/sequenceBoundary';
import { SessionEmulator } from './sessionEmulator';
import type { MarkReplay } from '../emulator/emulator';
import { SessionWaits, type WaitFor } from './sessionWaits';
import { type SnapshotKind, SnapshotQueue } from '../clients/snapshotQueue';
import { WatcherRedraw } from '../clients/watcherRedraw';
import { SessionShell } from './sessionShell';
import type { SessionOptions } from './sessionOptions';

export type { ProgramProcess } from '../pty/programPty';
export type { SessionOptions } from './sessionOptions';

export class Session implements IDisposable {
  readonly id: string;
  name: string;
  metadata: Record<string, unknown>;
  readonly argv: string[];
  readonly createdAt: number;
  readonly roles = new ClientRoles();
  private readonly pty: ProgramProcess;
  private readonly emulator: SessionEmulator;
  private readonly boundary = new SequenceBoundary();
  private readonly disposables = new DisposableStore();
  private readonly snapshots: SnapshotQueue;
  private readonly redraw: WatcherRedraw;
  private readonly waits: SessionWaits;
  private readonly groupKill: GroupKill;
  private readonly reading: PtyReadGate;
  private readonly typing: TypingSignal;
  private parsedAt = 0;
  /** Lines of scrollback asked for; the emulator keeps fewer when the screen is wide (limits.ts). */
  private readonly scrollback: number;
  private cols: number;
  private rows: number;
  private readonly startCwd: string;
  private reportedCwd: string;
  private exitStatus: ExitStatus | null = null;
  readonly hasExited: Promise<void>;
  /** Output bursts, quiet, bells and whether it needs the user. */
  readonly activity: SessionActivity;
  /** Its shell's integration: what the shell reports, and `run`. */
  readonly shell: SessionShell;
  /** The VSCODE_NONCE its shell was started with (handed to a successor, kept by a relaunch). */
  readonly shellNonce: string | undefined;
  private readonly onEventEmitter = new Emitter<DaemonEvent>();
  /** Session-wide events: the server passes them to subscribers of all sessions and to this session's channels. */
  readonly onEvent = this.onEventEmitter.event;

  constructor(options: SessionOptions) {
    this.id = options.id;
    this.name = options.name;
    this.metadata = options.metadata;
    this.argv = options.argv;
    [this.cols, this.rows] = [options.cols, options.rows];
    [this.startCwd, this.reportedCwd] = [options.cwd, options.reportedCwd ?? ''];
    this.createdAt = options.resumed?.createdAt ?? Date.now();
    this.exitAt = options.resumed?.exitAt;
    this.activity = this.disposables.add(
      new SessionActivity(
        {
          id: this.id,
          fire: (event) => this.onEventEmitter.fire(event),
          // Only the 'attention' event: a 'session' event would have the checkpointer write at every burst.
          attentionChanged: () => this.waits.attentionChanged(),
          quiet: () => {
            this.emulator.compactHistory();
            this.waits.check();
          },
        },
        this.createdAt,
      ),
    );
    const { resumed } = options;
    if (resumed) this.activity.restore(resumed.attention, resumed.lastOutputAt, resumed.bellAt);
    this.scrollback = options.scrollback;
    const scrollback = scrollbackWithinBudget(options.scrollback, options.cols);
    const promptProfile = promptProfileOf(options.metadata);
    const { cols, rows, shellNonce } = options;
    this.shellNonce = shellNonce;
    const emulatorOptions = { cols, rows, scrollback, promptProfile, shellNonce };
    this.emulator = this.disposables.add(new SessionEmulator(options.emulators, emulatorOptions, resumed?.base));
    this.shell = this.disposables.add(new SessionShell(this, this.emulator, shellNonce !== undefined));
    this.pty = this.disposables.add(
      options.process ?? new PtyProcess({ ...options, argv: options.launchArgv ?? options.argv }),
    );
    const snapshotFor = (subscriber: Subscriber, kind: SnapshotKind) => this.requestSnapshot(subscriber, kind);
    this.redraw = this.disposables.add(new WatcherRedraw(this.roles, snapshotFor, () => this.emulator.backlog));
    const stream = (subscriber: Subscriber, chunk: Buffer) => this.redraw.send(subscriber, chunk);
    this.snapshots = this.disposables.add(new SnapshotQueue(this.emulator, this.roles, stream, snapshotFor));
    this.waits = this.disposables.add(new SessionWaits(this, this.emulator));
    this.hasExited = new Promise((resolve) => (this.markExited = resolve));
    this.groupKill = this.disposables.add(new GroupKill(this.pty, this.hasExited));
    this.typing = options.typing;
    this.reading = this.disposables.add(new PtyReadGate(this.pty, this.typing));
    this.disposables.add(this.pty.onData((chunk) => this.onProgramOutput(chunk)));
    this.disposables.add(this.pty.onExit((info) => this.onProgramExit(info)));
    this.disposables.add(this.emulator.onParsed(() => this.onChunkParsed()));
    this.disposables.add(this.emulator.onReply((reply) => this.pty.write(reply)));
    this.disposables.add(this.emulator.onTitle(() => this.changed()));
    this.disposables.add(this.emulator.onError((err) => options.onEmulatorError?.(err)));
    this.disposables.add(this.emulator.onError(() => this.emulator.screenUnavailable && this.changed())); // no screen
    this.disposables.add(
      this.emulator.onCwd((cwd) => {
        // A shell reports it at every prompt: a change is news (a checkpoint is written for it), the same is not.
        if (cwd === this.reportedCwd) return;
        this.reportedCwd = cwd;
        this.changed();
      }),
    );
    this.disposables.add(this.emulator.onSignal((signal) => this.activity.signal(signal)));
  }

  get pid(): number {
    return this.pty.pid;
  }

  get attentionState(): AttentionState {
    return this.activity.attentionNow.state;
  }

  get isRunning(): boolean {
    return this.exitStatus === null;
  }

  /** Removed: its program, emulator and clients are gone. */
  get isDisposed(): boolean {
    return this.disposables.isDisposed;
  }

  get lastOutputAt(): number {
    return this.activity.lastOutputAt;
  }

  /** When the emulator's worker last reported output parsed: a screen read before that lacks it. */
  get lastParsedAt(): number {
    return this.parsedAt;
  }

  info(): SessionInfo {
    return {
      id: this.id,
      name: this.name,
      pid: this.pty.pid,
      state: this.exitStatus ? 'exited' : 'running',
      exit: this.exitStatus,
      argv: this.argv,
      cwd: this.reportedCwd || this.startCwd,
      startCwd: this.startCwd,
      cols: this.cols,
      rows: this.rows,
      title: this.emulator.title,
      clients: this.roles.counts(),
      createdAt: this.createdAt,
      lastOutputAt: this.activity.lastOutputAt,
      bellAt: this.activity.bellAt,
      attention: this.activity.attentionNow,
      metadata: this.metadata,
      ...(this.emulator.screenUnavailable ? { screenUnavailable: this.emulator.screenUnavailable } : {}),
      ...(this.shell.state ? { shell: this.shell.state } : {}),
    };
  }

  // --- output path: PTY -> boundary cut -> emulator + live clients -------------------------

  private onProgramOutput(chunk: Buffer): void {
    this.activity.output();
    const piece = this.boundary.cut(chunk);
    if (piece) this.deliver(piece);
  }

  private deliver(piece: Buffer): void {
    this.redraw.output(piece.length);
    this.updateQueryAnswering(); // before each chunk: who is sent it (views, floods, the owner) may have changed
    this.emulator.write(piece);
    this.reading.read(piece.length, this.emulator.backlog, this.redraw.fanOut(piece));
  }

  private onChunkParsed(): void {
    this.parsedAt = Date.now();
    this.reading.parsed(this.emulator.backlog);
    if (this.waits.pending) this.waits.scheduleTextCheck();
    if (this.exitStatus === null && this.pendingExit && this.emulator.backlog === 0) this.finishExit();
  }

  private pendingExit: { code: number | null; signal: string | null } | undefined;
  private readonly exitAt: number | undefined; // for one that had exited under a previous daemon
  private markExited!: () => void;

  private onProgramExit(info: { code: number | null; signal: string | null }): void {
    const rest = this.boundary.flush();
    if (rest) this.deliver(rest);
    this.pendingExit = info;
    // Report the exit only once every byte is parsed, so a reader right after sees the last screen.
    if (this.emulator.backlog === 0) this.finishExit();
  }

  private finishExit(): void {
    const info = this.pendingExit!;
    this.exitStatus = { code: info.code, signal: info.signal, at: this.exitAt ?? Date.now() };
    this.emulator.answerQueries = false;
    this.onEventEmitter.fire({ type: 'exit', id: this.id, exit: this.exitStatus });
    this.changed();
    this.waits.onExit();
    this.markExited();
  }

  // --- clients -----------------------------------------------------------------------------

  /**
   * `screen-first`: the visible screen at once, the scrollback in a second snapshot soon after; `screen-only`:
   * the scrollback when the client asks ('history'); `hidden`: nothing until shown (view), then screen-first.
   */
  attach(
    subscriber: Subscriber,
    size?: { cols: number; rows: number },
    delivery: 'full' | 'screen-first' | 'screen-only' | 'hidden' | 'screens' = 'full',
  ): void {
    this.roles.add(subscriber);
    if (subscriber.role === 'owner' && size) this.resize(size.cols, size.rows);
    if (delivery === 'hidden' || delivery === 'screens') this.view(subscriber, delivery);
    else if (delivery === 'full' || !this.emulator.hasScrollback) this.requestSnapshot(subscriber, 'full');
    else this.requestSnapshot(subscriber, delivery === 'screen-first' ? 'screen' : 'screen-only');
    this.changed();
  }

  /** What `subscriber` is sent (ChannelView); the daemon answers the owner's queries while its terminal is not. */
  view(subscriber: Subscriber, view: ChannelView): void {
    this.redraw.setView(subscriber, view);
  }

  detach(...subscribers: Subscriber[]): void {
    this.roles.remove(...subscribers);
    for (const subscriber of subscribers) this.redraw.forget(subscriber);
    this.snapshots.forget(...subscribers);
    this.updateQueryAnswering();
    this.changed();
  }

  claim(subscriber: Subscriber, size?: { cols: number; rows: number }): void {
    this.roles.claim(subscriber, 'input was taken over by another client');
    if (this.redraw.viewOf(subscriber) === 'screens') this.view(subscriber, 'live'); // an owner gets every byte
    if (size) this.resize(size.cols, size.rows);
    this.changed();
  }

  /** Input from the owner's channel; why it was dropped: not the owner's (watchers never write), or over the limit. */
  input(subscriber: Subscriber, bytes: Buffer): string | undefined {
    if (this.roles.owner !== subscriber)
      return `not the input owner of session ${this.id} (its role: ${subscriber.role})`;
    const refused = this.send(bytes);
    if (refused) return refused;
    this.typing.typed();
    this.snapshots.typed(subscriber);
    return undefined;
  }

  /** Input from a command (`holdfast send`), or the owner's; why it was refused, if it was. */
  send(data: string | Buffer): string | undefined {
    const refused = this.pty.write(data);
    if (!refused) this.activity.input(data);
    return refused;
  }

  /** What the agent's hook said (`holdfast notify`); a conversation id it names is recorded for resume. */
  report(state: AttentionState, conversationId: string | undefined, permission = false): void {
    const agent = agentOf(this.metadata);
    if (conversationId !== undefined && agent && agent.sessionId !== conversationId)
      this.setMetadata({ ...this.metadata, agent: { ...agent, sessionId: conversationId } });
    this.activity.report(state, permission);
  }

  private updateQueryAnswering(): void {
    // While an owner's terminal is sent the stream it sees the queries in it and answers them.
    this.emulator.answerQueries = this.isRunning && !this.redraw.streamsTo(this.roles.owner);
  }

  /** Queues a snapshot for `subscriber` (a hidden one's waits until shown): the stream follows from its cut. */
  requestSnapshot(subscriber: Subscriber, kind: SnapshotKind = 'full'): void {
    if (this.redraw.viewOf(subscriber) === 'hidden') subscriber.stale = true;
    else this.snapshots.request(subscriber, this.redraw.viewOf(subscriber) === 'screens' ? 'screen-only' : kind);
  }

  resize(cols: number, rows: number): void {
    if (cols === this.cols && rows === this.rows) return;
    [this.cols, this.rows] = [cols, rows];
    this.pty.resize(cols, rows);
    this.emulator.resize(cols, rows);
    this.emulator.scrollback = scrollbackWithinBudget(this.scrollback, cols);
    this.changed();
  }

  rename(name: string): void {
    this.name = name;
    this.changed();
  }

  setMetadata(metadata: Record<string, unknown>): void {
    this.metadata = metadata;
    this.emulator.promptProfile = promptProfileOf(metadata);
    this.changed();
  }

  /** For a succession: the program, output held back mid-sequence, the emulator, the scrollback asked. */
  get handover(): { program: ProgramProcess; pending: Buffer; emulator: SessionEmulator; scrollback: number } {
    return { program: this.pty, pending: this.boundary.pending, emulator: this.emulator, scrollback: this.scrollback };
  }

  /** VT bytes rebuilding the screen and up to `scrollback` lines above it (checkpoints: marks unsigned; a handoff). */
  snapshotText = (scrollback?: number, marks: MarkReplay = 'unsigned'): Promise<string> =>
    this.emulator.read({ kind: 'text', scrollback, marks }).then((result) => result.text);
  /** The screen's text and cursor (`scrollback`: the last lines above it first). */
  screen = (scrollback = 0): Promise<{ lines: string[]; cursor: { x: number; y: number } }> =>
    this.emulator.lines(scrollback).then(({ lines, cursor }) => ({ lines, cursor }));
  /** The screen's text (`history`: and everything above it) copied for search and text waits. */
  textCopy = (history: boolean): Promise<SessionTextCopy> => this.emulator.textCopy(history);

  /** Signals the process group, then SIGKILL after `graceMs`; resolves once the leader is reaped, its group empty. */
  kill(signal: NodeJS.Signals = 'SIGHUP', graceMs = 2000): Promise<void> {
    return this.groupKill.kill(signal, graceMs);
  }

  /** Resolves true when the condition holds, false on timeout or removal. */
  wait(condition: WaitFor, timeoutMs: number): Promise<boolean> {
    return this.waits.wait(condition, timeoutMs);
  }

  private changed(): void {
    this.onEventEmitter.fire({ type: 'session', session: this.info() });
  }

  dispose(): void {
    disposeAll([this.disposables, this.onEventEmitter]);
  }
}
