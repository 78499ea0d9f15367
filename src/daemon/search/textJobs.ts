// What search and text waits hand to a worker thread (searchWorker.ts), and the work itself: a
// pattern over copies of sessions' text (decoded there) and over their agents' transcript files; and
// the checkpoint files, read, parsed and checked there (a hostile one may be 16 MiB of deep JSON) by
// checkpointReader.ts, a bundle of its own loaded on the first such job.
import * as path from 'node:path';
import {
  type CostlyTranscript,
  readTranscript,
  type TranscriptAgent,
  type TranscriptBounds,
  TranscriptTooCostly,
} from '../../agents/transcripts';
import { ErrorCode, type SearchMatch, type SearchResult } from '../../protocol/messages';
import type { CheckpointFile, CheckpointSummary, InspectedSession, SkippedCheckpoint } from '../../protocol/recovery';
import { compilePattern, PatternError, PatternLimitError, type TextPattern } from '../../text/textPattern';
import { transcriptReason } from '../common/attentionReason';
import type * as CheckpointReader from './checkpointReader';
import { isAlternateMarker, logicalLines, type SessionTextCopy } from '../common/sessionText';

/** A longer line (a logical line can be long) is cut in a search's answer, so replies stay small. */
export const MAX_MATCH_TEXT_CHARS = 2000;

export interface SearchedSession {
  session: string;
  name: string;
  text: SessionTextCopy;
  /** Its agent, whose transcript is searched after its own lines (read in the worker). */
  agent?: TranscriptAgent;
  cwd: string;
}

/**
 * How the transcripts of a search or reason job are read: TextWorkers sets it as the job starts (half
 * the budget for one file, and the files found too costly so far); this when a caller runs a job itself.
 */
const TRANSCRIPTS_UNTOLD: TranscriptBounds = { readForMs: 1000, costly: [] };

export type TextJob =
  | {
      kind: 'search';
      pattern: string;
      flags: string;
      context: number;
      limit: number;
      sessions: SearchedSession[];
      transcripts?: TranscriptBounds;
    }
  | { kind: 'test'; pattern: string; flags: string; text: SessionTextCopy }
  /** Why an agent waits: the end of its last message, from its transcript (attentionReason.ts). */
  | { kind: 'reason'; agent: TranscriptAgent; cwd: string; transcripts?: TranscriptBounds }
  /** The checkpoints in `dir` (summaries), and the one named `id` when asked for (CheckpointFound). */
  | { kind: 'checkpoints'; dir: string; currentId: string; id?: string; readForMs: number };

/**
 * A checkpoint asked for by id: its sessions as inspect shows them, and its data for a restore with
 * each screen over the bound already dropped (a 15 MB screen copied to the main thread held it 50 ms).
 */
export interface CheckpointFound {
  summary: CheckpointSummary;
  inspected: InspectedSession[];
  data: CheckpointFile;
  /** The sessions whose screens were dropped, with their length in characters. */
  droppedScreens: { id: string; chars: number }[];
}

export interface CheckpointsRead {
  checkpoints: CheckpointSummary[];
  skipped: SkippedCheckpoint[];
  found?: CheckpointFound;
  /** Files left unread once the job had read for `readForMs`: the next list goes on from there. */
  unread: number;
}

export type JobResult<J extends TextJob> = J extends { kind: 'search' }
  ? SearchResult
  : J extends { kind: 'reason' }
    ? string | null
    : J extends { kind: 'checkpoints' }
      ? CheckpointsRead
      : boolean;

/** `costly`: transcripts the job found too costly to read (textWorkers.ts keeps them for later jobs). */
export type JobAnswer = { costly?: CostlyTranscript[] } & (
  | { ok: true; result: SearchResult | CheckpointsRead | boolean | string | null }
  | { ok: false; code: ErrorCode.BadRequest | ErrorCode.Limit | ErrorCode.Internal; message: string }
);

/** The worker's first message: its script is loaded, jobs run from now (their budget too). */
export interface WorkerLoaded {
  loaded: true;
}

/** Compiled patterns a worker keeps: a text wait checks the same one every time the screen changes. */
const COMPILED_KEPT = 16;
const compiled = new Map<string, TextPattern>();

function compiledPattern(pattern: string, flags: string): TextPattern {
  const key = `${flags}/${pattern}`;
  let re = compiled.get(key);
  if (!re) {
    re = compilePattern(pattern, flags);
    if (compiled.size >= COMPILED_KEPT) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, re);
  }
  return re;
}

function clip(line: string): string {
  return line.length > MAX_MATCH_TEXT_CHARS ? line.slice(0, MAX_MATCH_TEXT_CHARS) + '…' : line;
}

interface SearchPlan {
  pattern: TextPattern;
  context: number;
  limit: number;
}

/**
 * Appends the matches among `lines` to `matches` (oldest first); false when `plan.limit` was reached
 * and a further line matched. The first `alternate` lines are marked as from the alternate screen;
 * their marker lines are not matched.
 */
function matchLines(
  lines: string[],
  source: Pick<SearchMatch, 'session' | 'name' | 'source'>,
  plan: SearchPlan,
  matches: SearchMatch[],
  alternate = 0,
): boolean {
  const { pattern, context, limit } = plan;
  for (let line = 0; line < lines.length; line++) {
    if (!pattern.test(lines[line]) || (line < alternate && isAlternateMarker(lines[line]))) continue;
    if (matches.length >= limit) return false;
    matches.push({
      ...source,
      line,
      text: clip(lines[line]),
      before: lines.slice(Math.max(0, line - context), line).map(clip),
      after: lines.slice(line + 1, line + 1 + context).map(clip),
      ...(line < alternate ? { alternate: true as const } : {}),
    });
  }
  return true;
}

/**
 * Matches in session order, the lines of each in order, then its transcript's; at most `limit`. A
 * transcript too costly to read is skipped and said so (`costly` gets it when newly found).
 */
async function search(job: Extract<TextJob, { kind: 'search' }>, costly: CostlyTranscript[]): Promise<SearchResult> {
  const plan = { pattern: compiledPattern(job.pattern, job.flags), context: job.context, limit: job.limit };
  const matches: SearchMatch[] = [];
  const skipped: NonNullable<SearchResult['skippedTranscripts']> = [];
  let linesSearched = 0;
  const result = (truncated: boolean): SearchResult => ({
    matches,
    truncated,
    linesSearched,
    ...(skipped.length > 0 ? { skippedTranscripts: skipped } : {}),
  });
  for (const searched of job.sessions) {
    const source = { session: searched.session, name: searched.name };
    const { lines, alternate } = logicalLines(searched.text);
    linesSearched += lines.length;
    if (!matchLines(lines, source, plan, matches, alternate)) return result(true);
    // The daemon runs as the user, in the user's home: the agent's files are its to read.
    // Sessions of one agent thread share its file: one found too costly is not read again in this job.
    const told = job.transcripts ?? TRANSCRIPTS_UNTOLD;
    const bounds = { ...told, costly: [...told.costly, ...costly] };
    const transcript = await readTranscript(searched.agent, searched.cwd, undefined, bounds).catch((err: Error) => {
      if (!(err instanceof TranscriptTooCostly)) throw err;
      skipped.push({ session: searched.session, why: err.message });
      if (!err.known) costly.push(err.costly);
      return undefined;
    });
    if (transcript && !matchLines(transcript.lines, { ...source, source: 'transcript' }, plan, matches))
      return result(true);
  }
  return result(false);
}

let reader: typeof CheckpointReader | undefined;

/**
 * dist/checkpointReader.js, loaded on the first checkpoints job: its schemas bring zod, which a worker
 * replaced after a runaway search (most jobs) would otherwise load again each time.
 */
function checkpointReader(): typeof CheckpointReader {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- another bundle, found beside this one
  return (reader ??= require(path.join(__dirname, 'checkpointReader.js')) as typeof CheckpointReader);
}

/** Why an agent waits, from its transcript; one too costly to read is no reason (TextWorkers logs it once). */
async function reason(job: Extract<TextJob, { kind: 'reason' }>): Promise<JobAnswer> {
  try {
    const transcript = await readTranscript(job.agent, job.cwd, undefined, job.transcripts ?? TRANSCRIPTS_UNTOLD);
    return { ok: true, result: (transcript && transcriptReason(transcript.lines)) ?? null };
  } catch (err) {
    if (!(err instanceof TranscriptTooCostly)) throw err;
    return { ok: true, result: null, ...(err.known ? {} : { costly: [err.costly] }) };
  }
}

/** Runs a job; every failure is an answer (a bad or too costly pattern, or a bug: internal). */
export async function runJob(job: TextJob): Promise<JobAnswer> {
  try {
    if (job.kind === 'search') {
      const costly: CostlyTranscript[] = [];
      const result = await search(job, costly);
      return { ok: true, result, ...(costly.length > 0 ? { costly } : {}) };
    }
    if (job.kind === 'checkpoints') return checkpointReader().readCheckpoints(job);
    if (job.kind === 'reason') return await reason(job);
    const pattern = compiledPattern(job.pattern, job.flags);
    return { ok: true, result: logicalLines(job.text).lines.some((line) => pattern.test(line)) };
  } catch (err) {
    const message = (err as Error).message;
    if (err instanceof PatternLimitError) return { ok: false, code: ErrorCode.Limit, message };
    if (err instanceof PatternError) return { ok: false, code: ErrorCode.BadRequest, message };
    return { ok: false, code: ErrorCode.Internal, message: (err as Error).stack ?? message };
  }
}
