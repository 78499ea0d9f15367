// Checkpoints, archived sessions and the daemon's config: the shapes shared by daemon and clients,
// and the one reading of a session's `archivedFrom` and `agent` metadata.
import type { z } from 'zod';
import type { checkpointFileSchema, savedSessionSchema } from './checkpointSchema';
import type { ExitStatus, SessionInfo } from './messages';
import type { ShellIntegrationParams } from './shell';

export const CHECKPOINT_VERSION = 1;

/** One session as a checkpoint records it (its fields are described in checkpointSchema.ts). */
export type SavedSession = z.infer<typeof savedSessionSchema>;

/** The file `$XDG_STATE_HOME/holdfast/recovery/checkpoint-ID.json`, one per daemon run, rewritten in place. */
export type CheckpointFile = z.infer<typeof checkpointFileSchema>;

export interface CheckpointSummary {
  id: string;
  file: string;
  bytes: number;
  writtenAt: number;
  daemonPid: number;
  socket: string;
  /** Written by the daemon answering (its own, live record). */
  current: boolean;
  sessions: number;
  /** Sessions whose program was running when it was written. */
  running: number;
  screens: boolean;
}

/** A checkpoint file that could not be read or parsed: reported, never fatal. */
export interface SkippedCheckpoint {
  file: string;
  error: string;
}

/** A saved session as `recovery inspect` shows it: no screen text, whether it can be resumed. */
export interface InspectedSession extends Omit<SavedSession, 'screen'> {
  screenBytes: number;
  /** Was running, and is an agent whose resume command can be built (see agents/agents.ts). */
  resumable: boolean;
  /** The exact command `resume` runs (built-in profile, recorded id), in `cwd`. */
  resumeCommand?: string[];
  /** Why there is no exact command: a custom profile (its client gives it), or why it is not resumable. */
  resumeNote?: string;
}

/** What an archived session's metadata carries besides the saved metadata. */
export interface ArchivedFrom {
  checkpoint: string;
  /** The session's id in the checkpoint's daemon. */
  id: string;
  /** Running when the checkpoint was written: offered for resume. */
  running: boolean;
  exit: ExitStatus | null;
  writtenAt: number;
}

/** Where an agent's conversation id goes in its command lines. */
export const AGENT_ID_PLACEHOLDER = '{id}';

/** `metadata.agent` of an agent session: how to resume it. */
export interface AgentMetadata {
  profile?: string;
  sessionId?: string;
  /**
   * argv with "{id}" where the agent session id goes, e.g. ["claude", "--resume", "{id}"]: recorded
   * for information only. Resume never runs it (a checkpoint file can be edited): see agents/agents.ts.
   */
  resumeArgv?: string[];
}

export interface RecoveryConfig {
  enabled: boolean;
  intervalSeconds: number;
  screenText: boolean;
  argv: boolean;
  keep: number;
  /** Largest checkpoint file; scrollback is trimmed to fit (at most 16 MiB). */
  maxBytes: number;
}

/** Search and text waits (src/daemon/textWorkers.ts). */
export interface SearchConfig {
  /** A search's or a text wait check's time in its worker thread, ms; past it the request answers `limit`. */
  budgetMs: number;
}

export interface DaemonConfig {
  recovery: RecoveryConfig;
  search: SearchConfig;
}

export interface RecoveryMethods {
  'recovery.list': [Record<string, never>, { checkpoints: CheckpointSummary[]; skipped: SkippedCheckpoint[] }];
  'recovery.inspect': [{ id: string }, { checkpoint: CheckpointSummary; sessions: InspectedSession[] }];
  'recovery.restore': [{ id: string }, { sessions: SessionInfo[] }];
  'recovery.forget': [{ id: string }, { forgotten: string }];
  'recovery.checkpoint': [Record<string, never>, { checkpoint: CheckpointSummary }];
  'config.get': [{ key?: string }, { config: DaemonConfig; file: string; value?: unknown }];
  'config.set': [{ key: string; value: unknown }, { config: DaemonConfig; file: string }];
  'config.reload': [Record<string, never>, { config: DaemonConfig; file: string }];
  /** A new process in an exited (e.g. archived) session's place: same name, cwd, size, metadata, position. */
  relaunch: [
    { session: string; argv?: string[]; env?: Record<string, string>; shellIntegration?: ShellIntegrationParams },
    { session: SessionInfo; replaced: string },
  ];
  /**
   * Relaunch with the agent's resume command: `resumeArgv` (the client's own profile), else the
   * built-in profile named by metadata.agent.profile; "{id}" replaced by the recorded agent session id.
   */
  resume: [
    { session: string; env?: Record<string, string>; resumeArgv?: string[] },
    { session: SessionInfo; replaced: string; argv: string[] },
  ];
}

/** Where an archived session came from (set by `recovery.restore`). */
export function archivedFrom(metadata: Record<string, unknown> | undefined): ArchivedFrom | undefined {
  const from = metadata?.archivedFrom;
  return from && typeof from === 'object' && !Array.isArray(from) ? (from as ArchivedFrom) : undefined;
}

/** The agent part of a session's metadata, if it is an agent session. */
export function agentOf(
  metadata: Record<string, unknown> | undefined,
): (AgentMetadata & { name?: string; icon?: string }) | undefined {
  const agent = metadata?.agent;
  return agent && typeof agent === 'object' && !Array.isArray(agent) ? agent : undefined;
}
