// Whether a session needs you: running, waiting for input, done (its turn or command ended) or
// idle. The daemon decides it once, from what it sees, so `holdfast list`, the sidebar, the wall
// and MCP clients all say the same. Signals, strongest first:
//   - an agent's own hook (`holdfast notify`): its word stands until the next hook, or until you
//     type into a session that was waiting;
//   - shell prompt marks (OSC 133: C a command starts, D it ended, A a prompt is drawn);
//   - a bell, OSC 9 or OSC 777 notify: waiting, until a new burst of output answers it;
//   - a permission prompt of its agent on its screen (promptWatch.ts): waiting, until it is gone;
//   - output: running while it flows, idle after a quiet spell.
import type { AttentionSource, AttentionState, SessionAttention } from '../protocol/messages';

/** Output this long after a bell, in the same burst, ends the wait (a prompt's own redraw is shorter). */
export const OUTPUT_AFTER_BELL_MS = 1000;

/** OSC 133 marks (FinalTerm's semantic prompts), as shells with shell integration print them. */
export type PromptMark = 'A' | 'B' | 'C' | 'D';

/** A permission prompt on the screen: its question, and why the session waits (it and what it asks about). */
export interface ScreenPrompt {
  question: string;
  reason: string;
}

export class Attention {
  private current: SessionAttention;
  /** An agent reported through a hook: output and quiet no longer move the state. */
  private hooked = false;
  /** The shell prints prompt marks: quiet during a command is still running. */
  private marked = false;

  constructor(
    now: number,
    private readonly onChange: (attention: SessionAttention) => void,
  ) {
    this.current = { state: 'idle', since: now, source: 'output' };
  }

  /** As a previous daemon had it (a succession): a hook's or the prompt marks' word still stands. */
  restore(value: SessionAttention): void {
    this.current = value;
    this.hooked = value.source === 'hook';
    this.marked = value.source === 'prompt';
  }

  get value(): SessionAttention {
    return this.current;
  }

  /** The first output after a quiet spell. */
  burst(at: number): void {
    if (this.hooked || this.atPermissionPrompt) return;
    if (this.current.source === 'bell' && this.current.state === 'waiting') {
      if (at > this.current.since) this.set('running', at, 'output');
      return;
    }
    if (this.marked) return;
    if (this.current.state !== 'running') this.set('running', at, 'output');
  }

  /** Output stopped `lastOutputAt` ago for long enough to call the session quiet. */
  quiet(at: number, lastOutputAt: number): void {
    if (this.hooked || this.marked) return;
    if (this.current.state === 'waiting' && this.current.source === 'bell') {
      // The burst that rang went on well past the bell: the program moved on.
      if (lastOutputAt - this.current.since > OUTPUT_AFTER_BELL_MS) this.set('idle', at, 'output');
      return;
    }
    if (this.current.state === 'running') this.set('idle', at, 'output');
  }

  /** BEL, OSC 9 or OSC 777 notify: the program asks for the user. */
  bell(at: number): void {
    if (this.current.state !== 'waiting') this.set('waiting', at, 'bell');
  }

  prompt(mark: PromptMark, at: number): void {
    this.marked = true;
    if (this.hooked) return;
    if (mark === 'C') this.set('running', at, 'prompt');
    else if (mark === 'D') this.set('done', at, 'prompt');
    else if (mark === 'A' && this.current.state === 'running') this.set('done', at, 'prompt');
  }

  /** An agent's hook said what it is doing. */
  report(state: AttentionState, at: number): void {
    this.hooked = true;
    // Waiting at a prompt seen on the screen already: the same wait, which knows more.
    if (state === 'waiting' && this.atPermissionPrompt) return;
    this.set(state, at, 'hook');
  }

  /**
   * Its screen shows a permission prompt of its agent, or (undefined) no longer does: waiting at it
   * whatever a hook said before (the agents whose hook does not tell it), then running. A hook that
   * said it waits (Claude Code's) is the same wait: it stands, and the screen's reading marks it.
   */
  permissionPrompt(prompt: ScreenPrompt | undefined, at: number): void {
    if (!prompt) {
      if (this.atPermissionPrompt) this.set('running', at, 'screen');
      return;
    }
    if (this.current.state === 'waiting' && this.current.source === 'hook') return;
    const { reason } = prompt;
    const same = this.atPermissionPrompt && this.current.reason === reason;
    if (same && this.current.permissionPrompt) return;
    const since = same ? this.current.since : at;
    this.current = { state: 'waiting', since, source: 'screen', reason, reasonFrom: 'screen', permissionPrompt: true };
    this.onChange(this.current);
  }

  private get atPermissionPrompt(): boolean {
    return this.current.state === 'waiting' && this.current.source === 'screen';
  }

  /** Someone typed into the session: a question it waited on is being answered. */
  input(at: number): void {
    if (this.current.state === 'waiting') this.set('running', at, 'input');
  }

  private set(state: AttentionState, at: number, source: AttentionSource): void {
    if (state === this.current.state && source === this.current.source) return;
    this.current = { state, since: at, source };
    this.onChange(this.current);
  }
}
