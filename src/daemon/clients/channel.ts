// An attached channel of a client connection: a subscriber of one session, which sends its output,
// snapshots and events through the connection, and counts in the connection's pace while it waits
// for a snapshot.
import { FrameKind } from '../../protocol/frame';
import type { DaemonEvent, Role } from '../../protocol/messages';
import type { Subscriber } from './clientRoles';
import type { ClientConnection } from './connection';
import type { Session } from '../sessions/session';

/** An attached channel: a subscriber of one session. */
export class Channel implements Subscriber {
  private awaiting = false;
  /** Output was dropped for this channel; it gets a fresh snapshot once the socket drains. */
  stale = false;

  constructor(
    private readonly connection: ClientConnection,
    readonly channel: number,
    readonly session: Session,
    public role: Role,
  ) {
    this.phase = 'pending';
  }

  /** Waiting for a snapshot: counted in its connection's pace until it is sent (or the channel goes). */
  get phase(): 'pending' | 'live' {
    return this.awaiting ? 'pending' : 'live';
  }

  set phase(phase: 'pending' | 'live') {
    if ((phase === 'pending') === this.awaiting) return;
    this.awaiting = phase === 'pending';
    this.connection.snapshotAwaited(this.awaiting);
  }

  get lagging(): boolean {
    return this.connection.isBehind;
  }

  sendSnapshot(bytes: Buffer): void {
    this.stale = false;
    this.connection.sendRaw(FrameKind.Snapshot, this.channel, bytes);
  }

  sendOutput(bytes: Buffer): void {
    if (this.stale || this.connection.isBehind) {
      this.stale = true;
      return;
    }
    this.connection.sendRaw(FrameKind.Output, this.channel, bytes);
  }

  sendEvent(event: DaemonEvent): void {
    this.connection.sendEvent(event);
  }
}

/** Channels leave, each session told once: one event per channel held every client 0.2-0.6 s at 3,072. */
export function detachAll(channels: Iterable<Channel>): void {
  const bySession = new Map<Session, Channel[]>();
  for (const attached of channels) {
    attached.phase = 'live'; // awaits no snapshot any more
    const ofSession = bySession.get(attached.session);
    if (ofSession) ofSession.push(attached);
    else bySession.set(attached.session, [attached]);
  }
  for (const [session, ofSession] of bySession) session.detach(...ofSession);
}
