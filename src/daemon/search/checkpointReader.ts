// The checkpoints job of the text workers (textJobs.ts): the checkpoint files of a directory read, parsed
// and checked against their schema, off the daemon's main thread (a hostile one may be 16 MiB of deep JSON).
// Its own bundle (dist/checkpointReader.js), loaded on the first such job: the schemas bring zod, which the
// search worker, replaced after each runaway search, does not load otherwise.
import { inspectSaved } from '../../agents/agents';
import { listCheckpointFiles, type ListedCheckpointFile, readCheckpoint } from '../../host/checkpointFiles';
import { UnsafeDirectoryError } from '../../host/paths';
import { CheckpointLimit } from '../../protocol/limits';
import { ErrorCode } from '../../protocol/messages';
import type { CheckpointFile, CheckpointSummary } from '../../protocol/recovery';
import type { CheckpointFound, CheckpointsRead, JobAnswer, TextJob } from './textJobs';

/**
 * What a list read of each file: by path, with the version read (size, mtime, inode), so that a list
 * reads only files that are new or changed since (six 15 MB files took a loaded machine over 2 s).
 */
const listed = new Map<string, { version: string; summary: CheckpointSummary } | { version: string; error: string }>();

function fileVersion(f: ListedCheckpointFile): string {
  return `${f.size}:${f.mtimeMs}:${f.ino}`;
}

/**
 * Only the summaries cross back to the main thread, and the one checkpoint asked for (then only its
 * file is read). Each file's text is let go before the next is read: a worker ended with a big heap
 * costs the main thread its teardown.
 */
function checkpoints(job: Extract<TextJob, { kind: 'checkpoints' }>): CheckpointsRead {
  const read: CheckpointsRead = { checkpoints: [], skipped: [], unread: 0 };
  const readUntil = Date.now() + job.readForMs;
  const files = listCheckpointFiles(job.dir);
  if (job.id === undefined) {
    const present = new Set(files.map((f) => f.path));
    for (const file of listed.keys()) if (!present.has(file)) listed.delete(file);
  }
  for (const f of files) {
    if (job.id !== undefined && f.id !== job.id) continue;
    const version = fileVersion(f);
    const known = job.id === undefined ? listed.get(f.path) : undefined;
    if (known?.version === version) {
      if ('error' in known) read.skipped.push({ file: f.path, error: known.error });
      else read.checkpoints.push({ ...known.summary, current: known.summary.id === job.currentId });
      continue;
    }
    if (Date.now() > readUntil) {
      read.unread++;
      continue;
    }
    try {
      const checkpoint = readCheckpoint(f, job.currentId);
      read.checkpoints.push(checkpoint.summary);
      listed.set(f.path, { version, summary: checkpoint.summary });
      if (job.id !== undefined) read.found = found(checkpoint);
    } catch (err) {
      read.skipped.push({ file: f.path, error: (err as Error).message });
      listed.set(f.path, { version, error: (err as Error).message });
    }
  }
  read.checkpoints.sort((a, b) => b.writtenAt - a.writtenAt);
  return read;
}

function found({ summary, data }: { summary: CheckpointSummary; data: CheckpointFile }): CheckpointFound {
  const inspected = data.sessions.map(inspectSaved);
  const droppedScreens: CheckpointFound['droppedScreens'] = [];
  for (const saved of data.sessions) {
    if (saved.screen === undefined || saved.screen.length <= CheckpointLimit.ScreenChars) continue;
    droppedScreens.push({ id: saved.id, chars: saved.screen.length });
    delete saved.screen;
  }
  return { summary, inspected, data, droppedScreens };
}

/** The checkpoints job's answer; a directory that is not the user's own private one is refused. */
export function readCheckpoints(job: Extract<TextJob, { kind: 'checkpoints' }>): JobAnswer {
  try {
    return { ok: true, result: checkpoints(job) };
  } catch (err) {
    if (!(err instanceof UnsafeDirectoryError)) throw err;
    return { ok: false, code: ErrorCode.Internal, message: `refusing to read checkpoints: ${err.message}` };
  }
}
