// The clients of one session waiting for a snapshot, and sending it at an exact cut point: only
// when the emulator has parsed everything it was given (or from its parse callback), followed by
// the chunks written but not parsed yet, so the client's stream goes on right after the snapshot.
import type { IDisposable } from '../protocol/disposable';
import type { ClientRoles, Subscriber } from './clientRoles';
import type { Emulator } from './emulator';
import { SNAPSHOT_PREFIX } from './snapshot';

export enum SnapshotTiming {
  /** A snapshot waits at most this long for a synchronized update (DEC 2026) to end. */
  SyncWaitMs = 1000,
  /**
   * After a screenFirst attach's screen, the history waits this long: a client that parsed both in
   * one go would show nothing until the whole history was parsed (VS Code's renderer did).
   */
  HistoryAfterScreenMs = 100,
}

/**
 * full: screen, scrollback and modes (attach, resync); screen: the visible screen only, and the
 * history soon after; screen-only: the same without the history; history: the full snapshot that
 * follows a screen snapshot, wrapped in a synchronized update.
 */
export type SnapshotKind = 'full' | 'screen' | 'screen-only' | 'history';

const SYNC_START = '\x1b[?2026h';
const SYNC_END = '\x1b[?2026l';

/**
 * The last snapshot of one kind and the emulator state it shows. Serializing a full scrollback
 * costs ~100 ms of CPU, and a window reload re-attaches sessions that have not changed: reuse it then.
 */
class SnapshotCache {
  private key = '';
  private bytes: Buffer | undefined;

  get(key: string, render: () => string): Buffer {
    if (this.bytes === undefined || this.key !== key) {
      this.key = key;
      this.bytes = Buffer.from(render(), 'utf8');
    }
    return this.bytes;
  }
}

export class SnapshotQueue implements IDisposable {
  private readonly awaiting = new Map<Subscriber, SnapshotKind>();
  private deadline = 0;
  private syncTimer: NodeJS.Timeout | undefined;
  private readonly historyFollowUps = new Set<NodeJS.Timeout>();
  private readonly fullCache = new SnapshotCache();
  private readonly screenCache = new SnapshotCache();

  constructor(
    private readonly emulator: Emulator,
    /** Chunks written to the emulator and not parsed yet (the session's): what a snapshot does not contain. */
    private readonly inflight: readonly Buffer[],
    private readonly roles: ClientRoles,
  ) {}

  get pending(): boolean {
    return this.awaiting.size > 0;
  }

  /** Queues a snapshot for `subscriber`; it gets the stream from exactly the snapshot's point on. */
  request(subscriber: Subscriber, kind: SnapshotKind): void {
    subscriber.phase = 'pending';
    if (this.awaiting.size === 0) this.deadline = Date.now() + SnapshotTiming.SyncWaitMs;
    this.awaiting.set(subscriber, kind);
    this.take(false);
  }

  /** A detached subscriber gets nothing more. */
  forget(subscriber: Subscriber): void {
    this.awaiting.delete(subscriber);
  }

  /** Sends every queued snapshot if the emulator is exact now; `afterParse` from its parse callback. */
  take(afterParse: boolean): void {
    // Outside a parse callback the emulator is exact only when nothing is waiting to be parsed.
    if (!afterParse && this.emulator.backlog > 0) return;
    if (this.emulator.inSynchronizedUpdate && Date.now() < this.deadline) {
      if (!this.syncTimer) {
        this.syncTimer = setTimeout(() => {
          this.syncTimer = undefined;
          this.take(false);
        }, this.deadline - Date.now());
      }
      return;
    }
    clearTimeout(this.syncTimer);
    this.syncTimer = undefined;
    const waiting = [...this.awaiting];
    this.awaiting.clear();
    for (const [subscriber, kind] of waiting) {
      if (kind === 'history') subscriber.sendEvent({ type: 'history', channel: subscriber.channel });
      subscriber.sendSnapshot(
        kind === 'screen' || kind === 'screen-only'
          ? this.screenSnapshot()
          : kind === 'history'
            ? this.historySnapshot()
            : this.fullSnapshot(),
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
      if (this.roles.all.has(subscriber) && !this.awaiting.has(subscriber)) this.request(subscriber, 'history');
    }, SnapshotTiming.HistoryAfterScreenMs);
    this.historyFollowUps.add(followUp);
  }

  /** What the emulator's state is: bytes parsed and size (a resize reflows without new bytes). */
  private stateKey(): string {
    return `${this.emulator.parsed}:${this.emulator.terminal.cols}x${this.emulator.terminal.rows}`;
  }

  /** The visible screen with its modes, no scrollback: what a tab needs to be usable. */
  private screenSnapshot(): Buffer {
    return this.screenCache.get(this.stateKey(), () => this.emulator.snapshot(0));
  }

  /** The screen, the scrollback and the modes, as they are now. */
  private fullSnapshot(): Buffer {
    return this.fullCache.get(this.stateKey(), () => this.emulator.snapshot());
  }

  /**
   * The full snapshot inside a synchronized update (DEC 2026): the receiver keeps showing the
   * screen it has until the rebuilt one is complete, rather than the reset and the history scrolling by.
   */
  private historySnapshot(): Buffer {
    const full = this.fullSnapshot();
    const end = this.emulator.inSynchronizedUpdate ? '' : SYNC_END;
    return Buffer.concat([
      Buffer.from(SNAPSHOT_PREFIX + SYNC_START),
      full.subarray(SNAPSHOT_PREFIX.length),
      Buffer.from(end),
    ]);
  }

  dispose(): void {
    clearTimeout(this.syncTimer);
    for (const followUp of this.historyFollowUps) clearTimeout(followUp);
    this.historyFollowUps.clear();
  }
}
