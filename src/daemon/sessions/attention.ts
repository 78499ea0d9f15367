// Whether a session needs you: running, waiting for input, done (its turn or command ended) or
// idle. The daemon decides it once, from what it sees, so `holdfast list`, the sidebar, the wall
// and MCP clients all say the same. Signals, strongest first:
//   - an agent's own hook (`holdfast notify`): its word stands until the next hook, or until you
//     type into a session that was waiting (focus and mouse reports are not typing: terminalReports.ts);
//   - shell prompt marks (OSC 133: C a command starts, D it ended, A a prompt is drawn);
//   - a bell, OSC 9 or OSC 777 notify: waiting, until a new burst of output answers it;
//   - a permission prompt of its agent on its screen (promptWatch.ts): waiting, until it is gone;
//   - output: running while it flows, idle after a quiet spell.
import type { AttentionSource, AttentionState, SessionAttention } from '../../protocol/messages';

/** Output this long after a bell, in the same burst, ends the wait (a prompt's own redraw is shorter). */
export const OUTPUT_AFTER_BELL_MS = 1000;

/** OSC 133 marks (FinalTerm's semantic prompts), as shells with shell integration print them. */
export type PromptMark = 'A' | 'B' | 'C' | 'D';

/**
 * A permission prompt on the screen: its question, why the session waits (it and what it asks about), and
 * the digest of its block (promptAreaDigest: which prompt a hook's word is for).
 */
export interface ScreenPrompt {
  question: string;
  reason: string;
  area: string;
}

export class Attention {
  private current: SessionAttention;
  /** An agent reported through a hook: output and quiet no longer move the state. */
  private hooked = false;
  /** The shell prints prompt marks: quiet during a command is still running. */
  private marked = false;
  /** The permission prompt on the screen, as its watch last told it (none since its end or a keystroke). */
  private screenPrompt: ScreenPrompt | undefined;
  /**
   * The agent's hook said it asks for a permission (`notify` with `permission`), for the prompt on the screen
   * then or the next one drawn (`area`, once known); until that prompt ends, a keystroke, or its next report.
   */
  private hookAsks: { area: string | undefined } | undefined;

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
    // The hook's word is for the prompt the successor's watch tells first.
    this.hookAsks = value.hookAgrees ? { area: undefined } : undefined;
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

  /**
   * An agent's hook said what it is doing; `permission`: that it asks for a permission (Claude Code's
   * PermissionRequest, before it draws the prompt, and its permission_prompt notification).
   */
  report(state: AttentionState, at: number, permission = false): void {
    this.hooked = true;
    this.hookAsks = permission ? { area: this.screenPrompt?.area } : undefined;
    // At a prompt seen on the screen already: the same wait, which knows more.
    if (this.screenPrompt && this.current.permissionPrompt && (state === 'waiting' || permission)) return this.mark(at);
    this.set(state, at, 'hook');
    if (state === 'waiting') this.mark(at);
  }

  /**
   * Its screen shows a permission prompt of its agent, or (undefined) no longer does: waiting at it
   * whatever a hook said before (the agents whose hook does not tell it), then running. A hook that
   * said it waits (Claude Code's) is the same wait: it stands, and the prompt marks it.
   */
  permissionPrompt(prompt: ScreenPrompt | undefined, at: number): void {
    this.screenPrompt = prompt;
    if (!prompt) {
      // The prompt the hook's word was for is gone (one it was said before is still to come).
      if (this.hookAsks?.area !== undefined) this.hookAsks = undefined;
      if (this.atPermissionPrompt) this.set('running', at, 'screen');
      else if (this.current.permissionPrompt) this.unmark();
      return;
    }
    if (this.hookAsks && this.hookAsks.area === undefined) this.hookAsks.area = prompt.area;
    this.mark(at);
  }

  /** The digest of the prompt on the screen when the agent's own hook said it asks for it; else undefined. */
  get agreedPrompt(): string | undefined {
    const area = this.screenPrompt?.area;
    return area !== undefined && this.hookAsks?.area === area ? area : undefined;
  }

  /**
   * Whether the agent's own hook asked for the prompt whose block is `area` (read by `answer`): the one it
   * is bound to, or, when its watch has not told one since the hook's word, this one, the first seen.
   */
  hookAsksFor(area: string): boolean {
    if (!this.hookAsks) return false;
    this.hookAsks.area ??= area;
    return this.hookAsks.area === area;
  }

  /** Waiting at the prompt on the screen: a hook's wait keeps its source and start; the same prompt, its start. */
  private mark(at: number): void {
    const prompt = this.screenPrompt;
    if (!prompt) return;
    const hookWait = this.current.state === 'waiting' && this.current.source === 'hook';
    const same = hookWait || (this.atPermissionPrompt && this.current.reason === prompt.reason);
    const next: SessionAttention = {
      state: 'waiting',
      since: same ? this.current.since : at,
      source: hookWait ? 'hook' : 'screen',
      reason: prompt.reason,
      reasonFrom: 'screen',
      permissionPrompt: true,
      ...(this.agreedPrompt !== undefined ? { hookAgrees: true } : {}),
    };
    const now = this.current;
    const unchanged =
      now.state === next.state &&
      now.since === next.since &&
      now.source === next.source &&
      now.reason === next.reason &&
      now.permissionPrompt === next.permissionPrompt &&
      now.hookAgrees === next.hookAgrees;
    if (unchanged) return;
    this.current = next;
    this.onChange(next);
  }

  /** A hook's wait whose prompt went: the wait stands, without the prompt's mark. */
  private unmark(): void {
    const { permissionPrompt: _prompt, hookAgrees: _agrees, ...rest } = this.current;
    this.current = rest;
    this.onChange(rest);
  }

  private get atPermissionPrompt(): boolean {
    return this.current.state === 'waiting' && this.current.source === 'screen';
  }

  /**
   * Someone typed into the session: a question it waited on is being answered, a prompt on its screen too
   * (the watch tells it again if it is still there once the screen changes). Focus and mouse reports
   * (`keys` false) are the terminal's, not an answer.
   */
  input(at: number, keys = true): void {
    if (!keys) return;
    this.screenPrompt = undefined;
    this.hookAsks = undefined;
    if (this.current.state === 'waiting') this.set('running', at, 'input');
  }

  private set(state: AttentionState, at: number, source: AttentionSource): void {
    if (state === this.current.state && source === this.current.source) return;
    this.current = { state, since: at, source };
    this.onChange(this.current);
  }
}
