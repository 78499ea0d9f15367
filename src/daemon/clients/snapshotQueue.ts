// The clients of one session waiting for a snapshot. The emulator's worker takes it at an exact cut
// point (sessionEmulator.ts, emulatorHost.ts); when it arrives the chunks written but not parsed at
// that point follow it, so the client's stream goes on right after the snapshot.
import type { IDisposable } from '../../base/disposable';
import type { ClientRoles, Subscriber } from './clientRoles';
import { SNAPSHOT_PREFIX, type SnapshotView } from '../common/emulatorProtocol';
import type { SessionEmulator, SnapshotResult } from '../sessions/sessionEmulator';

export enum SnapshotTiming {
  /** A snapshot waits at most this long for a synchronized update (DEC 2026) to end. */
  SyncWaitMs = 1000,
  /**
   * After a screenFirst attach's screen, the history waits this long: a client that parsed both in
   * one go would show nothing until the whole history was parsed (VS Code's renderer did).
   */
  HistoryAfterScreenMs = 100,
  /**
   * ...and until the subscriber's keys paused this long: the history starts with a reset, and VS Code's local
   * echo drops the guesses of keys whose echo had not come yet at a reset; it then guessed the next keys at
   * the wrong cells and wrote their echo over the keys before (docs/vscode.md, "Local echo").
   */
  HistoryAfterKeysMs = 400,
}

/**
 * full: screen, scrollback and modes (attach, resync); screen: the visible screen only, and the
 * history soon after; screen-only: the same without the history; history: the full snapshot that
 * follows a screen snapshot, wrapped in a synchronized update.
 */
export type SnapshotKind = 'full' | 'screen' | 'screen-only' | 'history';

const SYNC_START = '\x1b[?2026h';
const SYNC_END = '\x1b[?2026l';

const viewOf = (kind: SnapshotKind): SnapshotView => (kind === 'screen' || kind === 'screen-only' ? 'screen' : 'full');

/**
 * The last snapshot of each view and the emulator state it shows (its key). Serializing a full
 * scrollback costs ~100 ms of CPU, and a window reload re-attaches sessions that have not changed:
 * the worker renders a view again only when its key changed.
 */
type SnapshotCache = Partial<Record<SnapshotView, { key: string; bytes: Buffer }>>;

export class SnapshotQueue implements IDisposable {
  private readonly awaiting = new Map<Subscriber, SnapshotKind>();
  private deadline = 0;
  /** A snapshot was asked of the emulator and not answered yet. */
  private asking = false;
  private readonly historyFollowUps = new Set<NodeJS.Timeout>();
  /** When each subscriber last sent keys (ms since the epoch). */
  private readonly keysAt = new WeakMap<Subscriber, number>();
  private readonly cache: SnapshotCache = {};
  private disposed = false;

  constructor(
    private readonly emulator: SessionEmulator,
    private readonly roles: ClientRoles,
    /** Output after a snapshot's cut goes the way of the rest of the stream (WatcherRedraw). */
    private readonly stream: (subscriber: Subscriber, chunk: Buffer) => void,
    /** How a screen's history is asked for: the session's way, which holds it while the channel is hidden. */
    private readonly follow: (subscriber: Subscriber, kind: 'history') => void = (s, kind) => this.request(s, kind),
  ) {}

  get pending(): boolean {
    return this.awaiting.size > 0;
  }

  /** Queues a snapshot for `subscriber`; it gets the stream from exactly the snapshot's point on. */
  request(subscriber: Subscriber, kind: SnapshotKind): void {
    subscriber.phase = 'pending';
    if (this.awaiting.size === 0) this.deadline = Date.now() + SnapshotTiming.SyncWaitMs;
    this.awaiting.set(subscriber, kind);
    this.ask();
  }

  /** A detached subscriber gets nothing more. */
  forget(...subscribers: Subscriber[]): void {
    for (const subscriber of subscribers) this.awaiting.delete(subscriber);
  }

  private ask(): void {
    if (this.asking || this.awaiting.size === 0 || this.disposed) return;
    this.asking = true;
    const views = [...new Set([...this.awaiting.values()].map(viewOf))];
    const have = { screen: this.cache.screen?.key, full: this.cache.full?.key };
    this.emulator.snapshot({ views, have, syncDeadline: this.deadline }, (result) => {
      this.asking = false;
      if (this.disposed) return;
      this.send(result);
      this.ask();
    });
  }

  /** Sends the snapshot to each waiting subscriber it serves, then the chunks after its cut. */
  private send(result: SnapshotResult | undefined): void {
    for (const [view, rendered] of Object.entries(result?.views ?? {}))
      this.cache[view as SnapshotView] = {
        key: result!.key,
        bytes: Buffer.from(rendered.buffer, rendered.byteOffset, rendered.byteLength),
      };
    for (const [subscriber, kind] of [...this.awaiting]) {
      const view = viewOf(kind);
      const cached = this.cache[view];
      let bytes: Buffer;
      if (!result)
        bytes = Buffer.from(SNAPSHOT_PREFIX); // the worker failed it: a reset screen, then the stream
      else if (cached?.key === result.key) bytes = cached.bytes;
      else continue; // asked for after this snapshot was: the next one serves it
      this.awaiting.delete(subscriber);
      if (kind === 'history') {
        subscriber.sendEvent({ type: 'history', channel: subscriber.channel });
        bytes = this.historySnapshot(bytes, result?.synchronizedUpdate ?? false);
      }
      subscriber.sendSnapshot(bytes);
      for (const chunk of this.emulator.unparsed) this.stream(subscriber, chunk);
      subscriber.phase = 'live';
      // The screen is on its way; the history follows once the client had time to show it.
      if (kind === 'screen') this.followWithHistory(subscriber);
    }
  }

  /** `subscriber` sent keys: its history, if one is to follow, waits for them to pause. */
  typed(subscriber: Subscriber): void {
    this.keysAt.set(subscriber, Date.now());
  }

  private followWithHistory(subscriber: Subscriber, delayMs: number = SnapshotTiming.HistoryAfterScreenMs): void {
    const followUp = setTimeout(() => {
      this.historyFollowUps.delete(followUp);
      if (!this.roles.all.has(subscriber) || this.awaiting.has(subscriber)) return;
      const typing = (this.keysAt.get(subscriber) ?? 0) + SnapshotTiming.HistoryAfterKeysMs - Date.now();
      if (typing > 0) this.followWithHistory(subscriber, typing);
      else this.follow(subscriber, 'history');
    }, delayMs);
    this.historyFollowUps.add(followUp);
  }

  /**
   * The full snapshot inside a synchronized update (DEC 2026): the receiver keeps showing the
   * screen it has until the rebuilt one is complete, rather than the reset and the history scrolling by.
   */
  private historySnapshot(full: Buffer, synchronizedUpdate: boolean): Buffer {
    return Buffer.concat([
      Buffer.from(SNAPSHOT_PREFIX + SYNC_START),
      full.subarray(SNAPSHOT_PREFIX.length),
      Buffer.from(synchronizedUpdate ? '' : SYNC_END),
    ]);
  }

  dispose(): void {
    this.disposed = true;
    // Their snapshot will not come: they count in their connection's pace while they await one.
    for (const subscriber of this.awaiting.keys()) subscriber.phase = 'live';
    this.awaiting.clear();
    for (const followUp of this.historyFollowUps) clearTimeout(followUp);
    this.historyFollowUps.clear();
  }
}
