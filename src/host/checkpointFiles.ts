// Reading checkpoint files ($XDG_STATE_HOME/holdfast/recovery/checkpoint-RUN.json): where they are,
// what makes one valid, and how `recovery list` shows them (a saved session, with its resume command:
// inspectSaved in src/agents/agents.ts). The daemon writes them (src/daemon/sessions/checkpoint.ts); the CLI
// reads them without a daemon.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkpointFileSchema } from '../protocol/checkpointSchema';
import { CheckpointLimit } from '../protocol/limits';
import { checkPrivateDir, stateDir } from './paths';
import type { CheckpointFile, CheckpointSummary, SkippedCheckpoint } from '../protocol/recovery';

const FILE_PATTERN = /^checkpoint-([\w.-]+)\.json$/;

export function recoveryDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(stateDir(env), 'recovery');
}

export function checkpointFile(dir: string, id: string): string {
  return path.join(dir, `checkpoint-${id}.json`);
}

/** Parses and checks a checkpoint; throws a one-line reason when it is not one. */
export function parseCheckpoint(text: string): CheckpointFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new Error(
      `not valid JSON (${text.length === 0 ? 'empty' : 'truncated or corrupt'}): ${(err as Error).message}`,
      { cause: err },
    );
  }
  const checked = checkpointFileSchema.safeParse(data);
  if (checked.success) return checked.data;
  const issue = checked.error.issues[0];
  throw new Error(`not a checkpoint: ${issue.path.join('.') || 'the file'}: ${issue.message}`);
}

/** A checkpoint file's text, read without following a symlink and never more than the size bound. */
export function readCheckpointText(file: string): string {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new Error('not a regular file');
    if (st.size > CheckpointLimit.FileBytes) throw new Error(overSize(st.size));
    // Sized by the file (one byte more shows a file that grew meanwhile), not by the bound: a fresh 16 MiB
    // zero-filled each time cost more than the read.
    const buffer = Buffer.allocUnsafe(Math.min(st.size, CheckpointLimit.FileBytes) + 1);
    let length = 0;
    for (let n = 1; n > 0 && length < buffer.length; length += n)
      n = fs.readSync(fd, buffer, length, buffer.length - length, null);
    if (length > st.size) throw new Error('it grew while it was read (the daemon renames a whole file into place)');
    return buffer.toString('utf8', 0, length);
  } finally {
    fs.closeSync(fd);
  }
}

function overSize(bytes: number): string {
  return `${bytes} bytes, over the ${CheckpointLimit.FileBytes}-byte limit of a checkpoint: not read`;
}

export function summarize(c: CheckpointFile, file: string, bytes: number, currentId: string): CheckpointSummary {
  return {
    id: c.id,
    file,
    bytes,
    writtenAt: c.writtenAt,
    daemonPid: c.daemonPid,
    socket: c.socket,
    current: c.id === currentId,
    sessions: c.sessions.length,
    running: c.sessions.filter((s) => s.running).length,
    screens: c.sessions.some((s) => typeof s.screen === 'string'),
  };
}

/** A checkpoint file as listed: its id, and what tells one version of the file from another. */
export interface ListedCheckpointFile {
  id: string;
  path: string;
  mtimeMs: number;
  size: number;
  ino: number;
}

export function listCheckpointFiles(dir: string): ListedCheckpointFile[] {
  // Checked as the daemon checks it before writing: another user's directory (a shared XDG_STATE_HOME)
  // would show their checkpoints as this user's, and restore or resume from them. Missing: none yet.
  if (!checkPrivateDir(dir, true)) return [];
  const names = fs.readdirSync(dir);
  const out: ListedCheckpointFile[] = [];
  for (const name of names) {
    const match = FILE_PATTERN.exec(name);
    if (!match) continue;
    const file = path.join(dir, name);
    // lstat: a symlink planted in the directory is not a checkpoint.
    const st = fs.lstatSync(file, { throwIfNoEntry: false });
    if (st?.isFile()) out.push({ id: match[1], path: file, mtimeMs: st.mtimeMs, size: st.size, ino: st.ino });
  }
  return out;
}

/** One listed checkpoint file, read and checked; throws a one-line reason when it is not one. */
export function readCheckpoint(
  f: ListedCheckpointFile,
  currentId: string,
): { summary: CheckpointSummary; data: CheckpointFile } {
  if (f.size > CheckpointLimit.FileBytes) throw new Error(overSize(f.size));
  const text = readCheckpointText(f.path);
  const data = parseCheckpoint(text);
  if (data.id !== f.id) throw new Error(`holds checkpoint ${data.id}, not ${f.id}`);
  return { summary: summarize(data, f.path, Buffer.byteLength(text), currentId), data };
}

/** Every readable checkpoint, newest first; the rest reported as skipped. */
export function readCheckpoints(
  dir: string,
  currentId: string,
): { checkpoints: { summary: CheckpointSummary; data: CheckpointFile }[]; skipped: SkippedCheckpoint[] } {
  const checkpoints: { summary: CheckpointSummary; data: CheckpointFile }[] = [];
  const skipped: SkippedCheckpoint[] = [];
  for (const f of listCheckpointFiles(dir)) {
    try {
      checkpoints.push(readCheckpoint(f, currentId));
    } catch (err) {
      skipped.push({ file: f.path, error: (err as Error).message });
    }
  }
  checkpoints.sort((a, b) => b.summary.writtenAt - a.summary.writtenAt);
  return { checkpoints, skipped };
}
