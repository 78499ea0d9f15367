// Watches a session's screen, in its emulator's worker, for the permission prompt of the agent it runs
// (agents/permissionPrompt.ts), for the agents whose hooks do not say they wait at one. Once output
// has been quiet for a moment the screen is checked: a prompt on it is told (again after each change,
// so a session that was typed into at its prompt is waiting again), and so is its end. Sessions whose
// agent has no known prompt have no watch: their screens are never checked.
import type { IDisposable } from '../../base/disposable';
import { findPermissionPrompt, promptArea, promptAreaDigest } from '../../agents/permissionPrompt';
import type { ScreenPrompt } from '../sessions/attention';
import { promptReason } from '../common/attentionReason';
import type { Emulator } from './emulator';

export enum PromptWatchTiming {
  /** No output for this long before a prompt is told: one being drawn, or a busy program's screen, is not. */
  QuietMs = 500,
}

export class PromptWatch implements IDisposable {
  private timer: NodeJS.Timeout | undefined;
  private changedAt = 0;
  /** The prompt last told, until its end is told. */
  private shown: ScreenPrompt | undefined;

  constructor(
    private readonly profile: string,
    private readonly emulator: Pick<Emulator, 'lines' | 'backlog' | 'inSynchronizedUpdate'>,
    private readonly tell: (prompt: ScreenPrompt | undefined) => void,
  ) {}

  /** The screen changed (output parsed, a resize): checked once it has been quiet. */
  changed(): void {
    this.changedAt = Date.now();
    this.timer ??= setTimeout(() => this.check(), PromptWatchTiming.QuietMs);
  }

  /**
   * Quiet: the prompt on the screen, or its end, is told. Not quiet yet: checked again when it may be,
   * and a prompt told is checked now, so that its end is seen while the agent goes on drawing.
   */
  private check(): void {
    this.timer = undefined;
    const quietFor = Date.now() - this.changedAt;
    const emulator = this.emulator;
    const quiet = quietFor >= PromptWatchTiming.QuietMs && emulator.backlog === 0 && !emulator.inSynchronizedUpdate;
    if (!quiet) this.timer = setTimeout(() => this.check(), Math.max(PromptWatchTiming.QuietMs - quietFor, 50));
    if (!quiet && !this.shown) return;
    const prompt = this.find();
    if (prompt && !quiet) return;
    if (prompt || this.shown) this.tell(prompt);
    this.shown = prompt;
  }

  private find(): ScreenPrompt | undefined {
    const rows = this.emulator.lines(0);
    const prompt = findPermissionPrompt(this.profile, rows);
    if (!prompt) return undefined;
    return {
      question: prompt.question,
      reason: promptReason(rows, prompt),
      area: promptAreaDigest(promptArea(rows, prompt)),
    };
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
