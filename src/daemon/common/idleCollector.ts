// One full garbage collection when a thread goes quiet after work worth it. The daemon runs with
// V8's memory reducer off (launch.ts: an idle daemon must not wake for it), so nothing else collects
// once output stops: the rows a compaction frees and the buffers of a burst stay in the heap, and
// each emulator worker and the main thread keep their high-water mark for good. Needs `gc` exposed.
import type { IDisposable } from '../../base/disposable';

export enum IdleCollection {
  /** Bytes moved or parsed since the last collection that make one worth its ~10 ms. */
  WorthBytes = 1024 * 1024,
  /**
   * At most one collection this often on any thread (the main one and each worker): sessions that
   * print now and then cost a GC (~5 ms of a 15 MB heap) per MB at most, and the one a quiet spell
   * owes runs within this of it, so a daemon idle for longer than this never wakes for it.
   */
  MinIntervalMs = 2000,
}

/**
 * One-shot: a timer is armed only by a quiet spell after work worth collecting, and never again until
 * more work is done, so a thread that stays quiet is never woken.
 */
export class IdleCollector implements IDisposable {
  private owed = 0;
  private lastAt = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly worthBytes: number = IdleCollection.WorthBytes) {}

  /** Work that leaves garbage behind: bytes parsed, moved or rendered. */
  worked(bytes: number): void {
    this.owed += bytes;
  }

  /**
   * A session went quiet: collect, if the work since the last collection is worth it, now or when
   * the interval since the last one has passed (one collection serves every session that goes quiet).
   */
  quiet(): void {
    const gc = (globalThis as { gc?: () => void }).gc;
    if (!gc || this.timer || this.owed < this.worthBytes) return;
    const wait = Math.max(0, this.lastAt + IdleCollection.MinIntervalMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.owed = 0;
      this.lastAt = Date.now();
      gc();
    }, wait);
    this.timer.unref();
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
