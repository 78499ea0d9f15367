// How much of one client's requests the daemon takes in before the others get their turn: 3,000
// resizes sent at once held every other client's `list` for 0.7 s, and clients that asked for 1,024
// snapshots each without reading them, 0.5 s. A connection gets at most FramesPerTurn frames a turn
// of the event loop, at most InFlight requests unanswered and snapshots unsent at once, and none while
// more than QueuedBytes of what it asked for waits unread in its socket. Meanwhile its socket is
// paused: what it sends waits in the kernel's buffer, not the daemon's memory.
import type * as net from 'node:net';
import type { IDisposable } from '../../base/disposable';

export enum PaceLimit {
  /** Frames of one connection taken in one turn of the event loop; then the other connections' turn. */
  FramesPerTurn = 32,
  /** Requests unanswered plus snapshots not yet sent, of one connection (a window reload asks ~20 of each). */
  InFlight = 128,
  /** Bytes queued unread in its socket past which its next request waits (its output has its own bound). */
  QueuedBytes = 8 * 1024 * 1024,
}

export class RequestPace implements IDisposable {
  private frames = 0;
  private inFlight = 0;
  private held = false;
  private nextTurn: NodeJS.Immediate | undefined;
  private disposed = false;

  constructor(
    private readonly socket: net.Socket,
    /** Takes the frames that waited (they are still in the connection's decoder). */
    private readonly goOn: () => void,
  ) {}

  /** Whether the connection's next frame may be taken now; if not, its socket is paused until it may. */
  mayTake(): boolean {
    if (!this.full()) return true;
    if (!this.held) {
      this.held = true;
      this.socket.pause();
    }
    return false;
  }

  /** A frame was taken. */
  took(): void {
    this.frames++;
    this.nextTurn ??= setImmediate(() => {
      this.nextTurn = undefined;
      this.frames = 0;
      this.wake();
    });
  }

  /** A request is being answered, or a snapshot is awaited. */
  started(): void {
    this.inFlight++;
  }

  /** ...and is done. */
  settled(): void {
    this.inFlight--;
    this.wake();
  }

  /** Its socket has written what was queued. */
  drained(): void {
    this.wake();
  }

  private full(): boolean {
    return (
      this.frames >= PaceLimit.FramesPerTurn ||
      this.inFlight >= PaceLimit.InFlight ||
      this.socket.writableLength > PaceLimit.QueuedBytes
    );
  }

  private wake(): void {
    if (!this.held || this.disposed || this.full()) return;
    this.held = false;
    this.socket.resume();
    this.goOn();
  }

  dispose(): void {
    this.disposed = true;
    clearImmediate(this.nextTurn);
  }
}
