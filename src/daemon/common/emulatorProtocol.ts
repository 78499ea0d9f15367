// The messages between the daemon's main thread (emulatorWorkers.ts, sessionEmulator.ts) and an
// emulator worker thread (emulatorWorker.ts, emulatorHost.ts). Sessions are numbered per daemon;
// chunks are counted per session, so every answer says at which chunk it was taken.
import type { PromptMark, ScreenPrompt } from '../sessions/attention';
import type { EmulatorOptions, MarkReplay } from '../emulator/emulator';
import type { SessionTextCopy } from './sessionText';
import type { ShellNote } from '../emulator/shellMarks';
import type { CommandOutput } from '../emulator/commandOutput';

/** What the main thread mirrors of an emulator, as of its last parsed chunk. */
export interface EmulatorState {
  /** Chunks parsed since the session started. */
  parsed: number;
  synchronizedUpdate: boolean;
  hasScrollback: boolean;
  alternateLength: number;
}

/**
 * What parsing said, in order: answers to queries, title, bells, prompt marks, directory, errors; and
 * what the screen shows once quiet: its agent's permission prompt, or (no `prompt`) its end (promptWatch.ts).
 */
export type EmulatorNote =
  | { kind: 'reply'; data: string }
  | { kind: 'title'; title: string }
  | { kind: 'bell' }
  | { kind: 'mark'; mark: PromptMark }
  | { kind: 'permissionPrompt'; prompt?: ScreenPrompt }
  | { kind: 'cwd'; cwd: string }
  | Extract<ShellNote, { kind: 'shell' | 'commandEnd' }>
  | { kind: 'error'; message: string };

/** The notes a session's attention is made of. */
export type AttentionSignal = Extract<EmulatorNote, { kind: 'bell' | 'mark' | 'permissionPrompt' }>;

/** screen: the visible screen and modes; full: with the scrollback. */
export type SnapshotView = 'screen' | 'full';

/** What every snapshot starts with: a full reset, the scrollback cleared (the receiver may show an older screen). */
export const SNAPSHOT_PREFIX = '\x1bc\x1b[3J';

export type EmulatorRead =
  /**
   * At an exact cut point (between two chunks), waiting until `syncDeadline` (ms since the epoch) for a
   * synchronized update to end. A view whose state key is in `have` is not rendered again.
   */
  | { kind: 'snapshot'; views: SnapshotView[]; have: Partial<Record<SnapshotView, string>>; syncDeadline: number }
  /** The screen and up to `scrollback` lines above it as VT text (checkpoints, a handoff), now. */
  | { kind: 'text'; scrollback?: number; marks: MarkReplay }
  /** Whether its shell waits at its prompt, and what is typed there. */
  | { kind: 'prompt' }
  /** The current (or last) command's output so far. */
  | { kind: 'commandOutput' }
  | { kind: 'lines'; scrollback: number }
  | { kind: 'textCopy'; history: boolean };

export type ReadResult =
  | {
      kind: 'snapshot';
      /** The emulator's state at the cut: chunks parsed and size. */
      key: string;
      cols: number;
      rows: number;
      synchronizedUpdate: boolean;
      /** UTF-8, transferred; a view missing here is unchanged since the key the request had. */
      views: Partial<Record<SnapshotView, Uint8Array>>;
    }
  | { kind: 'text'; text: string; cols: number; rows: number }
  | { kind: 'prompt'; ready: boolean; typed: string }
  | { kind: 'commandOutput'; output: CommandOutput }
  | { kind: 'lines'; lines: string[]; cursor: { x: number; y: number } }
  | { kind: 'textCopy'; copy: SessionTextCopy };

export interface OpenEmulator {
  kind: 'open';
  id: number;
  options: EmulatorOptions;
  /** Chunks already parsed by the emulator this one replaces: the count goes on from there. */
  parsed: number;
  /** The last screen known and the output since, parsed first and silently (a replaced worker's session). */
  base?: { vt: Uint8Array; cols: number; rows: number };
  answerQueries: boolean;
}

/** `write`'s bytes are `length` bytes at `offset` of the batch's one transferred buffer. */
export type ToWorker =
  | OpenEmulator
  | { kind: 'write'; id: number; offset: number; length: number }
  | { kind: 'resize'; id: number; cols: number; rows: number }
  | { kind: 'scrollback'; id: number; lines: number }
  | { kind: 'answerQueries'; id: number; on: boolean }
  | { kind: 'promptProfile'; id: number; profile?: string }
  /** `run` waits on the session: each command's end is told with its output. */
  | { kind: 'captureOutput'; id: number; on: boolean }
  | { kind: 'compact'; id: number }
  | { kind: 'read'; id: number; request: number; read: EmulatorRead }
  | { kind: 'close'; id: number };

export interface ToWorkerBatch {
  messages: ToWorker[];
  data: ArrayBuffer;
}

export interface EmulatorEvents {
  id: number;
  state: EmulatorState;
  notes: EmulatorNote[];
}

export type FromWorker =
  /** The worker loaded its script: it can run (one that dies before this could not start). */
  | { kind: 'started' }
  | { kind: 'events'; sessions: EmulatorEvents[] }
  | { kind: 'answer'; id: number; request: number; parsed: number; result?: ReadResult; error?: string };

/** What a session's emulator gets from its thread. */
export type ToSession = Exclude<FromWorker, { kind: 'started' }>;
