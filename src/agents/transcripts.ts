// A full-screen agent's conversation from its own transcript file: what it drew on the alternate
// screen never reached the scrollback, so search and Open Session History read this instead.
//
// Where each agent writes (read from the installed CLIs' own code):
//   Claude Code 2.1  ~/.claude/projects/<slug>/<session-id>.jsonl. <slug> is the realpath of the
//                    directory it started in with every character other than [A-Za-z0-9] made "-";
//                    past 200 characters it is cut and a hash added. When that file is not there it
//                    looks for <session-id>.jsonl in every project folder, and so does this module.
//                    A line: {type:'user'|'assistant', message:{role, content: string | blocks of
//                    {type:'text', text} / {type:'tool_use', name, input} / {type:'tool_result',
//                    content} / thinking}, isMeta?, uuid, sessionId, cwd...}; other types (summary,
//                    system, attachment, file-history-snapshot...) are bookkeeping.
//   Codex 0.169      ~/.codex/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<thread-id>.jsonl (the
//                    local date it started; a resumed thread appends to the same file), moved to
//                    ~/.codex/archived_sessions/ when archived. A line: {timestamp, type: session_meta |
//                    turn_context | response_item | event_msg | compacted, payload}. Codex compresses an
//                    idle rollout to <same name>.jsonl.zst, read as a stream (zlib's zstd where this
//                    Node has it, 22.15+; else fzstd's pure-JS decoder).
//   Gemini CLI 0.61  ~/.gemini/tmp/<project slug>/chats/session-<YYYY-MM-DDThh-mm>-<first 8 of the
//                    id>.jsonl (the slug comes from its project registry, so the chats folders are
//                    searched and the file's first record must name the whole id). Lines: a metadata
//                    record {sessionId, projectHash, startTime...}, then messages {id, type:'user' |
//                    'gemini' | 'info' | 'error', content, toolCalls?}, {$set} and {$rewindTo}. Older
//                    versions wrote one session-*.json object with `messages`.
// Only the agent's own folder in the user's home is read (not CLAUDE_CONFIG_DIR / CODEX_HOME: the
// session's environment is not known here); the recorded id must pass conversationIdProblem, the
// file found must resolve (symlinks followed) inside that folder, and only its last TailBytes are read
// (of a compressed one, at most MaxUnpackedBytes unpacked, within the caller's time: zstdTail.ts). A
// file too costly to read is said so (TranscriptTooCostly) and not read again while it stays as it was.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { builtinAgent, conversationIdProblem } from './agents';
import { claudeLines, codexLines, geminiLines } from './transcriptFormats';
import { readZstdTail, ZstdTooCostly } from './zstdTail';

export enum TranscriptTuning {
  /** Bytes read from the end of a transcript: the latest of a long conversation, in bounded memory. */
  TailBytes = 8 * 1024 * 1024,
  /** Folders looked through at most when the transcript is searched for. */
  MaxDirs = 4096,
  /** Bytes of a Gemini file's start read to check whose it is. */
  HeadBytes = 64 * 1024,
  /**
   * Bytes of a compressed transcript unpacked at most: a long Codex thread's rollout is tens of MB;
   * fzstd unpacks this much in 0.1-0.5 s here (zlib's zstd about as fast).
   */
  MaxUnpackedBytes = 64 * 1024 * 1024,
  /** The largest window a compressed transcript's frame may ask for (zstd's levels 1-19 ask 8 MiB at most). */
  MaxWindowBytes = 8 * 1024 * 1024,
}

/** A transcript file found too costly to read, as it was then (its version: size, mtime, inode). */
export interface CostlyTranscript {
  file: string;
  version: string;
  why: string;
}

/** What a reader is told: how long one file may take, and the files found too costly before. */
export interface TranscriptBounds {
  readForMs: number;
  costly: readonly CostlyTranscript[];
}

/** The transcript is too costly to read: `known` when it was found so before (and has not changed). */
export class TranscriptTooCostly extends Error {
  constructor(
    readonly costly: CostlyTranscript,
    readonly known: boolean,
  ) {
    super(costly.why);
  }
}

/** The recorded agent: metadata.agent of a session, as written (so nothing about it is trusted). */
export interface TranscriptAgent {
  profile?: unknown;
  sessionId?: unknown;
}

export interface Transcript {
  /** The agent's display name, e.g. "Claude Code". */
  agentName: string;
  /** The file read (its real path). */
  file: string;
  lines: string[];
  /** Only the file's tail was read. */
  partial: boolean;
}

type Profile = 'claude' | 'codex' | 'gemini';

const FOLDERS: Record<Profile, string[]> = {
  claude: ['.claude', 'projects'],
  codex: ['.codex'],
  gemini: ['.gemini', 'tmp'],
};

/** Claude Code's project folder name for a directory (its rule; the hashed form of long ones is not needed here). */
export function claudeProjectSlug(dir: string): string {
  return dir.replace(/[^a-zA-Z0-9]/g, '-');
}

async function names(dir: string): Promise<string[]> {
  try {
    return await fs.promises.readdir(dir);
  } catch {
    // Not there (the agent never ran here) or not readable: nothing to find in it.
    return [];
  }
}

async function realpathOrUndefined(file: string): Promise<string | undefined> {
  try {
    return await fs.promises.realpath(file);
  } catch {
    return undefined; // Missing: not a candidate.
  }
}

async function claudeCandidates(root: string, id: string, cwd: string): Promise<string[]> {
  const file = `${id}.jsonl`;
  const dirs = [cwd, await realpathOrUndefined(cwd)].filter((d): d is string => !!d);
  const direct = dirs.map((d) => path.join(root, claudeProjectSlug(d), file));
  const scanned = (await names(root)).slice(0, TranscriptTuning.MaxDirs).map((d) => path.join(root, d, file));
  return [...new Set([...direct, ...scanned])];
}

const newestFirst = (list: string[]) => list.sort().reverse();
/** Both may be there while Codex compresses a rollout or unpacks it to go on: the .jsonl is the current one. */
const plainFirst = (list: string[]) => list.sort((a, b) => Number(a.endsWith('.zst')) - Number(b.endsWith('.zst')));

async function codexCandidates(root: string, id: string): Promise<string[]> {
  const isRollout = (name: string) =>
    name.startsWith('rollout-') && (name.endsWith(`-${id}.jsonl`) || name.endsWith(`-${id}.jsonl.zst`));
  const sessions = path.join(root, 'sessions');
  let budget: number = TranscriptTuning.MaxDirs;
  for (const year of newestFirst(await names(sessions)))
    for (const month of newestFirst(await names(path.join(sessions, year))))
      for (const day of newestFirst(await names(path.join(sessions, year, month)))) {
        if (--budget < 0) return [];
        const dir = path.join(sessions, year, month, day);
        const found = plainFirst((await names(dir)).filter(isRollout));
        if (found.length > 0) return found.map((name) => path.join(dir, name));
      }
  const archived = path.join(root, 'archived_sessions');
  return plainFirst((await names(archived)).filter(isRollout)).map((name) => path.join(archived, name));
}

async function geminiCandidates(root: string, id: string): Promise<string[]> {
  const short = id.slice(0, 8);
  const out: string[] = [];
  for (const project of (await names(root)).slice(0, TranscriptTuning.MaxDirs)) {
    const chats = path.join(root, project, 'chats');
    for (const name of await names(chats))
      if (name.startsWith('session-') && (name.endsWith(`-${short}.jsonl`) || name.endsWith(`-${short}.json`)))
        out.push(path.join(chats, name));
  }
  return newestFirst(out);
}

/** Whether a Gemini file's first record names the whole id (the name holds only its first 8 characters). */
async function geminiFileIs(file: string, id: string): Promise<boolean> {
  const head = (await readRange(file, 0, TranscriptTuning.HeadBytes)).toString('utf8');
  const match = /"sessionId"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(head);
  return match !== null && JSON.parse(match[1]) === id;
}

async function readRange(file: string, start: number, length: number): Promise<Buffer> {
  const handle = await fs.promises.open(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, start);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The candidate's real path when it is a regular file inside `realRoot`, else undefined. */
async function inside(realRoot: string, candidate: string): Promise<string | undefined> {
  const real = await realpathOrUndefined(candidate);
  if (!real || !real.startsWith(realRoot + path.sep)) return undefined;
  try {
    return (await fs.promises.stat(real)).isFile() ? real : undefined;
  } catch {
    return undefined; // Gone meanwhile.
  }
}

/** The file found per agent id, and its lines while it keeps its size and time: search runs at every keystroke. */
const found = new Map<string, string>();
const rendered = new Map<string, { version: string; lines: string[]; partial: boolean }>();
/** Entries each cache keeps, the least recently stored dropped first. */
const CACHED = 16;

function remember<V>(cache: Map<string, V>, key: string, value: V): void {
  cache.delete(key);
  if (cache.size >= CACHED) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
}

function profileOf(agent: TranscriptAgent | undefined): { profile: Profile; id: string } | undefined {
  const profile = agent?.profile;
  if (profile !== 'claude' && profile !== 'codex' && profile !== 'gemini') return undefined;
  if (conversationIdProblem(agent?.sessionId) !== undefined) return undefined;
  return { profile, id: agent!.sessionId as string };
}

/** The transcript file of a session's agent (its real path), or undefined when there is none to read. */
export async function findTranscript(
  agent: TranscriptAgent | undefined,
  cwd: string,
  home: string = os.homedir(),
): Promise<string | undefined> {
  const which = profileOf(agent);
  if (!which) return undefined;
  const root = path.join(home, ...FOLDERS[which.profile]);
  const realRoot = await realpathOrUndefined(root);
  if (!realRoot) return undefined;
  const key = `${realRoot}\0${which.profile}\0${which.id}`;
  const known = found.get(key);
  // Checked again: it may have moved (Codex archives and compresses) or been replaced; a compressed
  // rollout may have been unpacked again to go on with the thread (then the .jsonl is the current one).
  const unpacked = known?.endsWith('.zst') ? await inside(realRoot, known.slice(0, -'.zst'.length)) : undefined;
  if (unpacked) {
    remember(found, key, unpacked);
    return unpacked;
  }
  if (known && (await inside(realRoot, known))) return known;
  const candidates =
    which.profile === 'claude'
      ? await claudeCandidates(root, which.id, cwd)
      : which.profile === 'codex'
        ? await codexCandidates(root, which.id)
        : await geminiCandidates(root, which.id);
  for (const candidate of candidates) {
    const file = await inside(realRoot, candidate);
    if (!file) continue;
    if (which.profile === 'gemini' && !(await geminiFileIs(file, which.id).catch(() => false))) continue;
    remember(found, key, file);
    return file;
  }
  return undefined;
}

/** From the first whole line of a tail that was cut. */
function wholeLines(text: string, cut: boolean): { text: string; partial: boolean } {
  if (!cut) return { text, partial: false };
  const newline = text.indexOf('\n');
  return { text: newline < 0 ? '' : text.slice(newline + 1), partial: true };
}

/** The last `TailBytes` of the file, from the first whole line when it was cut. */
async function readTail(file: string): Promise<{ text: string; partial: boolean }> {
  const size = (await fs.promises.stat(file)).size;
  const start = Math.max(0, size - TranscriptTuning.TailBytes);
  return wholeLines((await readRange(file, start, size - start)).toString('utf8'), start > 0);
}

const versionOf = (st: fs.Stats) => `${st.size}:${st.mtimeMs}:${st.ino}`;

async function render(
  profile: Profile,
  file: string,
  bounds: TranscriptBounds,
): Promise<{ lines: string[]; partial: boolean }> {
  const version = versionOf(await fs.promises.stat(file));
  const cached = rendered.get(file);
  if (cached?.version === version) return cached;
  const known = bounds.costly.find((c) => c.file === file && c.version === version);
  if (known) throw new TranscriptTooCostly(known, true);
  let read: { text: string; partial: boolean };
  if (file.endsWith('.zst')) {
    const zstdBounds = {
      tailBytes: TranscriptTuning.TailBytes,
      maxUnpackedBytes: TranscriptTuning.MaxUnpackedBytes,
      maxWindowBytes: TranscriptTuning.MaxWindowBytes,
      readForMs: bounds.readForMs,
    };
    const tail = await readZstdTail(file, zstdBounds).catch((err: Error) => {
      if (!(err instanceof ZstdTooCostly)) throw err;
      const why = `transcript too costly: ${file}: ${err.message}; not read again until it changes`;
      throw new TranscriptTooCostly({ file, version, why }, false);
    });
    read = wholeLines(tail.bytes.toString('utf8'), tail.cut);
  } else read = await readTail(file);
  const lines =
    profile === 'claude'
      ? claudeLines(read.text)
      : profile === 'codex'
        ? codexLines(read.text)
        : geminiLines(read.text, file.endsWith('.json'));
  remember(rendered, file, { version, lines, partial: read.partial });
  return { lines, partial: read.partial };
}

/** No time bound and nothing known: what a caller that is not the daemon's worker reads with. */
const UNBOUNDED: TranscriptBounds = { readForMs: Infinity, costly: [] };

/**
 * The conversation of a session's agent as readable lines, or undefined when it has no transcript
 * Holdfast can find (not an agent, a profile without one, no id recorded yet, no file, unreadable).
 * Throws TranscriptTooCostly when the file is over a bound, or was so before and has not changed.
 */
export async function readTranscript(
  agent: TranscriptAgent | undefined,
  cwd: string,
  home: string = os.homedir(),
  bounds: TranscriptBounds = UNBOUNDED,
): Promise<Transcript | undefined> {
  try {
    const file = await findTranscript(agent, cwd, home);
    if (!file) return undefined;
    const profile = profileOf(agent)!.profile;
    const { lines, partial } = await render(profile, file, bounds);
    return { agentName: builtinAgent(profile)?.name ?? profile, file, lines, partial };
  } catch (err) {
    if (err instanceof TranscriptTooCostly) throw err;
    // Unreadable (permissions, removed while read, corrupt): the session's own history is still searched.
    return undefined;
  }
}
