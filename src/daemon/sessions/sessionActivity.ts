// A session's activity: bursts of output and the quiet after them ('activity' and 'idle' events,
// one timer per quiet spell, not per chunk), bells, and from all of these and the agent's hooks
// its attention (attention.ts), pushed as 'attention' events (again with a reason, when
// attentionReasons.ts finds why it waits).
import type { IDisposable } from '../../base/disposable';
import type { AttentionState, DaemonEvent, SessionAttention } from '../../protocol/messages';
import { Attention, type PromptMark } from './attention';
import type { AttentionSignal } from '../common/emulatorProtocol';
import { onlyTerminalReports } from './terminalReports';

export enum SessionTiming {
  /** No output for this long: the session is idle. */
  IdleAfterMs = 2000,
  /**
   * Bells closer together than this are one ring: one 'bell' event, however many BELs (500 KB of
   * BEL sent 500,000 events to a subscriber).
   */
  BellQuietMs = 500,
  /**
   * At most one 'attention' event per session this often, the last state winning: a loop of
   * OSC 133;C and BEL switched a session into "waiting" 20,000 times in 5 s.
   */
  AttentionQuietMs = 400,
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
  /** The attention last told, when, and the timer that tells a later change at the end of the quiet period. */
  private told: SessionAttention;
  /** What `told` was made from, before a reason was added. */
  private toldFrom: SessionAttention;
  private toldAt = 0;
  private attentionTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly host: ActivityHost,
    createdAt: number,
  ) {
    this.lastOutput = createdAt;
    this.attention = new Attention(createdAt, () => this.attentionMoved());
    this.told = this.toldFrom = this.attention.value;
  }

  /** Tells a change now, or at the end of the quiet period after the last one told (the state then). */
  private attentionMoved(): void {
    if (this.attentionTimer) return;
    const wait = this.toldAt + SessionTiming.AttentionQuietMs - Date.now();
    if (wait <= 0) return this.tellAttention();
    this.attentionTimer = setTimeout(() => {
      this.attentionTimer = undefined;
      this.tellAttention();
    }, wait);
  }

  private tellAttention(): void {
    const attention = this.attention.value;
    if (attention === this.toldFrom) return;
    this.told = this.toldFrom = attention;
    this.toldAt = Date.now();
    this.host.fire({ type: 'attention', id: this.host.id, attention });
    this.host.attentionChanged();
  }

  /**
   * Why the attention told since `since` is waiting or done (attentionReasons.ts): told at once, if that
   * attention still stands; a transcript's reason is not replaced by the screen's. (Whether a permission
   * prompt is on the screen is its watch's word, through the attention: promptWatch.ts.)
   */
  explain(since: number, reason: string | undefined, from: 'transcript' | 'screen'): void {
    const told = this.told;
    if (told.since !== since || (told.state !== 'waiting' && told.state !== 'done')) return;
    const next: SessionAttention = { ...told };
    if (reason !== undefined && reason !== told.reason && !(from === 'screen' && told.reasonFrom === 'transcript')) {
      next.reason = reason;
      next.reasonFrom = from;
    }
    if (next.reason === told.reason) return;
    this.told = next;
    this.host.fire({ type: 'attention', id: this.host.id, attention: this.told });
  }

  /** As a previous daemon had it (a succession): nothing is told, it is what clients knew. */
  restore(attention: SessionAttention, lastOutputAt: number, bellAt: number): void {
    this.attention.restore(attention);
    this.told = this.toldFrom = attention;
    this.lastOutput = lastOutputAt;
    this.bell = bellAt;
  }

  get lastOutputAt(): number {
    return this.lastOutput;
  }

  get bellAt(): number {
    return this.bell;
  }

  /** As last told in an 'attention' event (a change in its quiet period is told at its end). */
  get attentionNow(): SessionAttention {
    return this.told;
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
    const now = Date.now();
    const quietBefore = now - this.bell >= SessionTiming.BellQuietMs;
    this.bell = now;
    if (quietBefore) this.host.fire({ type: 'bell', id: this.host.id, at: now });
    this.attention.bell(now);
  }

  prompt(mark: PromptMark): void {
    this.attention.prompt(mark, Date.now());
  }

  /** What the emulator saw: a bell, a prompt mark, a permission prompt on the screen or its end. */
  signal(signal: AttentionSignal): void {
    if (signal.kind === 'bell') this.rang();
    else if (signal.kind === 'mark') this.prompt(signal.mark);
    else this.attention.permissionPrompt(signal.prompt, Date.now());
  }

  /** Input reached the program: typing, unless it is only the terminal's focus or mouse reports. */
  input(data: string | Buffer): void {
    this.attention.input(Date.now(), !onlyTerminalReports(data));
  }

  /** The agent's hook said what it is doing (`permission`: that it asks for a permission). */
  report(state: AttentionState, permission = false): void {
    this.attention.report(state, Date.now(), permission);
  }

  /** Whether its agent's own hook said it asks for the prompt whose block has this digest (attention.ts). */
  hookAsksFor(area: string): boolean {
    return this.attention.hookAsksFor(area);
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
    clearTimeout(this.attentionTimer);
  }
}
