// The recovery requests (recovery.*, config.*, relaunch, resume) and the checkpointer's hook points.
// Nothing is restored or re-run on its own: restore brings sessions back archived (exited, fresh
// ids, the saved screen, no process); relaunch and resume start a new run in an archive's place.
import * as fs from 'node:fs';
import * as os from 'node:os';
import type { IDisposable } from '../../base/disposable';
import { type DaemonEvent, ErrorCode, type Params } from '../../protocol/messages';
import { resumeArgv } from '../../agents/agents';
import type { ShellIntegrationParams } from '../../protocol/shell';
import { CheckpointLimit, clampScreenSize, TextLimit } from '../../protocol/limits';
import { hasControl } from '../../text/printable';
import { type ArchivedFrom, archivedFrom, type CheckpointFile, type RecoveryMethods } from '../../protocol/recovery';
import { ArchivedProcess } from '../pty/archivedProcess';
import { recoveryDir } from '../../host/checkpointFiles';
import { configFilePath } from '../../host/paths';
import { Checkpointer } from './checkpoint';
import { ConfigStore } from '../config';
import { Session } from './session';
import { DaemonError } from '../daemonError';
import type { SessionRegistry } from './sessionRegistry';
import type { CheckpointFound, CheckpointsRead } from '../search/textJobs';
import type { TextWorkers } from '../textWorkers';

export class Recovery implements IDisposable {
  private readonly configListener: IDisposable;
  readonly config: ConfigStore;
  readonly checkpoints: Checkpointer;
  private readonly dir = recoveryDir();
  /** Checkpoints this daemon restored: a second restore would duplicate every session. */
  private readonly restored = new Set<string>();

  constructor(
    private readonly registry: SessionRegistry,
    socket: string,
    startedAt: number,
    private readonly log: (line: string) => void,
    /** Tells clients about a session this module created. */
    private readonly announce: (event: DaemonEvent) => void,
    /** Where checkpoint files are read and parsed, under the search budget (a file can be 16 MiB). */
    private readonly workers: TextWorkers,
  ) {
    this.config = new ConfigStore(configFilePath(), log);
    this.checkpoints = new Checkpointer({
      dir: this.dir,
      startedAt,
      socket,
      config: () => this.config.config.recovery,
      sessions: () => registry.list(),
      log,
    });
    this.configListener = this.config.onChange(() => this.checkpoints.configChanged());
  }

  /** Every routed event: the checkpointer decides what is worth a write. */
  noteEvent(event: DaemonEvent): void {
    this.checkpoints.note(event);
  }

  /** On stop, before any session is killed. */
  beforeStop(): Promise<void> {
    return this.checkpoints.final();
  }

  /** The recovery requests; their params are checked by requestSchemas.ts before they get here. */
  readonly methods: { [M in keyof RecoveryMethods]: (params: Params<M>) => unknown } = {
    'recovery.list': async () => {
      const { checkpoints, skipped } = await this.read();
      for (const s of skipped) this.log(`recovery: skipped ${s.file}: ${s.error}`);
      return { checkpoints, skipped };
    },
    'recovery.inspect': async (p) => {
      const { summary, inspected } = await this.find(p.id);
      return { checkpoint: summary, sessions: inspected };
    },
    'recovery.restore': async (p) => {
      if (this.restored.has(p.id))
        throw new DaemonError(ErrorCode.BadRequest, `checkpoint ${p.id} was already restored by this daemon`);
      const { summary, data, droppedScreens } = await this.find(p.id);
      for (const { id, chars } of droppedScreens)
        this.log(
          `recovery: checkpoint ${data.id}: the screen of ${id} is ${chars} characters, over the ` +
            `${CheckpointLimit.ScreenChars} a checkpoint may hold: restored without it`,
        );
      const sessions = await this.restore(data);
      await this.supersede(summary.file, data.id);
      return { sessions };
    },
    'recovery.forget': async (p) => {
      const { summary } = await this.find(p.id);
      fs.rmSync(summary.file, { force: true });
      this.log(`recovery: checkpoint ${summary.id} forgotten`);
      return { forgotten: summary.id };
    },
    'recovery.checkpoint': async () => {
      if (!this.config.config.recovery.enabled)
        throw new DaemonError(
          ErrorCode.BadRequest,
          'recovery is off (turn it on: holdfast config set recovery.enabled true)',
        );
      if (this.registry.size === 0) throw new DaemonError(ErrorCode.BadRequest, 'there are no sessions to checkpoint');
      const summary = await this.checkpoints.write().catch((err: Error) => {
        throw new DaemonError(ErrorCode.Internal, `checkpoint not written: ${err.message}`);
      });
      if (!summary) throw new DaemonError(ErrorCode.Internal, 'checkpoint not written');
      return { checkpoint: summary };
    },
    'config.get': (p) => {
      const value = p.key === undefined ? undefined : this.config.get(p.key);
      return { config: this.config.config, file: this.config.file, ...(p.key === undefined ? {} : { value }) };
    },
    'config.set': (p) => {
      this.config.set(p.key, p.value);
      this.log(`config: ${p.key} set to ${JSON.stringify(p.value)}`);
      return { config: this.config.config, file: this.config.file };
    },
    'config.reload': () => {
      this.config.reload();
      this.log('config: reloaded');
      return { config: this.config.config, file: this.config.file };
    },
    relaunch: (p) => this.relaunch(this.registry.get(p.session), p.argv, p.env, p.shellIntegration),
    resume: async (p) => {
      const session = this.registry.get(p.session);
      const from = archivedFrom(session.metadata);
      if (!from)
        throw new DaemonError(
          ErrorCode.BadRequest,
          `session ${session.id} is not archived; only a restored session can be resumed`,
        );
      if (!from.running)
        throw new DaemonError(
          ErrorCode.BadRequest,
          `session ${session.id} had already exited when checkpoint ${from.checkpoint} was written; it is ` +
            'not resumed (use relaunch for a new run)',
        );
      // The command is rebuilt from the profile (or the client's template), never read from the editable file.
      const argv = resumeArgv(session.metadata, p.resumeArgv);
      if (typeof argv === 'string')
        throw new DaemonError(ErrorCode.BadRequest, `session ${session.id} cannot be resumed: ${argv}`);
      return { ...(await this.relaunch(session, argv, p.env)), argv };
    },
  };

  /**
   * The checkpoint files, read and checked in a text worker: `limit` when that runs out of the budget.
   * The worker stops reading new files at half the budget and keeps what it read, so the next list
   * goes on where this one stopped instead of starting over.
   */
  private async read(id?: string): Promise<CheckpointsRead> {
    const budgetMs = this.config.config.search.budgetMs;
    const job = {
      kind: 'checkpoints' as const,
      dir: this.dir,
      currentId: this.checkpoints.id,
      id,
      readForMs: budgetMs / 2,
    };
    const tooCostly = (budgetMs: number) =>
      `reading them ran out of the time budget (${budgetMs} ms, search.budgetMs); move big files out of ${this.dir}`;
    const read = await this.workers.run(job, 'checkpoints', undefined, tooCostly);
    if (read.unread > 0)
      throw new DaemonError(
        ErrorCode.Limit,
        `checkpoints: ${read.unread} of ${read.unread + read.checkpoints.length + read.skipped.length} files left ` +
          `unread within the time budget (${budgetMs} ms, search.budgetMs); ask again to read on, or move big ` +
          `files out of ${this.dir}`,
      );
    return read;
  }

  private async find(id: unknown): Promise<CheckpointFound> {
    if (typeof id !== 'string' || !id) throw new DaemonError(ErrorCode.BadRequest, 'a checkpoint id is required');
    const { found, skipped } = await this.read(id);
    if (found) return found;
    const bad = skipped.find((s) => s.file.endsWith(`checkpoint-${id}.json`));
    if (bad) throw new DaemonError(ErrorCode.BadRequest, `checkpoint ${id} cannot be read: ${bad.error}`);
    throw new DaemonError(ErrorCode.NoSession, `no checkpoint "${id}" (see holdfast recovery list)`);
  }

  /** Archived sessions in the checkpoint's order; answered once each shows its saved screen. */
  private async restore(checkpoint: CheckpointFile): Promise<ReturnType<Session['info']>[]> {
    if (checkpoint.id === this.checkpoints.id)
      throw new DaemonError(ErrorCode.BadRequest, `checkpoint ${checkpoint.id} is this daemon's own`);
    if (this.restored.has(checkpoint.id))
      throw new DaemonError(ErrorCode.BadRequest, `checkpoint ${checkpoint.id} was already restored by this daemon`);
    this.restored.add(checkpoint.id);
    const sessions: Session[] = [];
    for (const saved of checkpoint.sessions) {
      const previous = archivedFrom(saved.metadata);
      // Its archives of an older checkpoint come back with it: that one restored again would duplicate them.
      if (typeof previous?.checkpoint === 'string') this.restored.add(previous.checkpoint);
      const from: ArchivedFrom = {
        checkpoint: checkpoint.id,
        id: saved.id,
        // An archive that was never relaunched keeps the running state of its own original.
        running: saved.running || previous?.running === true,
        exit: saved.running ? null : (saved.exit ?? null),
        writtenAt: checkpoint.writtenAt,
      };
      const exit =
        saved.exit && !saved.running
          ? { code: saved.exit.code, signal: saved.exit.signal }
          : { code: null, signal: null };
      const session = this.registry.add(
        (id) =>
          new Session({
            id,
            argv: saved.argv ?? [],
            cwd: saved.startCwd ?? saved.cwd,
            ...(saved.startCwd !== undefined && saved.cwd !== saved.startCwd ? { reportedCwd: saved.cwd } : {}),
            env: {},
            // A crafted file's 10000x10000 would cost the daemon a gigabyte: the same bounds as a client's.
            ...clampScreenSize(saved.cols, saved.rows),
            scrollback: this.registry.limits.defaultScrollback,
            name: clampName(saved.name),
            metadata: { ...saved.metadata, archivedFrom: from },
            process: new ArchivedProcess(saved.screen, exit),
            emulators: this.registry.emulators,
            typing: this.registry.typing,
            onEmulatorError: (err) => this.log(`session ${id}: emulator: ${err.message}`),
          }),
      );
      sessions.push(session);
    }
    await Promise.all(sessions.map((s) => s.hasExited));
    this.log(`recovery: restored checkpoint ${checkpoint.id}: ${sessions.map((s) => s.id).join(' ') || 'no sessions'}`);
    for (const s of sessions) this.announce({ type: 'session', session: s.info() });
    return sessions.map((s) => s.info());
  }

  /**
   * Once this daemon's own checkpoint holds the archives, the restored file is superseded: kept,
   * it would be offered again after this daemon ends with no sessions (its own file is then deleted).
   */
  private async supersede(file: string, id: string): Promise<void> {
    if (!this.config.config.recovery.enabled) return;
    const own = await this.checkpoints
      .write()
      .catch((err: Error) => this.log(`recovery: checkpoint after restoring ${id} not written: ${err.message}`));
    if (!own) return;
    fs.rmSync(file, { force: true });
    this.log(`recovery: checkpoint ${id} is superseded by ${own.id} (which holds its archives): removed`);
  }

  /** A new run in an exited session's place: same name, cwd, size, metadata (less archivedFrom), position. */
  private async relaunch(
    old: Session,
    argv: string[] | undefined,
    env: Record<string, string> | undefined,
    /** Omitted: as the old run's shell was started (its nonce kept, for the tab that trusts it). */
    shellIntegration?: ShellIntegrationParams,
  ): Promise<{ session: ReturnType<Session['info']>; replaced: string }> {
    if (old.isRunning)
      throw new DaemonError(
        ErrorCode.BadRequest,
        `session ${old.id} is still running; only an exited or archived session can be relaunched`,
      );
    const info = old.info();
    const { archivedFrom: _dropped, ...metadata } = old.metadata;
    const cwd = fs.statSync(info.cwd, { throwIfNoEntry: false })?.isDirectory() ? info.cwd : os.homedir();
    const session = this.registry.create({
      name: info.name,
      argv: argv ?? (info.argv.length > 0 ? info.argv : undefined),
      cwd,
      env,
      cols: info.cols,
      rows: info.rows,
      metadata,
      shellIntegration: shellIntegration ?? (old.shellNonce ? { nonce: old.shellNonce } : undefined),
    });
    this.registry.replace(old, session);
    this.log(`session ${session.id} "${session.name}" started in ${old.id}'s place: pid ${session.pid}`);
    this.announce({ type: 'session', session: session.info() });
    return { session: session.info(), replaced: old.id };
  }

  dispose(): void {
    this.configListener.dispose();
    this.checkpoints.dispose();
  }
}

/** A saved name that would be refused from a client (too long, control characters) is made one that would not. */
function clampName(name: string): string {
  const printable = [...name]
    .map((c) => (hasControl(c) ? '?' : c))
    .join('')
    .slice(0, TextLimit.Name);
  return printable.trim() || 'restored';
}
