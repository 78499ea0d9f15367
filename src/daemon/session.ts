// One terminal session: a program on a PTY, its emulator, its attached clients and its state.
import { DisposableStore, Emitter, IDisposable, toDisposable } from '../protocol/disposable';
import type { AttentionState, DaemonEvent, ExitStatus, SessionInfo, WaitCondition } from '../protocol/messages';
import { agentOf } from '../protocol/recovery';
import { scrollbackWithinBudget } from '../protocol/limits';
import { compilePattern, TextPattern } from '../protocol/textPattern';
import { Attention } from './attention';
import { ClientRoles, Subscriber } from './clientRoles';
import { Emulator } from './emulator';
import { PtyProcess, PtyOptions } from './ptyProcess';
import { SequenceBoundary } from './sequenceBoundary';
import { SNAPSHOT_PREFIX } from './snapshot';

export enum SessionTiming {
  /** No output for this long: the session is idle. */
  IdleAfterMs = 2000,
  /** A snapshot waits at most this long for a synchronized update (DEC 2026) to end. */
  SyncWaitMs = 1000,
  /** Text waiters re-check the screen at most this often. */
  TextCheckMs = 50,
  /**
   * After a screenFirst attach's screen, the history waits this long: a client that parsed both in
   * one go would show nothing until the whole history was parsed (VS Code's renderer did).
   */
  HistoryAfterScreenMs = 100,
  /** Group-exit polling while a kill is in progress. */
  KillPollMs = 25,
}

/**
 * full: screen, scrollback and modes (attach, resync); screen: the visible screen only, and the
 * history soon after; screen-only: the same without the history; history: the full snapshot that
 * follows a screen snapshot, wrapped in a synchronized update.
 */
type SnapshotKind = 'full' | 'screen' | 'screen-only' | 'history';

const SYNC_START = '\x1b[?2026h';
const SYNC_END = '\x1b[?2026l';

/** Emulator backlog (bytes written but not parsed) at which reading the PTY pauses, and resumes. */
const BACKLOG_PAUSE = 4 * 1024 * 1024;
const BACKLOG_RESUME = 1024 * 1024;

/** What a session needs of its program: a PtyProcess, or an ArchivedProcess (no program, see recovery). */
export type ProgramProcess = Pick<
  PtyProcess,
  'pid' | 'onData' | 'onExit' | 'write' | 'resize' | 'pause' | 'resume' | 'signalGroup' | 'groupAlive' | 'dispose'
>;

export interface SessionOptions extends PtyOptions {
  id: string;
  name: string;
  scrollback: number;
  metadata: Record<string, unknown>;
  onEmulatorError?: (err: Error) => void;
  /** Instead of spawning argv on a PTY. */
  process?: ProgramProcess;
  /** What is spawned, when it is more than argv (an agent's hook options). */
  launchArgv?: string[];
}

interface Waiter {
  condition: WaitCondition;
  pattern?: TextPattern;
  resolve(met: boolean): void;
}

export class Session implements IDisposable {
  readonly id: string;
  name: string;
  metadata: Record<string, unknown>;
  readonly argv: string[];
  readonly createdAt = Date.now();
  readonly roles = new ClientRoles();
  private readonly pty: ProgramProcess;
  private readonly emulator: Emulator;
  private readonly boundary = new SequenceBoundary();
  private readonly disposables = new DisposableStore();
  /** Chunks written to the emulator and not parsed yet: what a snapshot taken now does not contain. */
  private readonly inflight: Buffer[] = [];
  private readonly awaitingSnapshot = new Map<Subscriber, SnapshotKind>();
  private snapshotDeadline = 0;
  private snapshotTimer: NodeJS.Timeout | undefined;
  private snapshotCache: { key: string; bytes: Buffer } | undefined;
  private screenCache: { key: string; bytes: Buffer } | undefined;
  private readonly historyFollowUps = new Set<NodeJS.Timeout>();
  /** Pending kill polls and how to end each (with false). */
  private readonly killPolls = new Map<NodeJS.Timeout, () => void>();
  private ptyPaused = false;
  /** Lines of scrollback asked for; the emulator keeps fewer when the screen is wide (limits.ts). */
  private readonly scrollback: number;
  private cols: number;
  private rows: number;
  private startCwd: string;
  private reportedCwd = '';
  private exitStatus: ExitStatus | null = null;
  private lastOutput = 0;
  private bell = 0;
  private active = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private waiters = new Set<Waiter>();
  private textCheckTimer: NodeJS.Timeout | undefined;
  private readonly exited: Promise<void>;
  /** Whether it needs the user: decided here once, pushed as 'attention' events. */
  private readonly attention = new Attention(this.createdAt, (attention) => {
    this.fire({ type: 'attention', id: this.id, attention });
    this.changed();
  });
  private readonly onEventEmitter = new Emitter<DaemonEvent>();
  /** Session-wide events: the server passes them to subscribers of all sessions and to this session's channels. */
  readonly onEvent = this.onEventEmitter.event;

  constructor(options: SessionOptions) {
    this.id = options.id;
    this.name = options.name;
    this.metadata = options.metadata;
    this.argv = options.argv;
    this.cols = options.cols;
    this.rows = options.rows;
    this.startCwd = options.cwd;
    this.lastOutput = this.createdAt;
    this.scrollback = options.scrollback;
    this.emulator = this.disposables.add(
      new Emulator({
        cols: options.cols,
        rows: options.rows,
        scrollback: scrollbackWithinBudget(options.scrollback, options.cols),
      }),
    );
    this.pty = this.disposables.add(options.process ?? new PtyProcess({ ...options, argv: options.launchArgv ?? options.argv }));
    this.exited = new Promise((resolve) => (this.markExited = resolve));
    this.disposables.add(this.pty.onData((chunk) => this.onProgramOutput(chunk)));
    this.disposables.add(this.pty.onExit((info) => this.onProgramExit(info)));
    this.disposables.add(this.emulator.onParsed(() => this.onChunkParsed()));
    this.disposables.add(this.emulator.onReply((reply) => this.pty.write(reply)));
    this.disposables.add(this.emulator.onTitle(() => this.changed()));
    this.disposables.add(this.emulator.onError((err) => options.onEmulatorError?.(err)));
    this.disposables.add(
      this.emulator.onCwd((cwd) => {
        this.reportedCwd = cwd;
        this.changed();
      }),
    );
    this.disposables.add(
      this.emulator.onBell(() => {
        this.bell = Date.now();
        this.fire({ type: 'bell', id: this.id, at: this.bell });
        this.attention.bell(this.bell);
      }),
    );
    this.disposables.add(this.emulator.onPromptMark((mark) => this.attention.prompt(mark, Date.now())));
    this.disposables.add(
      toDisposable(() => {
        clearTimeout(this.snapshotTimer);
        clearTimeout(this.idleTimer);
        clearTimeout(this.textCheckTimer);
        for (const followUp of this.historyFollowUps) clearTimeout(followUp);
        for (const [poll, end] of this.killPolls) {
          clearTimeout(poll);
          end();
        }
        this.killPolls.clear();
        for (const waiter of this.waiters) waiter.resolve(false);
      }),
    );
  }

  get pid(): number {
    return this.pty.pid;
  }

  get isRunning(): boolean {
    return this.exitStatus === null;
  }

  get lastOutputAt(): number {
    return this.lastOutput;
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
      cols: this.cols,
      rows: this.rows,
      title: this.emulator.title,
      clients: this.roles.counts(),
      createdAt: this.createdAt,
      lastOutputAt: this.lastOutput,
      bellAt: this.bell,
      attention: this.attention.value,
      metadata: this.metadata,
    };
  }

  // --- output path: PTY -> boundary cut -> emulator + live clients -------------------------

  private onProgramOutput(chunk: Buffer): void {
    this.noteOutput();
    const piece = this.boundary.cut(chunk);
    if (piece) this.deliver(piece);
  }

  private deliver(piece: Buffer): void {
    this.emulator.write(piece);
    this.inflight.push(piece);
    for (const subscriber of this.roles.all) if (subscriber.phase === 'live') subscriber.sendOutput(piece);
    if (!this.ptyPaused && this.emulator.backlog > BACKLOG_PAUSE) {
      this.ptyPaused = true;
      this.pty.pause();
    }
  }

  private onChunkParsed(): void {
    this.inflight.shift();
    if (this.ptyPaused && this.emulator.backlog < BACKLOG_RESUME) {
      this.ptyPaused = false;
      this.pty.resume();
    }
    if (this.awaitingSnapshot.size > 0) this.takeSnapshots(true);
    if (this.waiters.size > 0) this.scheduleTextCheck();
    if (this.exitStatus === null && this.pendingExit && this.emulator.backlog === 0) this.finishExit();
  }

  private noteOutput(): void {
    this.lastOutput = Date.now();
    if (!this.active) {
      this.active = true;
      this.fire({ type: 'activity', id: this.id, at: this.lastOutput });
      this.attention.burst(this.lastOutput);
      this.armIdleTimer(SessionTiming.IdleAfterMs);
    }
  }

  /** One timer per quiet spell, not per chunk: when it fires early it re-arms for the rest. */
  private armIdleTimer(ms: number): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      const quiet = Date.now() - this.lastOutput;
      if (quiet < SessionTiming.IdleAfterMs) return this.armIdleTimer(SessionTiming.IdleAfterMs - quiet);
      this.active = false;
      this.idleTimer = undefined;
      if (this.emulator.backlog === 0) this.emulator.compactHistory();
      const now = Date.now();
      this.fire({ type: 'idle', id: this.id, at: now });
      this.attention.quiet(now, this.lastOutput);
      this.checkWaiters();
    }, ms);
  }

  // --- exit --------------------------------------------------------------------------------

  private pendingExit: { code: number | null; signal: string | null } | undefined;
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
    this.exitStatus = { code: info.code, signal: info.signal, at: Date.now() };
    this.emulator.answerQueries = false;
    this.fire({ type: 'exit', id: this.id, exit: this.exitStatus });
    this.changed();
    this.checkWaiters();
    // The screen cannot change any more: text that is not there now never will be.
    for (const waiter of [...this.waiters]) if (waiter.condition.kind === 'text') waiter.resolve(false);
    this.markExited();
  }

  // --- clients -----------------------------------------------------------------------------

  /**
   * `screen-first`: the visible screen at once, the scrollback in a second snapshot soon after;
   * `screen-only`: the scrollback when the client asks (requestSnapshot 'history').
   */
  attach(
    subscriber: Subscriber,
    size?: { cols: number; rows: number },
    delivery: 'full' | 'screen-first' | 'screen-only' = 'full',
  ): void {
    this.roles.add(subscriber);
    if (subscriber.role === 'owner' && size) this.resize(size.cols, size.rows);
    this.updateQueryAnswering();
    if (delivery === 'full' || !this.emulator.hasScrollback) this.requestSnapshot(subscriber, 'full');
    else this.requestSnapshot(subscriber, delivery === 'screen-first' ? 'screen' : 'screen-only');
    this.changed();
  }

  detach(subscriber: Subscriber): void {
    this.roles.remove(subscriber);
    this.awaitingSnapshot.delete(subscriber);
    this.updateQueryAnswering();
    this.changed();
  }

  claim(subscriber: Subscriber, size?: { cols: number; rows: number }): void {
    this.roles.claim(subscriber, 'input was taken over by another client');
    if (size) this.resize(size.cols, size.rows);
    this.updateQueryAnswering();
    this.changed();
  }

  /** Input from the owner's channel; a watcher's input is dropped (watchers never write). */
  input(subscriber: Subscriber, bytes: Buffer): void {
    if (this.roles.owner !== subscriber) return;
    this.pty.write(bytes);
    this.attention.input(Date.now());
  }

  /** Input from a command (`holdfast send`), not from an attached terminal. */
  send(data: string): void {
    this.pty.write(data);
    this.attention.input(Date.now());
  }

  /** What the agent's hook said (`holdfast notify`); a conversation id it names is recorded for resume. */
  report(state: AttentionState, conversationId: string | undefined): void {
    const agent = agentOf(this.metadata);
    if (conversationId !== undefined && agent && agent.sessionId !== conversationId) {
      this.metadata = { ...this.metadata, agent: { ...agent, sessionId: conversationId } };
      this.changed();
    }
    this.attention.report(state, Date.now());
  }

  private updateQueryAnswering(): void {
    // While an owner is attached its terminal sees the queries in the stream and answers them.
    this.emulator.answerQueries = this.isRunning && !this.roles.owner;
  }

  /** Queues a snapshot for `subscriber`; it gets the stream from exactly the snapshot's point on. */
  requestSnapshot(subscriber: Subscriber, kind: SnapshotKind = 'full'): void {
    subscriber.phase = 'pending';
    if (this.awaitingSnapshot.size === 0) this.snapshotDeadline = Date.now() + SessionTiming.SyncWaitMs;
    this.awaitingSnapshot.set(subscriber, kind);
    this.takeSnapshots(false);
  }

  private takeSnapshots(afterParse: boolean): void {
    // Outside a parse callback the emulator is exact only when nothing is waiting to be parsed.
    if (!afterParse && this.emulator.backlog > 0) return;
    if (this.emulator.inSynchronizedUpdate && Date.now() < this.snapshotDeadline) {
      if (!this.snapshotTimer) {
        this.snapshotTimer = setTimeout(() => {
          this.snapshotTimer = undefined;
          this.takeSnapshots(false);
        }, this.snapshotDeadline - Date.now());
      }
      return;
    }
    clearTimeout(this.snapshotTimer);
    this.snapshotTimer = undefined;
    const waiting = [...this.awaitingSnapshot];
    this.awaitingSnapshot.clear();
    for (const [subscriber, kind] of waiting) {
      if (kind === 'history') subscriber.sendEvent({ type: 'history', channel: subscriber.channel });
      subscriber.sendSnapshot(
        kind === 'screen' || kind === 'screen-only'
          ? this.screenSnapshot()
          : kind === 'history'
            ? this.historySnapshot()
            : this.currentSnapshot(),
      );
      for (const chunk of this.inflight) subscriber.sendOutput(chunk);
      subscriber.phase = 'live';
      // The screen is on its way; the history follows once the client had time to show it.
      if (kind === 'screen') this.followWithHistory(subscriber);
    }
  }

  private followWithHistory(subscriber: Subscriber): void {
    const followUp = setTimeout(() => {
      this.historyFollowUps.delete(followUp);
      if (this.roles.all.has(subscriber) && !this.awaitingSnapshot.has(subscriber))
        this.requestSnapshot(subscriber, 'history');
    }, SessionTiming.HistoryAfterScreenMs);
    this.historyFollowUps.add(followUp);
  }

  /** The visible screen with its modes, no scrollback: what a tab needs to be usable. */
  private screenSnapshot(): Buffer {
    const key = `${this.emulator.parsed}:${this.cols}x${this.rows}`;
    if (this.screenCache?.key !== key)
      this.screenCache = { key, bytes: Buffer.from(this.emulator.snapshot(0), 'utf8') };
    return this.screenCache.bytes;
  }

  /**
   * The full snapshot inside a synchronized update (DEC 2026): the receiver keeps showing the
   * screen it has until the rebuilt one is complete, rather than the reset and the history scrolling by.
   */
  private historySnapshot(): Buffer {
    const full = this.currentSnapshot();
    const end = this.emulator.inSynchronizedUpdate ? '' : SYNC_END;
    return Buffer.concat([
      Buffer.from(SNAPSHOT_PREFIX + SYNC_START),
      full.subarray(SNAPSHOT_PREFIX.length),
      Buffer.from(end),
    ]);
  }

  /**
   * The snapshot of the screen as it is now. Serializing a full scrollback costs ~100 ms of CPU,
   * and a window reload re-attaches sessions that have not changed: reuse the last one then.
   */
  private currentSnapshot(): Buffer {
    const key = `${this.emulator.parsed}:${this.cols}x${this.rows}`;
    if (this.snapshotCache?.key !== key)
      this.snapshotCache = { key, bytes: Buffer.from(this.emulator.snapshot(), 'utf8') };
    return this.snapshotCache.bytes;
  }

  // --- control -----------------------------------------------------------------------------

  resize(cols: number, rows: number): void {
    if (cols === this.cols && rows === this.rows) return;
    this.cols = cols;
    this.rows = rows;
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
    this.changed();
  }

  /** VT bytes rebuilding the screen and up to `scrollback` lines above it (checkpoints). */
  snapshotText(scrollback?: number): string {
    return this.emulator.snapshot(scrollback);
  }

  screen(scrollback = 0): { lines: string[]; cursor: { x: number; y: number } } {
    return { lines: this.emulator.lines(scrollback), cursor: this.emulator.cursor() };
  }

  /**
   * Signals the process group, then SIGKILL after `graceMs`; resolves once the leader is reaped
   * and nothing of its group is left.
   */
  async kill(signal: NodeJS.Signals = 'SIGHUP', graceMs = 2000): Promise<void> {
    if (!this.pty.groupAlive) return this.exited;
    this.pty.signalGroup(signal);
    if (!(await this.until(() => !this.pty.groupAlive, graceMs))) {
      this.pty.signalGroup('SIGKILL');
      await this.until(() => !this.pty.groupAlive, 5000);
    }
    await this.exited;
  }

  /** Polls `done` until it holds (true) or `ms` pass (false); disposing the session ends the poll (false). */
  private until(done: () => boolean, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    return new Promise((resolve) => {
      const check = () => {
        if (done()) resolve(true);
        else if (Date.now() >= deadline || this.disposables.isDisposed) resolve(false);
        else {
          const timer = setTimeout(() => {
            this.killPolls.delete(timer);
            check();
          }, SessionTiming.KillPollMs);
          this.killPolls.set(timer, () => resolve(false));
        }
      };
      check();
    });
  }

  /** Resolves true when the condition holds, false on timeout or removal. */
  wait(condition: WaitCondition, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter: Waiter = {
        condition,
        pattern: condition.kind === 'text' ? compilePattern(condition.pattern, condition.flags) : undefined,
        resolve: (met) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(met);
        },
      };
      if (this.isMet(waiter)) return resolve(true);
      this.waiters.add(waiter);
      timer = setTimeout(() => waiter.resolve(false), timeoutMs);
      if (condition.kind === 'idle') this.armIdleWait(waiter);
    });
  }

  private armIdleWait(waiter: Waiter): void {
    if (waiter.condition.kind !== 'idle') return;
    const remaining = waiter.condition.ms - (Date.now() - this.lastOutput);
    const handle = setTimeout(
      () => {
        if (!this.waiters.has(waiter)) return;
        if (this.isMet(waiter)) waiter.resolve(true);
        else this.armIdleWait(waiter);
      },
      Math.max(remaining, 10),
    );
    const resolve = waiter.resolve;
    waiter.resolve = (met) => {
      clearTimeout(handle);
      resolve(met);
    };
  }

  private isMet(waiter: Waiter): boolean {
    switch (waiter.condition.kind) {
      case 'exit':
        return this.exitStatus !== null;
      case 'idle':
        return this.emulator.backlog === 0 && Date.now() - this.lastOutput >= waiter.condition.ms;
      case 'text': {
        const lines = this.emulator.lines(waiter.condition.history ? Infinity : 0);
        return lines.some((line) => waiter.pattern!.test(line));
      }
    }
  }

  private checkWaiters(): void {
    for (const waiter of [...this.waiters]) if (this.isMet(waiter)) waiter.resolve(true);
  }

  private scheduleTextCheck(): void {
    if (this.textCheckTimer) return;
    this.textCheckTimer = setTimeout(() => {
      this.textCheckTimer = undefined;
      this.checkWaiters();
    }, SessionTiming.TextCheckMs);
  }

  private changed(): void {
    this.fire({ type: 'session', session: this.info() });
  }

  private fire(event: DaemonEvent): void {
    this.onEventEmitter.fire(event);
  }

  get hasExited(): Promise<void> {
    return this.exited;
  }

  dispose(): void {
    this.disposables.dispose();
    this.onEventEmitter.dispose();
  }
}
