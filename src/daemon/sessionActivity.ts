// A session's activity: bursts of output and the quiet after them ('activity' and 'idle' events,
// one timer per quiet spell, not per chunk), bells, and from all of these and the agent's hooks
// its attention (attention.ts), pushed as 'attention' events.
import { IDisposable } from '../protocol/disposable';
import type { AttentionState, DaemonEvent, SessionAttention } from '../protocol/messages';
import { Attention, PromptMark } from './attention';

export enum SessionTiming {
  /** No output for this long: the session is idle. */
  IdleAfterMs = 2000,
}

export interface ActivityHost {
  readonly id: string;
  fire(event: DaemonEvent): void;
  /** Attention changed (after its 'attention' event). */
  attentionChanged(): void;
  /** A quiet spell began (the session compacts its history and checks its waits). */
  quiet(): void;
}

export class SessionActivity implements IDisposable {
  private lastOutput: number;
  private bell = 0;
  private active = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly attention: Attention;

  constructor(
    private readonly host: ActivityHost,
    createdAt: number,
  ) {
    this.lastOutput = createdAt;
    this.attention = new Attention(createdAt, (attention) => {
      host.fire({ type: 'attention', id: host.id, attention });
      host.attentionChanged();
    });
  }

  get lastOutputAt(): number {
    return this.lastOutput;
  }

  get bellAt(): number {
    return this.bell;
  }

  get attentionNow(): SessionAttention {
    return this.attention.value;
  }

  output(): void {
    this.lastOutput = Date.now();
    if (this.active) return;
    this.active = true;
    this.host.fire({ type: 'activity', id: this.host.id, at: this.lastOutput });
    this.attention.burst(this.lastOutput);
    this.armIdleTimer(SessionTiming.IdleAfterMs);
  }

  rang(): void {
    this.bell = Date.now();
    this.host.fire({ type: 'bell', id: this.host.id, at: this.bell });
    this.attention.bell(this.bell);
  }

  prompt(mark: PromptMark): void {
    this.attention.prompt(mark, Date.now());
  }

  /** Someone typed into the session. */
  input(): void {
    this.attention.input(Date.now());
  }

  /** The agent's hook said what it is doing. */
  report(state: AttentionState): void {
    this.attention.report(state, Date.now());
  }

  private armIdleTimer(ms: number): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      const quiet = Date.now() - this.lastOutput;
      if (quiet < SessionTiming.IdleAfterMs) return this.armIdleTimer(SessionTiming.IdleAfterMs - quiet);
      this.active = false;
      this.idleTimer = undefined;
      this.host.quiet();
      const now = Date.now();
      this.host.fire({ type: 'idle', id: this.host.id, at: now });
      this.attention.quiet(now, this.lastOutput);
    }, ms);
  }

  dispose(): void {
    clearTimeout(this.idleTimer);
  }
}
