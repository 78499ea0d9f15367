// Who waits on one session (`holdfast wait`) and for what: its exit, a quiet spell, text on its
// screen, or an attention state (waiting for the user, done). Each waiter ends once: met (true),
// timed out, given up at exit or disposed (false), or failed (a text check's `limit` or bad pattern).
// Text is matched off the main thread (textWorkers.ts), one check per waiter at a time.
import type { IDisposable } from '../../base/disposable';
import type { AttentionState } from '../../protocol/messages';
import type { SessionTextCopy } from '../common/sessionText';

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
  | { kind: 'text'; history: boolean; matches(text: SessionTextCopy): Promise<boolean> }
  | { kind: 'attention'; states: AttentionState[] };

/** What the waits read of the session's emulator. */
export interface WaitedEmulator {
  readonly backlog: number;
  textCopy(history: boolean): Promise<SessionTextCopy>;
}

/** What the waits read of their session. */
export interface WaitedSession {
  readonly isRunning: boolean;
  readonly lastOutputAt: number;
  readonly attentionState: AttentionState;
}

interface Waiter {
  readonly condition: WaitFor;
  resolve: (met: boolean) => void;
  fail(err: Error): void;
  /** A text check of this waiter is running. */
  checking?: boolean;
  /** The screen changed (or the program exited) while it ran: check again. */
  checkAgain?: boolean;
  /** A text check has answered: the pattern is known to compile. */
  checked?: boolean;
  /** Its time ran out before the first check answered: that answer ends it (a bad pattern fails it). */
  timedOut?: boolean;
}

export class SessionWaits implements IDisposable {
  private readonly waiters = new Set<Waiter>();
  private textCheckTimer: NodeJS.Timeout | undefined;
  /** The program exited: a text check that finds nothing ends its waiter. */
  private exited = false;

  constructor(
    private readonly session: WaitedSession,
    private readonly emulator: WaitedEmulator,
  ) {}

  get pending(): boolean {
    return this.waiters.size > 0;
  }

  /** Resolves true when the condition holds, false on timeout or disposal; rejects when a text check fails. */
  wait(condition: WaitFor, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const end = () => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
      };
      const waiter: Waiter = {
        condition,
        resolve: (met) => {
          end();
          resolve(met);
        },
        fail: (err) => {
          end();
          reject(err);
        },
      };
      if (condition.kind !== 'text' && this.isMet(condition)) return resolve(true);
      this.waiters.add(waiter);
      // A text waiter's pattern is compiled in the worker at its first check: until that answers, a
      // timeout could hide a bad pattern behind `met: false` (a new worker takes 0.5-3 s to start).
      timer = setTimeout(() => {
        if (condition.kind === 'text' && !waiter.checked) waiter.timedOut = true;
        else waiter.resolve(false);
      }, timeoutMs);
      if (condition.kind === 'idle') this.armIdleWait(waiter);
      if (condition.kind === 'text') this.checkText(waiter);
    });
  }

  /** Matches the waiter's pattern against the text now, in a worker; again when it changed meanwhile. */
  private checkText(waiter: Waiter): void {
    if (waiter.condition.kind !== 'text') return;
    if (waiter.checking) {
      waiter.checkAgain = true;
      return;
    }
    waiter.checking = true;
    waiter.checkAgain = false;
    const condition = waiter.condition;
    this.emulator
      .textCopy(condition.history)
      .then((text) => condition.matches(text))
      .then(
        (met) => {
          waiter.checking = false;
          waiter.checked = true;
          if (!this.waiters.has(waiter)) return;
          if (met) waiter.resolve(true);
          else if (waiter.timedOut) waiter.resolve(false);
          else if (waiter.checkAgain) this.checkText(waiter);
          // Text that is not there now never will be.
          else if (this.exited) waiter.resolve(false);
        },
        (err: Error) => {
          waiter.checking = false;
          if (this.waiters.has(waiter)) waiter.fail(err);
        },
      );
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
      case 'text':
        // Checked in a worker (checkText).
        return false;
    }
  }

  /** Ends the waiters whose condition holds now; text waiters look again. */
  check(): void {
    for (const waiter of [...this.waiters])
      if (waiter.condition.kind === 'text') this.checkText(waiter);
      else if (this.isMet(waiter.condition)) waiter.resolve(true);
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
    this.exited = true;
    // The text waiters' last check: one that finds nothing ends its waiter (checkText).
    this.check();
  }

  dispose(): void {
    clearTimeout(this.textCheckTimer);
    for (const waiter of [...this.waiters]) waiter.resolve(false);
  }
}
