// Who waits on one session (`holdfast wait`) and for what: its exit, a quiet spell, text on its
// screen, or an attention state (waiting for the user, done). Each waiter ends once: met (true),
// or timed out, given up at exit or disposed (false).
import type { IDisposable } from '../protocol/disposable';
import type { AttentionState } from '../protocol/messages';
import type { TextPattern } from '../protocol/textPattern';
import type { Emulator } from './emulator';

export enum WaitTiming {
  /** Text waiters re-check the screen at most this often. */
  TextCheckMs = 50,
  /** An idle waiter whose quiet spell is (nearly) over looks again after at least this long. */
  IdleRecheckMs = 10,
}

/** A wait condition of the protocol with its text pattern compiled (the daemon refuses a bad one). */
export type WaitFor =
  | { kind: 'exit' }
  | { kind: 'idle'; ms: number }
  | { kind: 'text'; pattern: TextPattern; history: boolean }
  | { kind: 'attention'; states: AttentionState[] };

/** What the waits read of their session. */
export interface WaitedSession {
  readonly isRunning: boolean;
  readonly lastOutputAt: number;
  readonly attentionState: AttentionState;
}

interface Waiter {
  readonly condition: WaitFor;
  resolve(met: boolean): void;
}

export class SessionWaits implements IDisposable {
  private readonly waiters = new Set<Waiter>();
  private textCheckTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly session: WaitedSession,
    private readonly emulator: Emulator,
  ) {}

  get pending(): boolean {
    return this.waiters.size > 0;
  }

  /** Resolves true when the condition holds, false on timeout or disposal. */
  wait(condition: WaitFor, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter: Waiter = {
        condition,
        resolve: (met) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(met);
        },
      };
      if (this.isMet(condition)) return resolve(true);
      this.waiters.add(waiter);
      timer = setTimeout(() => waiter.resolve(false), timeoutMs);
      if (condition.kind === 'idle') this.armIdleWait(waiter);
    });
  }

  private armIdleWait(waiter: Waiter): void {
    if (waiter.condition.kind !== 'idle') return;
    const remaining = waiter.condition.ms - (Date.now() - this.session.lastOutputAt);
    const handle = setTimeout(
      () => {
        if (!this.waiters.has(waiter)) return;
        if (this.isMet(waiter.condition)) waiter.resolve(true);
        else this.armIdleWait(waiter);
      },
      Math.max(remaining, WaitTiming.IdleRecheckMs),
    );
    const resolve = waiter.resolve;
    waiter.resolve = (met) => {
      clearTimeout(handle);
      resolve(met);
    };
  }

  private isMet(condition: WaitFor): boolean {
    switch (condition.kind) {
      case 'exit':
        return !this.session.isRunning;
      case 'idle':
        return this.emulator.backlog === 0 && Date.now() - this.session.lastOutputAt >= condition.ms;
      case 'attention':
        return condition.states.includes(this.session.attentionState);
      case 'text': {
        const lines = this.emulator.lines(condition.history ? Infinity : 0);
        return lines.some((line) => condition.pattern.test(line));
      }
    }
  }

  /** Ends the waiters whose condition holds now. */
  check(): void {
    for (const waiter of [...this.waiters]) if (this.isMet(waiter.condition)) waiter.resolve(true);
  }

  /** The session's attention changed: its waiters look again. */
  attentionChanged(): void {
    for (const waiter of [...this.waiters])
      if (waiter.condition.kind === 'attention' && this.isMet(waiter.condition)) waiter.resolve(true);
  }

  /** The screen changed: text waiters look again, at most every TextCheckMs. */
  scheduleTextCheck(): void {
    if (this.textCheckTimer) return;
    this.textCheckTimer = setTimeout(() => {
      this.textCheckTimer = undefined;
      this.check();
    }, WaitTiming.TextCheckMs);
  }

  /** The program exited and its last byte is parsed: the screen cannot change any more. */
  onExit(): void {
    this.check();
    // Text that is not there now never will be.
    for (const waiter of [...this.waiters]) if (waiter.condition.kind === 'text') waiter.resolve(false);
  }

  dispose(): void {
    clearTimeout(this.textCheckTimer);
    for (const waiter of [...this.waiters]) waiter.resolve(false);
  }
}
