// Who is sent a session's bytes, and who screens instead. While a session's output floods, its bytes go to
// the input owner only; every watcher is sent the screen as it is every RedrawMs (a resync and a snapshot of
// the visible screen, as tmux redraws its clients), and when the flood ends a full snapshot, scrollback
// too, after which it streams again. A flood fanned out to 50 watchers was a kernel copy of every byte
// for each, four times the daemon's main-thread time of the flood alone, for screens no one reads at
// that speed. A channel's view (ChannelView, the `view` request) changes that for it: a hidden one (its tab
// is not on screen) is sent nothing, and the screen then the scrollback once shown again if it missed any;
// an owner whose terminal fell behind is redrawn as a watcher until the flood is over; a 'screens' watcher (a
// remote preview, over SSH) is never sent the stream, only the visible screen once it changed, at most every
// RedrawMs: what it costs is bounded by screens a second, not by the program's output.
import { performance } from 'node:perf_hooks';
import type { IDisposable } from '../../base/disposable';
import type { ChannelView } from '../../protocol/messages';
import type { ClientRoles, Subscriber } from './clientRoles';
import type { SnapshotKind } from './snapshotQueue';

export enum WatcherRedrawTuning {
  /** A session floods once this much output comes within WindowMs (2.5 MB/s). */
  FloodBytes = 256 * 1024,
  WindowMs = 100,
  /** While a session floods, its watchers' screens are redrawn this often; a 'screens' watcher's, always. */
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
  /** Subscribers not live (ChannelView): hidden ones, and owners redrawn until the flood is over. */
  private readonly views = new Map<Subscriber, Exclude<ChannelView, 'live'>>();
  /** 'screens' watchers whose screen changed since their last one; drawn when screensTimer fires. */
  private readonly screensDue = new Set<Subscriber>();
  private screensTimer: NodeJS.Timeout | undefined;

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

  /** Sends a chunk to every live subscriber as its view says; true when some client's terminal is sent it. */
  fanOut(chunk: Buffer): boolean {
    let sent = false;
    for (const subscriber of this.roles.all)
      if (subscriber.phase === 'live' && this.send(subscriber, chunk)) sent = true;
    return sent;
  }

  /**
   * Output for a live subscriber: sent (true); or held back: from a hidden one until it is shown, from a
   * watcher (or an owner that fell behind) during a flood until its next redraw.
   */
  send(subscriber: Subscriber, chunk: Buffer): boolean {
    const view = this.views.get(subscriber);
    if (view === 'screens') this.screenChanged(subscriber);
    else if (view === 'hidden')
      subscriber.stale = true; // the snapshot it gets once shown replaces what it missed
    else if (this.timer && (subscriber !== this.roles.owner || view === 'redraw')) this.behind.add(subscriber);
    else {
      subscriber.sendOutput(chunk);
      return true;
    }
    return false;
  }

  viewOf(subscriber: Subscriber): ChannelView {
    return this.views.get(subscriber) ?? 'live';
  }

  /** Whether `subscriber`'s terminal is sent the stream (for the owner: whether its terminal answers queries). */
  streamsTo(subscriber: Subscriber | undefined): boolean {
    return subscriber !== undefined && !this.views.has(subscriber);
  }

  /** Sets what `subscriber` is sent (ChannelView); what it needs now (a snapshot) is asked for. */
  setView(subscriber: Subscriber, view: ChannelView): void {
    const was = this.viewOf(subscriber);
    if (view === 'hidden' || view === 'screens' || (view === 'redraw' && this.timer)) this.views.set(subscriber, view);
    else this.views.delete(subscriber);
    if (was === 'screens' && view !== 'screens') this.leaveScreens(subscriber, view);
    // One waiting for its snapshot may have none coming (attached hidden): shown, it gets one.
    if (view === 'hidden' && subscriber.phase === 'pending') subscriber.stale = true;
    if (view === 'redraw') {
      // Its terminal dropped what it held: flooding, the next redraw draws it; else a full snapshot now.
      if (this.timer) this.behind.add(subscriber);
      else this.resync(subscriber, 'full');
    } else if (view === 'screens') this.enterScreens(subscriber, was);
    else if (view === 'live' && was === 'hidden' && subscriber.stale) this.resync(subscriber, 'screen');
  }

  /** Its first screen, or the one it lacks: what it was owed as a watcher (a redraw, or what it missed hidden). */
  private enterScreens(subscriber: Subscriber, was: ChannelView): void {
    const redrawOwed = this.behind.delete(subscriber);
    this.withoutScrollback.delete(subscriber);
    if (subscriber.phase === 'pending' && was === 'live')
      this.redraw(subscriber, 'screen-only'); // attached so
    else if (redrawOwed || subscriber.stale) this.screenChanged(subscriber);
  }

  private leaveScreens(subscriber: Subscriber, view: ChannelView): void {
    this.screensDue.delete(subscriber);
    if (view === 'live')
      this.resync(subscriber, 'full'); // its terminal holds a screen, no scrollback
    else subscriber.stale = true;
  }

  private screenChanged(subscriber: Subscriber): void {
    this.screensDue.add(subscriber);
    this.screensTimer ??= setTimeout(() => this.drawScreens(), WatcherRedrawTuning.RedrawMs);
  }

  private drawScreens(): void {
    this.screensTimer = undefined;
    const due = [...this.screensDue];
    this.screensDue.clear();
    for (const subscriber of due) {
      if (!this.roles.all.has(subscriber) || this.views.get(subscriber) !== 'screens') continue;
      if (subscriber.lagging)
        subscriber.stale = true; // its resync comes when it reads
      else this.resync(subscriber, 'screen-only');
    }
  }

  /** A detached subscriber is let go. */
  forget(subscriber: Subscriber): void {
    this.views.delete(subscriber);
    this.screensDue.delete(subscriber);
    this.behind.delete(subscriber);
    this.withoutScrollback.delete(subscriber);
  }

  private resync(subscriber: Subscriber, kind: SnapshotKind): void {
    subscriber.sendEvent({ type: 'resync', channel: subscriber.channel });
    this.redraw(subscriber, kind);
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
      // A client that does not read, or a hidden one, is not sent screens it will not show: its resync comes
      // when it reads, or when it is shown.
      if (subscriber.lagging || this.views.get(subscriber) === 'hidden') {
        subscriber.stale = true;
        this.withoutScrollback.delete(subscriber);
        continue;
      }
      // A watcher that became the owner streams from now on: it needs its scrollback back at once.
      const full = over || (subscriber === this.roles.owner && !this.views.has(subscriber));
      if (full) this.withoutScrollback.delete(subscriber);
      else this.withoutScrollback.add(subscriber);
      this.resync(subscriber, full ? 'full' : 'screen-only');
    }
    this.behind.clear();
    if (!over) return;
    this.withoutScrollback.clear();
    // The owners redrawn for this flood had their full snapshot: they stream again.
    for (const [subscriber, view] of this.views) if (view === 'redraw') this.views.delete(subscriber);
  }

  dispose(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    clearTimeout(this.screensTimer);
    this.screensTimer = undefined;
    this.behind.clear();
    this.withoutScrollback.clear();
    this.screensDue.clear();
    this.views.clear();
  }
}
