// The emulators of one worker thread (emulatorWorker.ts is its entry): parses each session's chunks,
// counts them, and answers reads tagged with the chunk they were taken at. A snapshot waits for an
// exact cut point (nothing left to parse, or right after a chunk's parse) as snapshotQueue.ts needs.
// What parsing says goes back in one batch per turn of the thread's loop, with what an agent's screen
// shows once quiet: its permission prompt (promptWatch.ts).
import type { ScreenPrompt } from '../sessions/attention';
import { ToldNotes } from './toldNotes';
import { Emulator } from './emulator';
import type {
  EmulatorEvents,
  EmulatorNote,
  EmulatorRead,
  FromWorker,
  OpenEmulator,
  ReadResult,
  SnapshotView,
  ToWorker,
  ToWorkerBatch,
} from '../common/emulatorProtocol';
import { IdleCollector } from '../common/idleCollector';
import { PromptWatch } from './promptWatch';

export type Post = (message: FromWorker, transfer?: ArrayBuffer[]) => void;
type SnapshotRead = Extract<EmulatorRead, { kind: 'snapshot' }>;

const encoder = new TextEncoder();

class HostedEmulator {
  readonly emulator: Emulator;
  parsed: number;
  notes: EmulatorNote[] = [];
  /** Chunks of the base screen left to parse: what they say is not reported, they are not counted. */
  private baseChunks = 0;
  private readonly told = new ToldNotes();
  private answerQueries: boolean;
  /** The size to take once the base screen is parsed (it was rendered at its own size). */
  private sizeAfterBase: { cols: number; rows: number } | undefined;
  /** Snapshots asked for and not taken yet (a client's, and the rebuild's own screen). */
  private snapshots: { request: number; read: SnapshotRead }[] = [];
  /**
   * Reads asked for while the base screen is parsed (the screen is blank), or after a skip of plain
   * text before the screen is exact again (it mixes old rows and new): answered at the next cut.
   */
  private afterCut: (() => void)[] = [];
  /** Asked to compact while output waited to be parsed: done once it is. */
  private compactPending = false;
  /** Only for a session whose agent has a known permission prompt. */
  private promptWatch: PromptWatch | undefined;

  private syncTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly id: number,
    open: OpenEmulator,
    private readonly host: EmulatorHost,
  ) {
    this.parsed = open.parsed;
    this.answerQueries = open.answerQueries;
    const base = open.base;
    this.emulator = new Emulator(base ? { ...open.options, cols: base.cols, rows: base.rows } : open.options);
    const emulator = this.emulator;
    emulator.answerQueries = !base && open.answerQueries;
    emulator.onParsed((count) => this.chunksParsed(count));
    emulator.onReply((data) => this.note({ kind: 'reply', data }));
    emulator.onTitle((title) => this.note({ kind: 'title', title }));
    emulator.onBell(() => this.note({ kind: 'bell' }));
    emulator.onPromptMark((mark) => this.note({ kind: 'mark', mark }));
    emulator.onCwd((cwd) => this.note({ kind: 'cwd', cwd }));
    emulator.shell.onNote((note) => this.note(note));
    emulator.onError((err) => this.note({ kind: 'error', message: err.stack ?? err.message }));
    this.watchPrompts(open.options.promptProfile);
    if (base) {
      this.baseChunks = 1;
      // The base screen's chunk is reported alone: its size and answers change once it is parsed.
      emulator.skipsPlainText = false;
      this.sizeAfterBase = { cols: open.options.cols, rows: open.options.rows };
      emulator.write(base.vt);
    }
  }

  note(note: EmulatorNote): void {
    if (this.baseChunks > 0 || this.told.repeats(note)) return;
    // A flood of bells is one: the session reports at most one per quiet period anyway.
    if (note.kind === 'bell' && this.notes[this.notes.length - 1]?.kind === 'bell') return;
    this.notes.push(note);
    this.host.changed(this);
  }

  private chunksParsed(count: number): void {
    if (this.baseChunks > 0) {
      if (--this.baseChunks > 0) return;
      this.emulator.answerQueries = this.answerQueries;
      this.emulator.skipsPlainText = true;
      const size = this.sizeAfterBase!;
      this.sizeAfterBase = undefined;
      this.resize(size.cols, size.rows);
      this.promptWatch?.changed();
      // What the base's marks said was not told (its notes are not): the shell's state as they left it.
      this.emulator.shell.tellState();
      for (const answer of this.afterCut.splice(0)) answer();
      // A snapshot asked for while the base was parsed waits for a cut: this is one (no chunk parsed yet).
      if (this.snapshots.length > 0) this.takeSnapshots(true);
      return;
    }
    this.parsed += count;
    this.host.changed(this);
    for (const answer of this.afterCut.splice(0)) answer();
    this.promptWatch?.changed();
    if (this.snapshots.length > 0) this.takeSnapshots(true);
    if (this.compactPending && this.emulator.backlog === 0) this.compact();
  }

  events(): EmulatorEvents {
    const emulator = this.emulator;
    const notes = this.notes;
    this.notes = [];
    return {
      id: this.id,
      notes,
      state: {
        parsed: this.parsed,
        synchronizedUpdate: emulator.inSynchronizedUpdate,
        hasScrollback: emulator.hasScrollback,
        alternateLength: emulator.alternateLength,
      },
    };
  }

  /** Watches the screen for `profile`'s permission prompt; undefined: for none. */
  watchPrompts(profile: string | undefined): void {
    this.promptWatch?.dispose();
    const tell = (prompt?: ScreenPrompt) => this.note({ kind: 'permissionPrompt', ...(prompt ? { prompt } : {}) });
    this.promptWatch = profile === undefined ? undefined : new PromptWatch(profile, this.emulator, tell);
    this.promptWatch?.changed();
  }

  setAnswerQueries(on: boolean): void {
    this.answerQueries = on;
    if (this.baseChunks === 0) this.emulator.answerQueries = on;
  }

  resize(cols: number, rows: number): void {
    if (this.sizeAfterBase) {
      this.sizeAfterBase = { cols, rows };
      return;
    }
    this.emulator.resize(cols, rows);
    this.host.changed(this);
    this.promptWatch?.changed();
  }

  /** Now, or once everything written is parsed (compaction needs an empty backlog). */
  compact(): void {
    this.compactPending = this.emulator.backlog > 0;
    if (!this.compactPending) this.host.compacted(this.emulator.compactHistory());
  }

  /**
   * A snapshot at the next exact cut; anything else now, as far as parsing has got (waiting for a flood's
   * backlog would hold a checkpoint or a `read` for seconds), or at the next cut when the screen is not
   * exact (afterCut).
   */
  read(request: number, read: EmulatorRead): void {
    if (read.kind === 'snapshot') {
      this.snapshots.push({ request, read });
      this.takeSnapshots(false);
    } else if (this.baseChunks > 0 || !this.emulator.exact) this.afterCut.push(() => this.answerRead(request, read));
    else this.answerRead(request, read);
  }

  /** Answered with what it found, or the error. */
  private answerRead(request: number, read: Exclude<EmulatorRead, SnapshotRead>): void {
    let result: ReadResult;
    try {
      result = this.readNow(read);
    } catch (err) {
      return this.host.failed(this, request, (err as Error).message);
    }
    this.host.answer(this, request, result);
  }

  private readNow(read: Exclude<EmulatorRead, SnapshotRead>): ReadResult {
    const emulator = this.emulator;
    switch (read.kind) {
      case 'text': {
        const { cols, rows } = emulator.terminal;
        return { kind: 'text', text: emulator.snapshot(read.scrollback, read.marks), cols, rows };
      }
      case 'prompt':
        return { kind: 'prompt', ready: emulator.shell.ready, typed: emulator.shell.typedInput() };
      case 'commandOutput':
        return { kind: 'commandOutput', output: emulator.shell.output() };
      case 'lines':
        return { kind: 'lines', lines: emulator.lines(read.scrollback), cursor: emulator.cursor() };
      case 'textCopy':
        return { kind: 'textCopy', copy: emulator.textCopy(read.history) };
    }
  }

  /**
   * The pending snapshots that may be taken now: only at an exact cut (`afterParse`: from a chunk's
   * parse callback), and not inside a synchronized update before the request's deadline.
   */
  private takeSnapshots(afterParse: boolean): void {
    const emulator = this.emulator;
    if (!afterParse && emulator.backlog > 0) return;
    const now = Date.now();
    const synchronizedUpdate = emulator.inSynchronizedUpdate;
    const ready = this.snapshots.filter((s) => !synchronizedUpdate || s.read.syncDeadline <= now);
    this.snapshots = this.snapshots.filter((s) => !ready.includes(s));
    clearTimeout(this.syncTimer);
    this.syncTimer = undefined;
    if (this.snapshots.length > 0) {
      const deadline = Math.min(...this.snapshots.map((s) => s.read.syncDeadline));
      this.syncTimer = setTimeout(() => {
        this.syncTimer = undefined;
        if (this.snapshots.length > 0) this.takeSnapshots(false);
      }, deadline - now);
    }
    const { cols, rows } = emulator.terminal;
    const key = `${this.parsed}:${cols}x${rows}`;
    const rendered = new Map<SnapshotView, Uint8Array>();
    for (const { request, read } of ready) {
      const views: Partial<Record<SnapshotView, Uint8Array>> = {};
      try {
        for (const view of read.views) {
          if (read.have[view] === key) continue;
          // A full view replays the shell's marks; a screen view does not (the full view after it would repeat them).
          const bytes =
            rendered.get(view) ??
            encoder.encode(view === 'screen' ? emulator.snapshot(0) : emulator.snapshot(undefined, 'signed'));
          rendered.set(view, bytes);
          // Each answer transfers its own buffer.
          views[view] = ready.length > 1 ? bytes.slice() : bytes;
        }
      } catch (err) {
        this.host.failed(this, request, (err as Error).message);
        continue;
      }
      this.host.answer(this, request, { kind: 'snapshot', key, cols, rows, synchronizedUpdate, views });
    }
  }

  dispose(): void {
    clearTimeout(this.syncTimer);
    this.promptWatch?.dispose();
    this.emulator.dispose();
  }
}

export class EmulatorHost {
  private readonly emulators = new Map<number, HostedEmulator>();
  private readonly dirty = new Set<HostedEmulator>();
  private flushing: NodeJS.Immediate | undefined;
  /** This thread's heap after a session's burst: collected when it goes quiet (compacts). */
  private readonly collector = new IdleCollector();

  constructor(private readonly post: Post) {}

  handle(batch: ToWorkerBatch): void {
    for (const message of batch.messages) {
      try {
        this.handleOne(message, batch.data);
      } catch (err) {
        const hosted = this.emulators.get(message.id);
        const error = err as Error;
        if (message.kind === 'read') this.post({ ...this.tag(message, hosted), error: error.message });
        else hosted?.note({ kind: 'error', message: error.stack ?? error.message });
      }
    }
  }

  failed(hosted: HostedEmulator, request: number, error: string): void {
    this.flush();
    this.post({ ...this.tag({ id: hosted.id, request }, hosted), error });
  }

  private tag(message: { id: number; request: number }, hosted: HostedEmulator | undefined) {
    return { kind: 'answer' as const, id: message.id, request: message.request, parsed: hosted?.parsed ?? 0 };
  }

  private handleOne(message: ToWorker, data: ArrayBuffer): void {
    if (message.kind === 'open') {
      this.emulators.set(message.id, new HostedEmulator(message.id, message, this));
      return;
    }
    const hosted = this.emulators.get(message.id);
    if (!hosted) throw new Error(`no emulator ${message.id} in this worker`);
    switch (message.kind) {
      case 'write':
        this.collector.worked(message.length);
        return hosted.emulator.write(new Uint8Array(data, message.offset, message.length));
      case 'resize':
        return hosted.resize(message.cols, message.rows);
      case 'scrollback':
        hosted.emulator.scrollback = message.lines;
        return;
      case 'answerQueries':
        return hosted.setAnswerQueries(message.on);
      case 'promptProfile':
        return hosted.watchPrompts(message.profile);
      case 'captureOutput':
        hosted.emulator.shell.capture = message.on;
        return;
      case 'compact':
        return hosted.compact();
      case 'read':
        return hosted.read(message.request, message.read);
      case 'close':
        this.emulators.delete(message.id);
        this.dirty.delete(hosted);
        return hosted.dispose();
    }
  }

  /** A session went quiet and let go of `bytes` of rows: time to collect, if it is worth it. */
  compacted(bytes: number): void {
    this.collector.worked(bytes);
    this.collector.quiet();
  }

  /** What `hosted` says goes out at the end of this turn. */
  changed(hosted: HostedEmulator): void {
    this.dirty.add(hosted);
    this.flushing ??= setImmediate(() => this.flush());
  }

  /** An answer goes after the events before it: the main thread's mirror is at its cut then. */
  answer(hosted: HostedEmulator, request: number, result: ReadResult): void {
    this.flush();
    const transfer =
      result.kind === 'snapshot' ? Object.values(result.views).map((view) => view.buffer as ArrayBuffer) : [];
    this.post({ ...this.tag({ id: hosted.id, request }, hosted), result }, transfer);
  }

  private flush(): void {
    clearImmediate(this.flushing);
    this.flushing = undefined;
    if (this.dirty.size === 0) return;
    const sessions = [...this.dirty].map((hosted) => hosted.events());
    this.dirty.clear();
    this.post({ kind: 'events', sessions });
  }
}
