// A session's emulator as the main thread sees it: the emulator itself runs in a worker thread
// (emulatorWorkers.ts, emulatorHost.ts). Writes go there; what the session reads at once (parsed
// count, title, synchronized update, scrollback) is mirrored from the worker's events; snapshots and
// text are asked for and answered with the chunk they were taken at. The chunks written and not yet
// parsed stay here: a snapshot is followed by them, and a replaced worker gets them again.
import { DisposableStore, Emitter, type IDisposable } from '../../base/disposable';
import { ErrorCode } from '../../protocol/messages';
import { DaemonError } from '../daemonError';
import type { EmulatorOptions } from '../emulator/emulator';
import { EmulatorRebuild, type RebuildScreen } from './emulatorRebuild';
import type {
  AttentionSignal,
  EmulatorEvents,
  EmulatorNote,
  EmulatorRead,
  OpenEmulator,
  ReadResult,
  ToSession,
} from '../common/emulatorProtocol';
import type { EmulatorLink, EmulatorThread, EmulatorWorkers } from '../emulatorWorkers';
import type { IdleCollector } from '../common/idleCollector';

export type SnapshotResult = Extract<ReadResult, { kind: 'snapshot' }>;
export type ShellNotes = Extract<EmulatorNote, { kind: 'shell' | 'commandEnd' }>;
type Answer = Extract<ToSession, { kind: 'answer' }>;

interface PendingRead {
  read: EmulatorRead;
  done(answer: Answer): void;
}

export class SessionEmulator implements IDisposable, EmulatorLink {
  readonly id: number;
  private readonly thread: EmulatorThread;
  private readonly collector: IdleCollector;
  /** Bytes written up to the last compaction: the main thread's share of the garbage counts from there. */
  private compactedBytes = 0;
  /** Went quiet with output still to parse: the collection waits until its chunks are let go. */
  private collectOnceParsed = false;
  /** Chunks written and not parsed yet (oldest first): what a snapshot taken now does not contain. */
  readonly unparsed: Buffer[] = [];
  private writtenBytes = 0;
  private parsedBytes = 0;
  private parsedChunks = 0;
  private synchronizedUpdate = false;
  private scrollbackAbove = false;
  private alternateLines = 0;
  private titleText = '';
  private answering = true;
  private readonly options: EmulatorOptions;
  private readonly reads = new Map<number, PendingRead>();
  private nextRequest = 1;
  /** Bumped at each rebuild: a snapshot cached before one no longer shows the emulator. */
  private generation = 0;
  /** The last screen a worker rendered and the output parsed since: a dead worker's sessions are rebuilt from it. */
  private readonly rebuild: EmulatorRebuild;
  private askedForScreen = false;
  /** Why the session has no screen: its thread was given up (it could not start). */
  private unavailableWhy: string | undefined;
  /** The parsed count at the last rebuild: a worker dying again with no progress skips what it was parsing. */
  private rebuiltAt = -1;
  private disposed = false;
  private readonly emitters = new DisposableStore();
  private readonly onParsedEmitter = this.emitters.add(new Emitter<void>());
  /** Chunks were parsed (`unparsed` got shorter). */
  readonly onParsed = this.onParsedEmitter.event;
  private readonly onReplyEmitter = this.emitters.add(new Emitter<string>());
  readonly onReply = this.onReplyEmitter.event;
  private readonly onTitleEmitter = this.emitters.add(new Emitter<string>());
  readonly onTitle = this.onTitleEmitter.event;
  private readonly onSignalEmitter = this.emitters.add(new Emitter<AttentionSignal>());
  /** A bell, a prompt mark, its agent's permission prompt or its end: what its attention is made of. */
  readonly onSignal = this.onSignalEmitter.event;
  private readonly onCwdEmitter = this.emitters.add(new Emitter<string>());
  readonly onCwd = this.onCwdEmitter.event;
  private readonly onShellEmitter = this.emitters.add(new Emitter<ShellNotes>());
  /** What its shell's marks say: its state, a command's end (sessionShell.ts). */
  readonly onShell = this.onShellEmitter.event;
  private readonly onErrorEmitter = this.emitters.add(new Emitter<Error>());
  /** The emulator threw while parsing and carried on, or its worker was replaced. */
  readonly onError = this.onErrorEmitter.event;

  /** `base`: a screen to start from, parsed silently (a previous daemon's, with its title). */
  constructor(workers: EmulatorWorkers, options: EmulatorOptions, base?: { screen: RebuildScreen; title: string }) {
    this.id = workers.newId();
    this.options = { ...options };
    this.rebuild = new EmulatorRebuild(options.cols, options.rows);
    this.thread = workers.assign();
    this.collector = workers.collector;
    this.thread.add(this);
    if (base) {
      this.rebuild.rendered(base.screen);
      this.titleText = base.title;
      this.scrollbackAbove = true; // until the worker says: a full snapshot is never wrong
    }
    this.thread.send(this.openMessage(base?.screen));
  }

  private openMessage(base?: OpenEmulator['base']): OpenEmulator {
    const open = { kind: 'open' as const, id: this.id, options: this.options, parsed: this.parsedChunks };
    return { ...open, answerQueries: this.answering, ...(base ? { base } : {}) };
  }

  write(chunk: Buffer): void {
    this.writtenBytes += chunk.length;
    // Without a screen, output only goes to the clients: none waits to be parsed (the PTY reads on).
    if (this.unavailableWhy) return this.skipped([chunk]);
    this.unparsed.push(chunk);
    this.thread.write(this.id, chunk);
  }

  /** Why the session has no screen (its emulator worker could not start), else undefined. */
  get screenUnavailable(): string | undefined {
    return this.unavailableWhy;
  }
  get awaiting(): boolean {
    return this.backlog > 0 || this.reads.size > 0;
  }
  unavailable(why: string): void {
    if (this.disposed || this.unavailableWhy) return;
    this.unavailableWhy = why;
    this.failReads(`the screen is unavailable: ${why}`, true);
    this.skipped(this.unparsed.splice(0));
    this.onErrorEmitter.fire(new Error(`${why}: the session's screen is unavailable; its output still flows`));
  }

  /** Chunks counted as parsed without a parse. */
  private skipped(chunks: Buffer[]): void {
    for (const chunk of chunks) {
      this.parsedBytes += chunk.length;
      this.parsedChunks++;
    }
    if (chunks.length > 0) this.onParsedEmitter.fire();
  }

  /** Bytes written but not parsed yet. */
  get backlog(): number {
    return this.writtenBytes - this.parsedBytes;
  }
  get title(): string {
    return this.titleText;
  }
  get inSynchronizedUpdate(): boolean {
    return this.synchronizedUpdate;
  }
  /** Lines above the normal screen, in xterm or in the store. */
  get hasScrollback(): boolean {
    return this.scrollbackAbove;
  }
  /** Lines at the start of `lines(Infinity)` that scrolled off the alternate screen, their markers included. */
  get alternateLength(): number {
    return this.alternateLines;
  }

  /** When false, an attached input owner's terminal answers queries instead of the emulator. */
  set answerQueries(on: boolean) {
    if (on === this.answering) return;
    this.answering = on;
    this.thread.send({ kind: 'answerQueries', id: this.id, on });
  }

  resize(cols: number, rows: number): void {
    this.options.cols = cols;
    this.options.rows = rows;
    this.thread.send({ kind: 'resize', id: this.id, cols, rows });
  }

  set scrollback(lines: number) {
    if (lines === this.options.scrollback) return;
    this.options.scrollback = lines;
    this.thread.send({ kind: 'scrollback', id: this.id, lines });
  }
  /** The agent whose permission prompt the worker watches the screen for (promptWatch.ts), if any. */
  set promptProfile(profile: string | undefined) {
    if (profile === this.options.promptProfile) return;
    this.options.promptProfile = profile;
    this.thread.send({ kind: 'promptProfile', id: this.id, profile });
  }

  /** Moves old scrollback into the compact history store once the worker has parsed everything. */
  compactHistory(): void {
    this.thread.send({ kind: 'compact', id: this.id });
    this.collector.worked(this.writtenBytes - this.compactedBytes);
    this.compactedBytes = this.writtenBytes;
    this.collectOnceParsed = this.backlog > 0;
    if (!this.collectOnceParsed) this.collector.quiet();
  }

  /**
   * A snapshot at an exact cut point, answered from this thread's message handler: when `done` runs,
   * `unparsed` holds exactly the chunks after it. A cached view's key in `have` spares its rendering.
   */
  snapshot(
    read: Omit<Extract<EmulatorRead, { kind: 'snapshot' }>, 'kind'>,
    done: (result: SnapshotResult | undefined) => void,
  ): void {
    const prefix = `${this.generation}/`;
    const have: typeof read.have = {};
    for (const [view, key] of Object.entries(read.have))
      if (key?.startsWith(prefix)) have[view as keyof typeof have] = key.slice(prefix.length);
    this.ask({ kind: 'snapshot', views: read.views, have, syncDeadline: read.syncDeadline }, (answer) => {
      const result = answer.result;
      if (result?.kind !== 'snapshot') {
        if (!this.unavailableWhy)
          this.onErrorEmitter.fire(new Error(`a snapshot failed: ${answer.error ?? 'no snapshot in the answer'}`));
        return done(undefined);
      }
      const rendered = result.views.full ?? result.views.screen;
      if (rendered) this.rebuild.rendered({ vt: rendered, cols: result.cols, rows: result.rows });
      done({ ...result, key: prefix + result.key });
    });
  }

  /** Plain text of the active buffer: the screen's rows, or the last `scrollback` logical lines and the screen's. */
  lines = (scrollback = 0) => this.read({ kind: 'lines', scrollback });

  /** The active buffer's text, copied for a reader on another thread (search, text waits). */
  textCopy = (history: boolean) => this.read({ kind: 'textCopy', history }).then((result) => result.copy);

  /** Any read but a snapshot, answered as far as parsing has got. */
  read<K extends Exclude<EmulatorRead['kind'], 'snapshot'>>(
    read: Extract<EmulatorRead, { kind: K }>,
  ): Promise<Extract<ReadResult, { kind: K }>> {
    return new Promise((resolve, reject) => {
      if (this.disposed) return reject(new DaemonError(ErrorCode.NoSession, 'the session was removed'));
      const kind = (read as EmulatorRead).kind;
      this.ask(read, ({ result, error }) => {
        if (result?.kind === kind) return resolve(result as Extract<ReadResult, { kind: K }>);
        const why = error ?? `a ${result?.kind} answer to a ${kind} read`;
        reject(new DaemonError(this.disposed ? ErrorCode.NoSession : ErrorCode.Internal, why));
      });
    });
  }

  /** `run` waits on the session: its worker tells each command's end with its output. */
  set captureOutput(on: boolean) {
    this.thread.send({ kind: 'captureOutput', id: this.id, on });
  }

  private ask(read: EmulatorRead, done: (answer: Answer) => void): void {
    if (this.disposed) return;
    const request = this.nextRequest++;
    const error = this.unavailableWhy && `the screen is unavailable: ${this.unavailableWhy}`;
    if (error) return done({ kind: 'answer', id: this.id, request, parsed: this.parsedChunks, error });
    this.reads.set(request, { read, done });
    this.thread.send({ kind: 'read', id: this.id, request, read });
  }

  receive(message: ToSession): void {
    if (this.disposed) return;
    if (message.kind === 'events') {
      for (const events of message.sessions) this.apply(events);
      return;
    }
    if (this.advance(message.parsed)) this.onParsedEmitter.fire();
    const pending = this.reads.get(message.request);
    this.reads.delete(message.request);
    pending?.done(message);
  }

  private apply(events: EmulatorEvents): void {
    for (const note of events.notes) this.noted(note);
    const state = events.state;
    this.synchronizedUpdate = state.synchronizedUpdate;
    this.scrollbackAbove = state.hasScrollback;
    this.alternateLines = state.alternateLength;
    if (this.advance(state.parsed)) this.onParsedEmitter.fire();
  }

  private noted(note: EmulatorNote): void {
    switch (note.kind) {
      case 'reply':
        return this.onReplyEmitter.fire(note.data);
      case 'title':
        this.titleText = note.title;
        return this.onTitleEmitter.fire(note.title);
      case 'bell':
      case 'mark':
      case 'permissionPrompt':
        return this.onSignalEmitter.fire(note);
      case 'cwd':
        return this.onCwdEmitter.fire(note.cwd);
      case 'shell':
      case 'commandEnd':
        return this.onShellEmitter.fire(note);
      case 'error':
        return this.onErrorEmitter.fire(new Error(note.message));
    }
  }

  /** The worker has parsed `parsed` chunks: they leave `unparsed`. False when that is no news. */
  private advance(parsed: number): boolean {
    const count = parsed - this.parsedChunks;
    if (count <= 0) return false;
    const chunks = this.unparsed.splice(0, count);
    for (const chunk of chunks) this.parsedBytes += chunk.length;
    this.parsedChunks = parsed;
    if (this.rebuild.parsed(chunks) && !this.askedForScreen) this.renderScreenForRebuild();
    if (this.collectOnceParsed && this.backlog === 0) {
      this.collectOnceParsed = false;
      this.collector.quiet();
    }
    return true;
  }

  /** A fresh screen to rebuild from, so that the output kept since the last one stays bounded. */
  private renderScreenForRebuild(): void {
    this.askedForScreen = true;
    this.snapshot({ views: ['screen'], have: {}, syncDeadline: 0 }, () => (this.askedForScreen = false));
  }

  reopen(why: string, ran: boolean): void {
    if (this.disposed) return;
    this.generation++;
    if (ran && this.rebuiltAt === this.parsedChunks && this.unparsed.length > 0) {
      // The worker died twice on the same chunks: they are skipped (clients got them), not parsed again.
      this.onErrorEmitter.fire(new Error(`${why} twice on the same output: ${this.unparsed.length} chunk(s) skipped`));
      this.skipped(this.unparsed.splice(0));
    }
    const { base, exact } = this.rebuild.source();
    const from = exact ? 'its last screen and the output since' : 'its last screen and the last of the output since';
    // A worker that never started is the thread's to report (once): it gives up after a few.
    if (ran) this.onErrorEmitter.fire(new Error(`${why}: rebuilt from ${from}`));
    this.rebuiltAt = this.parsedChunks;
    this.thread.send(this.openMessage(base));
    for (const chunk of this.unparsed) this.thread.write(this.id, chunk);
    // A cached view's key means nothing to the rebuilt emulator.
    for (const [request, { read }] of this.reads) {
      const again = read.kind === 'snapshot' ? { ...read, have: {} } : read;
      this.thread.send({ kind: 'read', id: this.id, request, read: again });
    }
  }

  /** A read in flight (read, search, a text wait, a checkpoint) fails rather than waiting forever. */
  private failReads(error: string, snapshotsToo: boolean): void {
    const reads = [...this.reads];
    this.reads.clear();
    for (const [request, pending] of reads)
      if (snapshotsToo || pending.read.kind !== 'snapshot')
        pending.done({ kind: 'answer', id: this.id, request, parsed: this.parsedChunks, error });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.thread.remove(this);
    this.failReads('the session was removed', false);
    this.emitters.dispose();
  }
}
