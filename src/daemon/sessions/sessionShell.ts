// A session's shell as its shell integration tells it (the worker's marks, shellMarks.ts): its state
// for SessionInfo, and `run`: one command typed at its prompt, answered with its exit code and output
// once the shell has reported the command's end and is back at its prompt, in the foreground of its
// terminal (a program's printed marks neither start a run nor end one: foreground.ts).
import { disposeAll, type Emitter, type IDisposable } from '../../base/disposable';
import { type DaemonEvent, ErrorCode, type SessionInfo } from '../../protocol/messages';
import type { RunResult, ShellState } from '../../protocol/shell';
import { printable } from '../../text/printable';
import type { CommandOutput } from '../emulator/commandOutput';
import { DaemonError } from '../daemonError';
import { inForeground } from '../pty/foreground';
import type { SessionEmulator } from './sessionEmulator';

/** What a session gives its shell (session.ts). */
export interface ShellHost {
  readonly id: string;
  readonly pid: number;
  readonly isRunning: boolean;
  /** Its 'exit' event. */
  readonly onEvent: Emitter<DaemonEvent>['event'];
  info(): SessionInfo;
  /** Writes to the program; why not, if refused. */
  send(data: string): string | undefined;
}

export enum ShellTiming {
  /** How long `run` waits for a shell that is about to show its prompt (just started, or drawing it). */
  PromptWaitMs = 10_000,
}

function notReady(id: string, why: string): DaemonError {
  return new DaemonError(ErrorCode.NotReady, `session ${id}: ${why}; nothing was typed`);
}

export class SessionShell implements IDisposable {
  private current: ShellState | undefined;
  private running: ((result: RunResult) => void) | undefined;
  private readonly listener: IDisposable;

  constructor(
    private readonly host: ShellHost,
    private readonly emulator: SessionEmulator,
    /** Its shell was started with VS Code's shell integration: a prompt is to be expected. */
    private readonly integrated: boolean,
  ) {
    this.listener = emulator.onShell((note) => {
      if (note.kind === 'shell') this.current = note.shell;
    });
  }

  /** What the shell last reported; undefined: nothing (no shell integration). */
  get state(): ShellState | undefined {
    return this.current;
  }

  /** Types `command` and Enter at the shell's prompt; answers with its end (or the timeout's, or the shell's exit). */
  async run(command: string, timeoutMs: number): Promise<RunResult> {
    const { id } = this.host;
    const emulator = this.emulator;
    if (this.running) throw notReady(id, 'a command `run` typed is still running');
    this.running = () => undefined;
    try {
      await this.checkReady(timeoutMs);
      emulator.captureOutput = true;
      return await this.typeAndWait(command, timeoutMs);
    } finally {
      this.running = undefined;
      emulator.captureOutput = false;
    }
  }

  private async checkReady(timeoutMs: number): Promise<void> {
    const { id } = this.host;
    if (!this.host.isRunning) throw new DaemonError(ErrorCode.Exited, `session ${id} has exited`);
    const prompt = await this.promptSoon(Math.min(timeoutMs, ShellTiming.PromptWaitMs));
    if (!this.current) throw notReady(id, 'its program reports no shell prompt (no shell integration, OSC 633)');
    if (!prompt.ready) {
      const what = this.current.command === undefined ? '' : `: it runs ${printable(this.current.command)}`;
      throw notReady(id, `its shell is not at its prompt${what}`);
    }
    if (prompt.typed) throw notReady(id, `text is typed at its prompt (${printable(prompt.typed.slice(0, 80))})`);
    if (!(await inForeground(this.host.pid))) throw notReady(id, 'a program runs in the foreground of its terminal');
  }

  /**
   * The prompt as it is, or as it is once the shell is ready within `waitMs`: a shell started with
   * integration moments ago, or between a command's end and its next prompt, is about to be. Not one
   * that runs a command, nor one that never reported a prompt without having been started with the scripts.
   */
  private async promptSoon(waitMs: number): Promise<{ ready: boolean; typed: string }> {
    const prompt = await this.emulator.read({ kind: 'prompt' });
    const expected = this.current ? this.current.phase === 'prompt' : this.integrated;
    if (prompt.ready || !expected || waitMs <= 0) return prompt;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        listener.dispose();
        resolve();
      };
      const timer = setTimeout(done, waitMs);
      const listener = this.emulator.onShell((note) => {
        if (note.kind === 'shell' && (note.ready || note.shell.phase === 'running')) done();
      });
    });
    return this.emulator.read({ kind: 'prompt' });
  }

  private typeAndWait(command: string, timeoutMs: number): Promise<RunResult> {
    const { emulator } = this;
    const { pid } = this.host;
    return new Promise<RunResult>((resolve, reject) => {
      let last: { exitCode: number | null; output: CommandOutput } | undefined;
      const listeners: IDisposable[] = [];
      const finish = (result: RunResult) => {
        if (this.running !== finish) return;
        this.running = () => undefined;
        clearTimeout(timer);
        disposeAll(listeners);
        resolve(result);
      };
      this.running = finish;
      // The output so far (a timeout, the shell's exit): from the command's start to the cursor; none before it
      // started (the last command's output, the prompt and the line typed were all the worker could tell).
      // The worker answers the read after the notes of all it parsed before it, so `started` is up to date then.
      let started = false;
      const sofar = (extra: Partial<RunResult>) =>
        emulator.read({ kind: 'commandOutput' }).then(
          ({ output }) =>
            started
              ? finish({ exitCode: null, output: output.text, truncated: output.truncated, ...extra })
              : finish({ exitCode: null, output: '', truncated: false, ...extra }),
          () => finish({ exitCode: null, output: '', truncated: true, ...extra }),
        );
      // Notes told so far: a prompt counts only if nothing came after it by the time the shell is seen in the
      // foreground (a prompt a program printed is followed by the rest of its output's marks, and the shell can
      // be in the foreground for a moment between two commands of one line).
      let told = 0;
      listeners.push(
        emulator.onShell((note) => {
          told++;
          if (note.kind === 'shell' && note.shell.phase === 'running') started = true;
          if (note.kind === 'commandEnd') last = note;
          else if (note.ready && last) {
            const end = last;
            const at = told;
            void inForeground(pid).then((fg) => {
              if (fg && told === at)
                finish({ exitCode: end.exitCode, output: end.output.text, truncated: end.output.truncated });
            });
          }
        }),
      );
      listeners.push(
        this.host.onEvent((event) => {
          if (event.type === 'exit') void sofar({ exitCode: event.exit.code, shellExited: true });
        }),
      );
      const timer = setTimeout(() => void sofar({ timedOut: true }), timeoutMs);
      const refused = this.host.send(`${command}\r`);
      if (refused) {
        this.running = () => undefined;
        clearTimeout(timer);
        disposeAll(listeners);
        reject(new DaemonError(ErrorCode.Limit, `session ${this.host.id}: ${refused}`));
      }
    });
  }

  dispose(): void {
    this.listener.dispose();
    this.running?.({ exitCode: null, output: '', truncated: true, shellExited: true });
  }
}
