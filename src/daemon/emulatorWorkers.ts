// The worker threads that own the sessions' emulators (emulatorWorker.ts): at most two (one per
// core), each started when a session first needs it and ended when it has had none for a while; a
// session goes to the one with the fewest. What goes to a thread is sent once per turn in one batch
// (a few bytes alone, such as an echo, a few ms later), its chunks copied once into one buffer that
// is handed over (transferred), not copied again.
// A thread that throws, exits or stops answering (workerWatchdog.ts) is replaced, and each of its
// sessions rebuilt on the new one; one that cannot start three times running is given up.
import * as fs from 'node:fs';
import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { IDisposable } from '../base/disposable';
import type { FromWorker, ToSession, ToWorker, ToWorkerBatch } from './common/emulatorProtocol';
import { IdleCollector } from './common/idleCollector';
import { WorkerWatchdog } from './workerWatchdog';

export enum EmulatorWorkerTuning {
  /** Threads at most (fewer on one core): two floods parse in parallel, echo never waits for them. */
  MaxWorkers = 2,
  /** A thread without sessions this long is ended: an idle daemon without sessions holds none. */
  IdleMs = 30_000,
  /** A worker that dies sooner than this after its start is replaced only after a wait (doubling up to MaxWaitMs). */
  QuickDeathMs = 2000,
  MaxWaitMs = 20_000,
  /** Deaths in a row before a worker said it started: the thread is given up, its sessions have no screen. */
  MaxStartFailures = 3,
  /**
   * A thread's young generation, MB. V8 grows it to 32 MB in a flood and, with the memory reducer
   * off (launch.ts), never gives it back: 8 MB parses a flood as fast and keeps ~50 MB less per thread.
   */
  YoungGenerationMb = 8,
  /**
   * Output this small with nothing else queued (a keystroke's echo) waits up to SmallOutputWaitMs
   * before it is sent: its client gets the echo before a worker wakes to parse it, and typing wakes
   * the worker once per few keystrokes. Any other message or more output sends it at once.
   */
  SmallOutputBytes = 2048,
  SmallOutputWaitMs = 4,
}

/** Built by esbuild beside daemon.js (scripts/build.mjs), by tsc beside this file. */
const WORKER_SCRIPT = path.join(__dirname, 'emulatorWorker.js');

/** Throws when the worker's bundle is missing: no session could show a screen (checked at start). */
export function checkEmulatorWorkerBundle(script = WORKER_SCRIPT): void {
  if (!fs.existsSync(script))
    throw new Error(`its emulator worker ${script} is missing; fix: reinstall Holdfast (or npm run build)`);
}

/** A session's side of its thread (sessionEmulator.ts). */
export interface EmulatorLink {
  readonly id: number;
  receive(message: ToSession): void;
  /**
   * Its thread was replaced: open the emulator again there and replay what it had not parsed.
   * `ran`: the worker had answered (it died running, maybe on this session's output; else it never started).
   */
  reopen(why: string, ran: boolean): void;
  /** Its thread was given up (it could not start): the session has no screen, its output flows on. */
  unavailable(why: string): void;
  /** It waits for the worker: output to parse or a read to answer. */
  readonly awaiting: boolean;
  /** Bytes of output written and not parsed yet (posted or not). */
  readonly backlog: number;
}

export class EmulatorThread {
  private worker: Worker | undefined;
  private readonly links = new Map<number, EmulatorLink>();
  private messages: ToWorker[] = [];
  private chunks: Uint8Array[] = [];
  private bytes = 0;
  private flushing: NodeJS.Immediate | undefined;
  private smallOutputTimer: NodeJS.Timeout | undefined;
  /** Messages other than output are queued: they go at the end of this turn whatever the worker has left. */
  private urgent = false;
  /**
   * Output waits while the worker still has output to parse, until it reports it has none: a flood
   * then goes in a few large batches, not one per 4 KB PTY read (a postMessage and a wake-up of the
   * worker each), and the larger a batch, the more of a flood of plain text it skips (plainRun.ts).
   */
  private held = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  /** The worker sent something: it ran. */
  private answered = false;
  /** Set while a worker that keeps dying at once waits to be replaced: nothing is sent meanwhile. */
  private restartTimer: NodeJS.Timeout | undefined;
  private restartWaitMs = 0;
  /** The worker said it started (its script loaded). */
  private loaded = false;
  private startFailures = 0;
  /** Why the thread was given up: it could not start MaxStartFailures times in a row. */
  private failure: string | undefined;
  /** Why the watchdog ended the worker, for its log line. */
  private stuckWhy: string | undefined;
  private readonly watchdog: WorkerWatchdog;

  constructor(
    private readonly log: (line: string) => void,
    private readonly script: string,
    silentMs?: number,
  ) {
    this.watchdog = new WorkerWatchdog(
      () => [...this.links.values()].some((link) => link.awaiting),
      (silent) => this.stuck(silent),
      silentMs,
    );
  }

  get sessions(): number {
    return this.links.size;
  }

  add(link: EmulatorLink): void {
    clearTimeout(this.idleTimer);
    this.links.set(link.id, link);
    if (this.failure) link.unavailable(this.failure);
  }

  remove(link: EmulatorLink): void {
    if (!this.links.delete(link.id)) return;
    this.send({ kind: 'close', id: link.id });
    if (this.links.size === 0) this.idleTimer = setTimeout(() => this.end(), EmulatorWorkerTuning.IdleMs);
  }

  /** Dropped while the worker waits to be replaced: the sessions send all they hold again then (reopen). */
  send(message: ToWorker): void {
    if (this.restartTimer || this.failure) return;
    this.messages.push(message);
    if (message.kind !== 'write') this.urgent = true;
    if (!this.urgent && this.bytes < EmulatorWorkerTuning.SmallOutputBytes)
      this.smallOutputTimer ??= setTimeout(() => this.flushSoon(), EmulatorWorkerTuning.SmallOutputWaitMs);
    else this.flushSoon();
  }

  write(id: number, chunk: Uint8Array): void {
    if (this.restartTimer || this.failure) return;
    const offset = this.bytes;
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    this.send({ kind: 'write', id, offset, length: chunk.length });
  }

  private flushSoon(): void {
    this.flushing ??= setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushing = undefined;
    clearTimeout(this.smallOutputTimer);
    this.smallOutputTimer = undefined;
    if (this.messages.length === 0) return;
    if (!this.urgent && this.worker && this.postedUnparsed() > 0) {
      this.held = true;
      return;
    }
    this.held = false;
    this.urgent = false;
    const data = new Uint8Array(this.bytes);
    let offset = 0;
    for (const chunk of this.chunks) {
      data.set(chunk, offset);
      offset += chunk.length;
    }
    const batch: ToWorkerBatch = { messages: this.messages, data: data.buffer };
    this.messages = [];
    this.chunks = [];
    this.bytes = 0;
    this.started().postMessage(batch, [data.buffer]);
    this.watchdog.sent();
  }

  /** Output the worker has been sent and has not parsed yet. */
  private postedUnparsed(): number {
    let backlog = 0;
    for (const link of this.links.values()) backlog += link.backlog;
    return backlog - this.bytes;
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.script, {
      resourceLimits: { maxYoungGenerationSizeMb: EmulatorWorkerTuning.YoungGenerationMb },
    });
    this.worker = worker;
    this.startedAt = Date.now();
    this.answered = false;
    this.loaded = false;
    this.stuckWhy = undefined;
    worker.on('message', (message: FromWorker) => this.route(message));
    worker.on('error', (err) => this.died(worker, `threw: ${err.stack ?? err.message}`));
    worker.on('exit', (code) => this.died(worker, `exited (${code})`));
    return worker;
  }

  private route(message: FromWorker): void {
    this.answered = true;
    if (message.kind === 'started') {
      this.loaded = true;
      this.startFailures = 0;
    } else if (message.kind === 'answer') this.links.get(message.id)?.receive(message);
    else
      for (const events of message.sessions) this.links.get(events.id)?.receive({ kind: 'events', sessions: [events] });
    this.watchdog.heard();
    if (this.held) this.flushSoon();
  }

  /** The worker is gone on its own: a new one takes its sessions, each rebuilt (what was queued is replayed). */
  private died(worker: Worker, exitWhy: string): void {
    if (this.worker !== worker) return;
    const why = this.stuckWhy ?? exitWhy;
    this.worker = undefined;
    this.messages = [];
    this.chunks = [];
    this.bytes = 0;
    this.urgent = this.held = false;
    this.watchdog.reset();
    if (!this.loaded && ++this.startFailures >= EmulatorWorkerTuning.MaxStartFailures)
      return this.giveUp(why.split('\n')[0]);
    // A worker that cannot even start (a missing or broken bundle) must not be restarted in a tight loop.
    const quick = Date.now() - this.startedAt < EmulatorWorkerTuning.QuickDeathMs;
    this.restartWaitMs = quick ? Math.min(Math.max(100, this.restartWaitMs * 2), EmulatorWorkerTuning.MaxWaitMs) : 0;
    const wait = this.restartWaitMs > 0 ? ` in ${this.restartWaitMs} ms` : '';
    this.log(`emulator worker ${why}; its ${this.links.size} session(s) are rebuilt in a new one${wait}`);
    const ran = this.answered;
    const reopen = () => {
      this.restartTimer = undefined;
      for (const link of [...this.links.values()]) link.reopen(`its emulator worker ${why.split('\n')[0]}`, ran);
    };
    if (this.restartWaitMs > 0) this.restartTimer = setTimeout(reopen, this.restartWaitMs);
    else reopen();
  }

  /** Said nothing for `silentMs` with work outstanding: ended, and replaced as if it had died. */
  private stuck(silentMs: number): void {
    if (!this.worker) return;
    this.stuckWhy = `answered nothing for ${silentMs} ms with work outstanding (stuck), so it was ended`;
    void this.worker.terminate();
  }

  /** Could not start, again and again: its sessions are told once and nothing is tried again. */
  private giveUp(why: string): void {
    this.failure = `its emulator worker could not start ${this.startFailures} times (last: ${why})`;
    this.log(`emulator worker ${why}; given up: its ${this.links.size} session(s) have no screen until a restart`);
    for (const link of [...this.links.values()]) link.unavailable(this.failure);
  }

  /** Ends the worker (stuck, or for a test) as if it had died: its sessions are rebuilt in a new one. */
  replace(): Promise<void> {
    const worker = this.worker;
    if (!worker) return Promise.resolve();
    return worker.terminate().then(() => undefined);
  }

  /** Ends the worker with its sessions (none, or the daemon is stopping). */
  end(): void {
    this.watchdog.reset();
    clearTimeout(this.idleTimer);
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    clearImmediate(this.flushing);
    this.flushing = undefined;
    clearTimeout(this.smallOutputTimer);
    this.smallOutputTimer = undefined;
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return;
    worker.removeAllListeners();
    // A terminated worker's exit is of no interest; errors on the way out neither.
    worker.on('error', () => undefined);
    void worker.terminate();
  }
}

export class EmulatorWorkers implements IDisposable {
  private readonly threads: EmulatorThread[];
  private nextId = 1;
  /** The main thread's heap: what the sessions' output leaves there is collected when they go quiet. */
  readonly collector = new IdleCollector();

  constructor(
    log: (line: string) => void = () => undefined,
    size = Math.min(EmulatorWorkerTuning.MaxWorkers, availableParallelism()),
    script = WORKER_SCRIPT,
    /** How long a worker with work outstanding may say nothing (tests shorten it). */
    silentMs?: number,
  ) {
    this.threads = Array.from({ length: Math.max(1, size) }, () => new EmulatorThread(log, script, silentMs));
  }

  /** A number for a new session's emulator, unique in this daemon. */
  newId(): number {
    return this.nextId++;
  }

  /** The thread with the fewest sessions. */
  assign(): EmulatorThread {
    return this.threads.reduce((best, thread) => (thread.sessions < best.sessions ? thread : best));
  }

  /** Terminates every worker as a crash would (for tests): their sessions are rebuilt. */
  async replaceAll(): Promise<void> {
    await Promise.all(this.threads.map((thread) => thread.replace()));
  }

  dispose(): void {
    for (const thread of this.threads) thread.end();
    this.collector.dispose();
  }
}
