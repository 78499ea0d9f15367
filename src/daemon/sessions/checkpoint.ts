// Checkpoints: the daemon's own record of its sessions, so a reboot or a crash loses no layout,
// names, directories, agent ids and (when allowed) screens. One file per daemon run,
// $XDG_STATE_HOME/holdfast/recovery/checkpoint-ID.json (0600, in a 0700 directory), rewritten in
// place atomically (temp file, fsync, rename, fsync of the directory): a reader, or the next
// daemon after a crash, sees the previous version or the new one, never a torn file.
//
// When: ~250 ms after a session is created, removed, renamed, resized, re-tagged or exits; every
// `intervalSeconds` while screens change (screenText on); and on stop, before the sessions are
// killed. Nothing changed, no timer: an idle daemon never wakes up for this.
// Retention: the last `keep` runs' files, none older than a week; each at most maxBytes (scrollback
// is trimmed until it fits). A run whose last session is gone deletes its file rather than keep
// an empty record that would push an older, useful one out.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DaemonEvent } from '../../protocol/messages';
import { checkpointFile, listCheckpointFiles, summarize } from '../../host/checkpointFiles';
import { ensurePrivateDir } from '../../host/paths';
import { CheckpointLimit } from '../../protocol/limits';
import {
  CHECKPOINT_VERSION,
  type CheckpointFile,
  type CheckpointSummary,
  type RecoveryConfig,
  type SavedSession,
} from '../../protocol/recovery';
import type { Session } from './session';

export enum CheckpointTiming {
  /** A structural change (create, remove, rename, exit, ...) is written this long after it. */
  DebounceMs = 250,
  MaxAgeMs = 7 * 24 * 60 * 60 * 1000,
}

/**
 * Scrollback saved with a screen, before trimming to fit the size limit. Serializing costs CPU on
 * the daemon's only thread (~10 ms per 1,000 lines), so it is bounded, and done one session a turn.
 */
const MAX_SAVED_SCROLLBACK = 2000;
const TEMP_PREFIX = '.tmp-';

/** 20261201T212724Z-4242: when the daemon started and its pid. */
export function runId(startedAt: number, pid: number): string {
  return `${new Date(startedAt)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}-${pid}`;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface CheckpointerOptions {
  dir: string;
  startedAt: number;
  socket: string;
  config: () => RecoveryConfig;
  sessions: () => Session[];
  log: (line: string) => void;
}

export class Checkpointer {
  readonly id: string;
  readonly file: string;
  private timer: NodeJS.Timeout | undefined;
  private timerDue = 0;
  /** A structural change not written yet. */
  private dirty = false;
  /** When the last write collected the sessions: output after it is not in the file. */
  private collectedAt = 0;
  private writing: Promise<CheckpointSummary | undefined> | undefined;
  private wroteFile = false;
  private closed = false;
  private dirReady = false;
  private readonly active = new Set<string>();

  constructor(private readonly options: CheckpointerOptions) {
    this.id = runId(options.startedAt, process.pid);
    this.file = checkpointFile(options.dir, this.id);
  }

  /** Every event the daemon routes passes here. */
  note(event: DaemonEvent): void {
    if (this.closed || !this.options.config().enabled) return;
    switch (event.type) {
      case 'session':
      case 'removed':
      case 'exit':
        if (event.type !== 'session') this.active.delete(event.id);
        this.dirty = true;
        this.schedule(CheckpointTiming.DebounceMs);
        break;
      case 'activity':
      case 'idle':
        if (event.type === 'activity') this.active.add(event.id);
        else this.active.delete(event.id);
        if (this.options.config().screenText) this.scheduleInterval();
        break;
    }
  }

  /** The config changed: write what the new config says soon. */
  configChanged(): void {
    if (this.closed) return;
    if (!this.options.config().enabled) {
      clearTimeout(this.timer);
      this.timer = undefined;
      return;
    }
    this.dirty = true;
    this.schedule(CheckpointTiming.DebounceMs);
  }

  private intervalMs(): number {
    return this.options.config().intervalSeconds * 1000;
  }

  private scheduleInterval(): void {
    this.schedule(Math.max(CheckpointTiming.DebounceMs, this.collectedAt + this.intervalMs() - Date.now()));
  }

  /** One timer: an earlier due time wins, a later one never postpones a pending write. */
  private schedule(delayMs: number): void {
    const due = Date.now() + delayMs;
    if (this.timer && this.timerDue <= due) return;
    clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.tick();
    }, delayMs);
  }

  private async tick(): Promise<void> {
    if (this.closed) return;
    const screens = this.options.config().screenText;
    // Parsed, not output: a screen read right after output (parsed in a worker) may not have it yet.
    const screenChanged = screens && this.options.sessions().some((s) => s.lastParsedAt >= this.collectedAt);
    // A failed write is logged by writeOnce; the next change or interval tries again.
    if (this.dirty || screenChanged) await this.write().catch(() => undefined);
    // Screens are changing: look again after an interval; otherwise no timer at all.
    if (screens && this.active.size > 0 && !this.closed) this.scheduleInterval();
  }

  /** Writes now; one write at a time (a request during a write writes again after it). */
  write(): Promise<CheckpointSummary | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    // The write in progress reports its own failure (to its caller, and in the log).
    if (this.writing) return this.writing.catch(() => undefined).then(() => this.write());
    const writing = this.writeOnce().finally(() => {
      if (this.writing === writing) this.writing = undefined;
    });
    this.writing = writing;
    return writing;
  }

  /** The last write, before the sessions are killed: their state is what the crash would have left. */
  async final(): Promise<void> {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.closed = true;
    if (this.options.config().enabled) {
      // Failures are logged by writeOnce; stopping goes on without a final checkpoint.
      await this.writing?.catch(() => undefined);
      await this.writeOnce().catch(() => undefined);
    }
  }

  /** A successor daemon holds the sessions and writes its own: this one's file would offer them twice. */
  async handedOver(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.writing?.catch(() => undefined);
    if (this.wroteFile) await fs.promises.rm(this.file, { force: true });
  }

  dispose(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  private async writeOnce(): Promise<CheckpointSummary | undefined> {
    const config = this.options.config();
    this.dirty = false;
    this.collectedAt = Date.now();
    const sessions = this.options.sessions();
    try {
      if (sessions.length === 0) {
        if (this.wroteFile) {
          await fs.promises.rm(this.file, { force: true });
          this.wroteFile = false;
        }
        return undefined;
      }
      this.prepareDir();
      const { data, checkpoint } = await this.serialize(sessions, config);
      // Exclusive and unguessable: a planted file or symlink at the temp name is never written through.
      const temp = path.join(
        this.options.dir,
        `${TEMP_PREFIX}${process.pid}-${this.id}-${randomBytes(6).toString('hex')}`,
      );
      const handle = await fs.promises.open(temp, 'wx', 0o600);
      try {
        try {
          await handle.writeFile(data);
          await handle.sync();
        } finally {
          await handle.close();
        }
        await fs.promises.rename(temp, this.file);
      } catch (err) {
        // A full disk: the partial temp file would keep it full (and the log, and everyone else's writes).
        await fs.promises.rm(temp, { force: true });
        throw err;
      }
      const dir = await fs.promises.open(this.options.dir, 'r');
      try {
        await dir.sync();
      } finally {
        await dir.close();
      }
      this.wroteFile = true;
      await this.prune(config.keep);
      return summarize(checkpoint, this.file, data.length, this.id);
    } catch (err) {
      this.options.log(`checkpoint not written: ${(err as Error).message}`);
      throw err;
    }
  }

  private prepareDir(): void {
    if (this.dirReady) return;
    ensurePrivateDir(this.options.dir, true);
    // Temp files of daemons that died while writing.
    for (const name of fs.readdirSync(this.options.dir)) {
      if (!name.startsWith(TEMP_PREFIX)) continue;
      const pid = Number(name.slice(TEMP_PREFIX.length).split('-')[0]);
      if (pid !== process.pid && !isAlive(pid)) fs.rmSync(path.join(this.options.dir, name), { force: true });
    }
    this.dirReady = true;
  }

  /** The JSON, with scrollback trimmed (halved, then screens dropped, largest first) until it fits. */
  private async serialize(
    sessions: Session[],
    config: RecoveryConfig,
  ): Promise<{ data: Buffer; checkpoint: CheckpointFile }> {
    const base = sessions.map((s): SavedSession => {
      const info = s.info();
      const saved: SavedSession = {
        id: s.id,
        name: info.name,
        cwd: info.cwd,
        startCwd: info.startCwd,
        cols: info.cols,
        rows: info.rows,
        createdAt: info.createdAt,
        running: s.isRunning,
        exit: info.exit,
        metadata: info.metadata,
      };
      // A title is screen text: shells put the running command line there, secrets and all.
      if (config.screenText) saved.title = info.title;
      if (config.argv && info.argv.length > 0) saved.argv = info.argv;
      return saved;
    });
    const file = (withScreens: SavedSession[]) => {
      const checkpoint: CheckpointFile = {
        version: CHECKPOINT_VERSION,
        id: this.id,
        writtenAt: Date.now(),
        daemonPid: process.pid,
        daemonStartedAt: this.options.startedAt,
        socket: this.options.socket,
        sessions: withScreens,
      };
      return { data: Buffer.from(JSON.stringify(checkpoint), 'utf8'), checkpoint };
    };
    if (!config.screenText) {
      const plain = file(base);
      if (plain.data.length > config.maxBytes)
        throw new Error(`${plain.data.length} bytes without screens, over the ${config.maxBytes}-byte limit`);
      return plain;
    }
    let scrollback = MAX_SAVED_SCROLLBACK;
    for (;;) {
      const withScreens: SavedSession[] = [];
      for (const [i, saved] of base.entries()) {
        // The daemon serves its sessions between two screens, not only after all of them.
        if (i > 0) await new Promise((resolve) => setImmediate(resolve));
        withScreens.push({ ...saved, screen: await this.screenOf(sessions[i], scrollback) });
      }
      const full = file(withScreens);
      if (full.data.length <= config.maxBytes) return full;
      if (scrollback > 0) {
        scrollback = Math.floor(scrollback / 2);
        continue;
      }
      // Even the visible screens do not fit: drop the largest ones until the rest does.
      const order = withScreens
        .map((s, i) => i)
        .sort((a, b) => (withScreens[b].screen?.length ?? 0) - (withScreens[a].screen?.length ?? 0));
      for (const i of order) {
        delete withScreens[i].screen;
        const smaller = file(withScreens);
        if (smaller.data.length <= config.maxBytes) {
          this.options.log(`checkpoint: screens dropped to fit ${config.maxBytes} bytes`);
          return smaller;
        }
      }
      throw new Error(`over the ${config.maxBytes}-byte limit even without screens`);
    }
  }

  /** Keeps this run's file and the newest others up to `keep`; nothing older than a week. */
  private async prune(keep: number): Promise<void> {
    const now = Date.now();
    const files = listCheckpointFiles(this.options.dir)
      .filter((f) => f.path !== this.file)
      .sort((a, b) => b.mtimeMs - a.mtimeMs);
    for (const [i, f] of files.entries()) {
      if (i + 1 < keep && now - f.mtimeMs <= CheckpointTiming.MaxAgeMs) continue;
      await fs.promises.rm(f.path, { force: true });
    }
  }

  /** The session's screen, or none: removed while the checkpoint was being serialized, or unserializable (logged). */
  private async screenOf(session: Session, scrollback: number): Promise<string | undefined> {
    if (session.isDisposed) return undefined;
    try {
      // A screen over the bound a reader takes is written with less scrollback, or not at all.
      for (let lines = scrollback; ; lines = Math.floor(lines / 2)) {
        const screen = await session.snapshotText(lines);
        if (screen.length <= CheckpointLimit.ScreenChars) return screen;
        if (lines === 0) throw new Error(`its screen alone is over ${CheckpointLimit.ScreenChars} characters`);
      }
    } catch (err) {
      this.options.log(`checkpoint: no screen for session ${session.id}: ${(err as Error).stack ?? String(err)}`);
      return undefined;
    }
  }
}
