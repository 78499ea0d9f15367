// Who is attached to a session and in what role. The input owner is decided here: one at a time,
// the newest claimant wins, the previous owner is told why and stays on as a watcher.
import type { DaemonEvent, Role } from '../../protocol/messages';

/** One attached channel of one connection. */
export interface Subscriber {
  readonly channel: number;
  role: Role;
  /** 'pending' until its snapshot is sent; only 'live' subscribers get the output stream. */
  phase: 'pending' | 'live';
  /** Its client has 8 MiB unread: it is sent a fresh snapshot once it reads (connection.ts), not before. */
  readonly lagging: boolean;
  /** Output was dropped for it: the snapshot it gets when it reads again replaces what it missed. */
  stale: boolean;
  sendSnapshot(bytes: Buffer): void;
  sendOutput(bytes: Buffer): void;
  sendEvent(event: DaemonEvent): void;
}

export class ClientRoles {
  private readonly subscribers = new Set<Subscriber>();
  private currentOwner: Subscriber | undefined;

  get owner(): Subscriber | undefined {
    return this.currentOwner;
  }

  get all(): ReadonlySet<Subscriber> {
    return this.subscribers;
  }

  counts(): { owners: number; watchers: number } {
    const owners = this.currentOwner ? 1 : 0;
    return { owners, watchers: this.subscribers.size - owners };
  }

  add(subscriber: Subscriber): void {
    this.subscribers.add(subscriber);
    if (subscriber.role === 'owner') this.claim(subscriber, 'another client attached as input owner');
  }

  /** Makes `subscriber` the input owner; the previous owner becomes a watcher and is told why. */
  claim(subscriber: Subscriber, reason: string): void {
    const previous = this.currentOwner;
    subscriber.role = 'owner';
    this.currentOwner = subscriber;
    if (previous && previous !== subscriber) {
      previous.role = 'watcher';
      previous.sendEvent({ type: 'role', channel: previous.channel, role: 'watcher', reason });
    }
  }

  /** Removes a subscriber; an owner that leaves leaves no owner (its size stays). */
  remove(...subscribers: Subscriber[]): void {
    for (const subscriber of subscribers) {
      this.subscribers.delete(subscriber);
      if (this.currentOwner === subscriber) this.currentOwner = undefined;
    }
  }
}
