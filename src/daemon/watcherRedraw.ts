// Watchers of a flood are redrawn, not streamed. While a session's output floods, its bytes go to the
// input owner only; every watcher is sent the screen as it is every RedrawMs (a resync and a snapshot of
// the visible screen, as tmux redraws its clients), and when the flood ends a full snapshot, scrollback
// too, after which it streams again. A flood fanned out to 50 watchers was a kernel copy of every byte
// for each, four times the daemon's main-thread time of the flood alone, for screens no one reads at
// that speed.
import { performance } from 'node:perf_hooks';
import type { IDisposable } from '../base/disposable';
import type { ClientRoles, Subscriber } from './clientRoles';
import type { SnapshotKind } from './snapshotQueue';

export enum WatcherRedrawTuning {
  /** A session floods once this much output comes within WindowMs (2.5 MB/s). */
  FloodBytes = 256 * 1024,
  WindowMs = 100,
  /** While a session floods, its watchers' screens are redrawn this often. */
  RedrawMs = 250,
  /**
   * The flood is over when one RedrawMs brought less than this (256 KiB/s) and all of it is parsed. Far under
   * FloodBytes: a flood on a loaded machine slows down for a while, and each end is a full snapshot per watcher.
   */
  EndBytes = 64 * 1024,
}

export class WatcherRedraw implements IDisposable {
  private windowStart = -Infinity;
  private windowBytes = 0;
  private periodBytes = 0;
  /** Set while the session floods, and only then. */
  private timer: NodeJS.Timeout | undefined;
  /** Watchers that were not sent output since their last snapshot. */
  private readonly behind = new Set<Subscriber>();
  /** Watchers whose last redraw was the visible screen only: the flood's end brings their scrollback. */
  private readonly withoutScrollback = new Set<Subscriber>();

  constructor(
    private readonly roles: ClientRoles,
    /** Sends `subscriber` a snapshot, then the stream from its cut on (SnapshotQueue). */
    private readonly redraw: (subscriber: Subscriber, kind: SnapshotKind) => void,
    /** Output not parsed yet: while there is, the flood goes on (reading the program may be paused for it). */
    private readonly backlog: () => number,
    /** Milliseconds of a monotonic clock (tests pass their own). */
    private readonly now: () => number = () => performance.now(),
  ) {}

  get flooding(): boolean {
    return this.timer !== undefined;
  }

  /** Counts the session's output: enough of it within WindowMs starts a flood. */
  output(bytes: number): void {
    if (this.timer) {
      this.periodBytes += bytes;
      return;
    }
    const now = this.now();
    if (now - this.windowStart > WatcherRedrawTuning.WindowMs) {
      this.windowStart = now;
      this.windowBytes = 0;
    }
    this.windowBytes += bytes;
    if (this.windowBytes < WatcherRedrawTuning.FloodBytes) return;
    this.periodBytes = 0;
    this.timer = setInterval(() => this.tick(), WatcherRedrawTuning.RedrawMs);
  }

  /** Output for a live subscriber: sent, or, to a watcher during a flood, held back until its next redraw. */
  send(subscriber: Subscriber, chunk: Buffer): void {
    if (this.timer && subscriber !== this.roles.owner) this.behind.add(subscriber);
    else subscriber.sendOutput(chunk);
  }

  private tick(): void {
    const over = this.periodBytes < WatcherRedrawTuning.EndBytes && this.backlog() === 0;
    this.periodBytes = 0;
    const due = over ? new Set([...this.behind, ...this.withoutScrollback]) : this.behind;
    if (over) {
      clearInterval(this.timer);
      this.timer = undefined;
      this.windowStart = -Infinity;
    }
    for (const subscriber of [...due]) {
      if (!this.roles.all.has(subscriber)) continue; // detached: the sets let go of it below
      // A client that does not read is not sent screens it will not read: its resync comes when it reads.
      if (subscriber.lagging) {
        subscriber.stale = true;
        this.withoutScrollback.delete(subscriber);
        continue;
      }
      // A watcher that became the owner streams from now on: it needs its scrollback back at once.
      const full = over || subscriber === this.roles.owner;
      if (full) this.withoutScrollback.delete(subscriber);
      else this.withoutScrollback.add(subscriber);
      subscriber.sendEvent({ type: 'resync', channel: subscriber.channel });
      this.redraw(subscriber, full ? 'full' : 'screen-only');
    }
    this.behind.clear();
    if (over) this.withoutScrollback.clear();
  }

  dispose(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.behind.clear();
    this.withoutScrollback.clear();
  }
}
