// How often one session may notify: at most once per quiet period, however often its state flips
// (a program looping on BEL or OSC 133 could otherwise raise a notification a few times a second).
// Plain Node, unit-tested.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).

/** A session notified this recently is not notified again. */
export const NOTIFICATION_QUIET_MS = 30_000;

export class NotificationPacer {
  private readonly lastNotified = new Map<string, number>();

  constructor(private readonly quietMs = NOTIFICATION_QUIET_MS) {}

  /** Whether `id` may notify at `now`; if so, its quiet period starts now. */
  take(id: string, now = Date.now()): boolean {
    const last = this.lastNotified.get(id);
    if (last !== undefined && now - last < this.quietMs) return false;
    this.lastNotified.set(id, now);
    return true;
  }

  /** Forgets sessions that are gone, so the map holds only live ones. */
  keepOnly(ids: ReadonlySet<string>): void {
    for (const id of this.lastNotified.keys()) if (!ids.has(id)) this.lastNotified.delete(id);
  }
}
