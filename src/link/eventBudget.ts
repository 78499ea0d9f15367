// How many session events a window takes from one host a second. A host that floods them (a hostile far end, or
// a daemon gone wrong) must not keep the window busy checking and applying each: past the budget they are dropped
// and counted, and once the flood is over the owner asks for the session list again (one request for all that
// was dropped). The log has one line when a flood starts and one with its count when it ends.
import { type IDisposable, MutableDisposable, timeout } from '../base/disposable';

/** Events a second from one host: 60 busy sessions' activity, idle, attention and exit events fit many times. */
export const HOST_EVENTS_PER_SECOND = 500;

const WINDOW_MS = 1000;

export interface EventBudgetOwner {
  /** One line for the log: a flood started, or ended with its count. */
  log(line: string): void;
  /** A flood ended: what was dropped is to be read again (the session list). */
  ended(dropped: number): void;
}

export class EventBudget implements IDisposable {
  private windowStart = -Infinity;
  private inWindow = 0;
  /** Dropped in this flood, and in the current window of it. */
  private dropped = 0;
  private droppedInWindow = 0;
  private floodStart = 0;
  private readonly watch = new MutableDisposable();

  constructor(
    private readonly what: string,
    private readonly owner: EventBudgetOwner,
    private readonly perSecond = HOST_EVENTS_PER_SECOND,
  ) {}

  /** Whether one more event is taken now; one that is not is counted. */
  admit(now = Date.now()): boolean {
    if (now - this.windowStart >= WINDOW_MS) {
      this.windowStart = now;
      this.inWindow = 0;
    }
    if (++this.inWindow <= this.perSecond) return true;
    if (this.dropped === 0) {
      this.floodStart = now;
      this.owner.log(`${this.what} sends more than ${this.perSecond} events a second: the rest are dropped`);
      this.check();
    }
    this.dropped++;
    this.droppedInWindow++;
    return false;
  }

  /** Each window of a flood: one that dropped nothing ends it. */
  private check(): void {
    this.watch.value = timeout(WINDOW_MS, () => {
      if (this.droppedInWindow > 0) {
        this.droppedInWindow = 0;
        return this.check();
      }
      const dropped = this.dropped;
      const seconds = ((Date.now() - this.floodStart) / 1000).toFixed(1);
      this.dropped = 0;
      this.owner.log(`${this.what}: its flood of events ended after ${seconds} s, ${dropped} dropped`);
      this.owner.ended(dropped);
    });
  }

  dispose(): void {
    this.watch.dispose();
  }
}
