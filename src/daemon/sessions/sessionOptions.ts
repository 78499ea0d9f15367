// What a session is made with (session.ts): its program (spawned, or adopted from a previous daemon),
// its emulator's threads and its shell's nonce.
import type { EmulatorWorkers } from '../emulatorWorkers';
import type { ProgramProcess } from '../pty/programPty';
import type { PtyOptions } from '../pty/ptyProcess';
import type { TypingSignal } from '../pty/ptyReadGate';
import type { ResumedSession } from '../succession/sessionHandoff';

export interface SessionOptions extends PtyOptions {
  id: string;
  name: string;
  scrollback: number;
  metadata: Record<string, unknown>;
  /** The worker threads that run the emulators. */
  emulators: EmulatorWorkers;
  /** When an owner last typed into any session: then a session nobody watches is read at a pace. */
  typing: TypingSignal;
  onEmulatorError?: (err: Error) => void;
  /** Instead of spawning argv on a PTY. */
  process?: ProgramProcess;
  /** What is spawned, when it is more than argv (an agent's hook options, a shell's integration). */
  launchArgv?: string[];
  /** Taken over from a previous daemon (a succession), with `process` its adopted PTY. */
  resumed?: ResumedSession;
  /** The directory its program last reported (OSC 7), kept from a previous daemon or a checkpoint. */
  reportedCwd?: string;
  /** VSCODE_NONCE, when its shell was started with VS Code's shell integration (shellStart.ts). */
  shellNonce?: string;
}
