// The worker threads that run search and text waits (searchWorker.ts) off the daemon's main thread:
// at most two (fewer on one core), each job within a time budget. A job that runs out of it, or whose
// client went away, is stopped by terminating its worker; a new one starts for the next job. The
// transcripts a job found too costly to read are kept here, across workers, so no job reads them again
// until they change (a Codex session waiting every 0.4 s re-read a 4 GiB one each time).
import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { IDisposable } from '../base/disposable';
import { ErrorCode } from '../protocol/messages';
import { DaemonError } from './daemonError';
import { WatchdogTiming } from './workerWatchdog';
import type { CostlyTranscript } from '../agents/transcripts';
import type { JobAnswer, JobResult, TextJob, WorkerLoaded } from './search/textJobs';

export enum TextWorkerTuning {
  /** Workers at most: two jobs run at once, the others queue (fewer workers on one core). */
  MaxWorkers = 2,
  /** A worker idle this long is ended: an idle daemon holds no thread (a new one starts in tens of ms). */
  IdleMs = 30_000,
  /** How often a running job looks whether its client is still there. */
  CancelCheckMs = 100,
  /** Transcripts kept as too costly, the oldest forgotten first. */
  MaxCostlyTranscripts = 64,
}

/**
 * A new worker that has not loaded its script within the watchdog's silence is ended (its job answers
 * `internal`). A job's budget counts from the load: starting a thread takes 0.5-3 s on a busy machine.
 */
const START_MS = WatchdogTiming.SilentMs;

/** Built by esbuild beside daemon.js (scripts/build.mjs), by tsc beside this file. */
const WORKER_SCRIPT = path.join(__dirname, 'searchWorker.js');

const patternTooCostly = (budgetMs: number) =>
  `the pattern ran out of its time budget (${budgetMs} ms) over the text; narrow it`;

interface Queued {
  job: TextJob;
  /** What the job is, for its `limit` message: "search", "text wait". */
  what: string;
  /** Why it answers `limit` when it runs out of its budget (ms). */
  tooCostly(budgetMs: number): string;
  cancelled?: () => boolean;
  resolve(result: unknown): void;
  reject(err: Error): void;
}

class Slot {
  worker: Worker | undefined;
  /** When the worker said it loaded its script (searchWorker.ts), ms: a job's budget runs from then. */
  loadedAt: number | undefined;
  running: Queued | undefined;
  /** Clears the running job's timers and listeners. */
  endJob: (() => void) | undefined;
  idleTimer: NodeJS.Timeout | undefined;
}

export class TextWorkers implements IDisposable {
  private readonly slots: Slot[];
  private readonly queue: Queued[] = [];
  private disposed = false;
  /** By file: the version found too costly to read. */
  private readonly costly = new Map<string, CostlyTranscript>();

  constructor(
    /** The budget of each job now, ms: the config's `search.budgetMs` (2000 unless set). */
    private readonly budgetMs: () => number,
    /** The daemon's log: a transcript found too costly is said there once. */
    private readonly log: (line: string) => void,
    size = Math.min(TextWorkerTuning.MaxWorkers, availableParallelism()),
  ) {
    this.slots = Array.from({ length: Math.max(1, size) }, () => new Slot());
  }

  /**
   * What a job that reads transcripts is told as it starts: half its budget for one file (the rest is
   * the pattern's), and the files found too costly so far (by a job queued beside it, too).
   */
  private withTranscriptBounds(job: TextJob): TextJob {
    if (job.kind !== 'search' && job.kind !== 'reason') return job;
    return { ...job, transcripts: { readForMs: this.budgetMs() / 2, costly: [...this.costly.values()] } };
  }

  private noteCostly(found: readonly CostlyTranscript[]): void {
    for (const costly of found) {
      if (this.costly.get(costly.file)?.version === costly.version) continue; // two workers read it at once
      this.log(costly.why);
      this.costly.delete(costly.file);
      if (this.costly.size >= TextWorkerTuning.MaxCostlyTranscripts)
        this.costly.delete(this.costly.keys().next().value!);
      this.costly.set(costly.file, costly);
    }
  }

  /**
   * Runs `job` in a worker; rejects with `limit` when it runs out of its budget (or its pattern is too
   * costly), `bad-request` for a bad pattern. `cancelled`: the client went away, stop the work.
   */
  run<J extends TextJob>(
    job: J,
    what: string,
    cancelled?: () => boolean,
    tooCostly = patternTooCostly,
  ): Promise<JobResult<J>> {
    return new Promise((resolve, reject) => {
      if (this.disposed) return reject(new DaemonError(ErrorCode.Stopping, 'the daemon is stopping'));
      this.queue.push({ job, what, tooCostly, cancelled, resolve: resolve, reject });
      this.next();
    });
  }

  private next(): void {
    for (const slot of this.slots) {
      if (slot.running) continue;
      const queued = this.queue.shift();
      if (!queued) return;
      this.start(slot, queued);
    }
  }

  private start(slot: Slot, queued: Queued): void {
    if (queued.cancelled?.()) {
      queued.reject(new DaemonError(ErrorCode.Stopping, 'the client went away'));
      return this.next();
    }
    clearTimeout(slot.idleTimer);
    const worker = slot.worker ?? this.spawn(slot);
    slot.running = queued;
    const finish = (outcome: () => void, keepWorker: boolean) => {
      slot.endJob?.();
      slot.running = undefined;
      if (!keepWorker) this.drop(slot);
      else slot.idleTimer = setTimeout(() => this.drop(slot), TextWorkerTuning.IdleMs);
      outcome();
      this.next();
    };
    const onMessage = (answer: JobAnswer | WorkerLoaded) => {
      if ('loaded' in answer) return;
      if (answer.costly) this.noteCostly(answer.costly);
      finish(() => {
        if (answer.ok) queued.resolve(answer.result);
        else queued.reject(new DaemonError(answer.code, `${queued.what}: ${answer.message}`));
      }, true);
    };
    const failed = (why: string) =>
      finish(() => queued.reject(new DaemonError(ErrorCode.Internal, `${queued.what}: its worker ${why}`)), false);
    const onError = (err: Error) => failed(`failed: ${err.message}`);
    const onExit = (code: number) => failed(`exited (${code})`);
    const budgetTimer = this.armBudget(slot, queued, (error) => {
      // Reading checkpoints ends on its own (bounded files): the client gets `limit` now and the worker
      // is kept, since ending a thread with a big heap stalls the main thread ~0.1-0.25 s (its teardown).
      if (queued.job.kind === 'checkpoints' && slot.loadedAt !== undefined) return queued.reject(error);
      finish(() => queued.reject(error), false);
    });
    const cancelTimer = queued.cancelled
      ? setInterval(() => {
          if (queued.cancelled?.())
            finish(() => queued.reject(new DaemonError(ErrorCode.Stopping, 'the client went away')), false);
        }, TextWorkerTuning.CancelCheckMs)
      : undefined;
    // Only this job's listeners come off (a Worker keeps listeners of its own).
    slot.endJob = () => {
      slot.endJob = undefined;
      budgetTimer.clear();
      clearInterval(cancelTimer);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
    };
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    worker.postMessage(this.withTranscriptBounds(queued.job));
  }

  /**
   * The job's time budget, from when its worker loaded (a new one gets START_MS to load first): `over`
   * is called with the job's error when it runs out. Its timer is never longer than the budget: a
   * cleared timer still wakes the daemon when it was due (Node re-arms its one timer lazily).
   */
  private armBudget(slot: Slot, queued: Queued, over: (error: DaemonError) => void): { clear(): void } {
    const budget = this.budgetMs();
    const startedAt = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const check = () => {
      const now = Date.now();
      if (slot.loadedAt === undefined) {
        const why = `${queued.what}: its worker did not start within ${START_MS} ms`;
        if (now - startedAt >= START_MS) return over(new DaemonError(ErrorCode.Internal, why));
        timer = setTimeout(check, Math.min(budget, START_MS - (now - startedAt)));
        return;
      }
      const due = Math.max(slot.loadedAt, startedAt) + budget;
      if (now < due) timer = setTimeout(check, due - now);
      else over(new DaemonError(ErrorCode.Limit, `${queued.what}: ${queued.tooCostly(budget)}`));
    };
    timer = setTimeout(check, budget);
    return { clear: () => clearTimeout(timer) };
  }

  private spawn(slot: Slot): Worker {
    const worker = new Worker(WORKER_SCRIPT);
    slot.worker = worker;
    slot.loadedAt = undefined;
    worker.on('message', (message: JobAnswer | WorkerLoaded) => {
      if ('loaded' in message && slot.worker === worker) slot.loadedAt = Date.now();
    });
    return worker;
  }

  /** Ends a slot's worker (stuck, idle or failed): the next job starts a new one. */
  private drop(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    const worker = slot.worker;
    slot.worker = undefined;
    slot.loadedAt = undefined;
    if (!worker) return;
    // A terminated worker's exit is of no interest; errors on the way out neither.
    worker.on('error', () => undefined);
    void worker.terminate();
  }

  dispose(): void {
    this.disposed = true;
    for (const queued of this.queue.splice(0))
      queued.reject(new DaemonError(ErrorCode.Stopping, 'the daemon is stopping'));
    for (const slot of this.slots) {
      const running = slot.running;
      slot.running = undefined;
      slot.endJob?.();
      this.drop(slot);
      running?.reject(new DaemonError(ErrorCode.Stopping, 'the daemon is stopping'));
    }
  }
}
