// `holdfast attach`: the session in the current terminal, as input owner or watcher, until the
// detach key, a takeover, the program's exit, or the daemon stopping. A lost connection (a handoff,
// ssh gone) is reconnected and the screen resynced. The terminal is restored on every way out (and
// on signals and crashes, through process 'exit').
import { type Attachment, type HoldfastClient, RequestError } from '../client/client';
import { type DaemonEvent, ErrorCode, type ExitStatus, type Role, type SessionInfo } from '../protocol/messages';
import { boolOpt, expectPositionals, stringOpt } from './args';
import type { Command, CommandResult } from './command';
import { connect } from './connect';
import type { DaemonLink } from '../link/daemonLink';
import { lossReason, lostLine, reconnect } from '../link/reconnect';
import { ExitCode, usageError } from './errors';
import { keyBytes, UnknownKeyError } from '../text/keys';
import { formatState } from './output';
import {
  AltScreenTracker,
  detachSequences,
  findDetach,
  restoreSequence,
  snapshotPrefix,
  withoutFullReset,
} from './terminal';

export const DEFAULT_DETACH_KEY = 'ctrl-\\';
/** Chunks of keys held while (re)connecting; those typed beyond are dropped. */
const MAX_KEYS_HELD = 1024;

type EndReason = 'detached' | 'taken' | 'exited' | 'removed' | 'stopped' | 'disconnected' | 'signal';

export const attachCommand: Command = {
  name: 'attach',
  summary: 'attach the session to this terminal (input owner, or --watch); detach with ctrl-\\',
  usage: 'attach ID [--watch] [--detach-key K]',
  options: {
    watch: { type: 'boolean', help: 'watch only: never type into or resize the session' },
    'detach-key': { type: 'string', value: 'K', help: `key that detaches (default ${DEFAULT_DETACH_KEY})` },
  },
  details: [
    "As input owner your keys go to the program and your terminal's size becomes the session's; a " +
      'previous owner is told and detached.',
    'Ends when you press the detach key, when another client takes input over, when the program ' +
      'exits, or when the daemon stops; your terminal is reset each time (alternate screen, cursor, ' +
      'mouse, paste and keypad modes, scroll region, colours).',
    'A lost connection (`holdfast upgrade`, ssh gone) is said in one line and reconnected by itself; the ' +
      'screen is redrawn from the session, the program never notices. disconnected: it could not be.',
    '--json prints {"session": ID, "reason": ' +
      'detached|taken|exited|removed|stopped|disconnected|signal, "exit": ...} after the terminal is ' +
      'restored.',
  ],
  async run(ctx) {
    expectPositionals(ctx.args, 1, 1, 'session ID or name');
    const role: Role = boolOpt(ctx.args, 'watch') ? 'watcher' : 'owner';
    const keyName = stringOpt(ctx.args, 'detach-key') ?? DEFAULT_DETACH_KEY;
    let detachKey: Buffer;
    try {
      detachKey = Buffer.from(keyBytes(keyName), 'utf8');
    } catch (err) {
      if (err instanceof UnknownKeyError) throw usageError(err.message);
      throw err;
    }
    const client = await connect(ctx);
    const attach = new AttachSession(ctx.link, client, role, detachKey);
    try {
      // The id (not the name the user typed) is what events carry.
      const { session } = await client.request('show', { session: ctx.args.positionals[0] });
      if (ctx.env.HOLDFAST_SESSION === session.id)
        throw usageError(`this shell runs inside session ${session.id}; attaching it to itself would loop`);
      return await attach.run(session);
    } finally {
      attach.client.close();
    }
  },
};

class AttachSession {
  private readonly stdin = process.stdin;
  private readonly stdout = process.stdout;
  private readonly alt = new AltScreenTracker();
  private readonly detachKeys: Buffer[];
  private attachment: Attachment | undefined;
  /** Keys typed before the first snapshot: the daemon makes us owner only then, so they wait. */
  private earlyInput: Buffer[] | undefined = [];
  private rawMode = false;
  private snapshotSeen = false;
  private restored = true;
  private ended = false;
  private resolveEnd!: (result: CommandResult) => void;
  private rejectEnd!: (err: Error) => void;
  private readonly cleanups: (() => void)[] = [];
  /** The current connection's listeners: replaced with it on a reconnect. */
  private readonly connectionCleanups: (() => void)[] = [];
  /** Stops a reconnect under way when the attach ends. */
  private readonly stopReconnect = new AbortController();

  private id = '';
  private name = '';
  /** Set when the program had already ended: show its last screen, then leave. */
  private exitedBefore: ExitStatus | null = null;
  /** After a reconnect: the snapshot replaces the screen drawn before, history and all. */
  private reconnected = false;

  constructor(
    private readonly link: DaemonLink,
    public client: HoldfastClient,
    private role: Role,
    detachKey: Buffer,
  ) {
    this.detachKeys = detachSequences(detachKey);
  }

  run(session: SessionInfo): Promise<CommandResult> {
    const done = new Promise<CommandResult>((resolve, reject) => {
      this.resolveEnd = resolve;
      this.rejectEnd = reject;
    });
    this.takeTerminal();
    this.listen();
    this.attachTo(session);
    return done;
  }

  /** Attaches the current connection to `session` (again, after a reconnect). */
  private attachTo(session: SessionInfo): void {
    this.id = session.id;
    this.name = session.name;
    this.exitedBefore = session.state === 'exited' ? session.exit : null;
    this.listenToConnection();
    const size =
      this.role === 'owner' && this.stdout.isTTY ? { cols: this.stdout.columns, rows: this.stdout.rows } : {};
    this.client
      .attach(
        { session: this.id, role: this.role, ...size },
        {
          onSnapshot: (bytes, why) => this.onSnapshot(bytes, why === 'resync'),
          onOutput: (bytes) => this.onOutput(bytes),
          onEvent: (event) => this.onEvent(event),
        },
      )
      .then(
        (attachment) => {
          this.attachment = attachment;
          if (this.ended) void attachment.detach();
          else this.flushEarlyInput();
        },
        // A connection lost before the answer is reconnected (its close says so); a refusal ends the attach.
        (err: Error) => (err instanceof RequestError ? this.fail(err) : undefined),
      );
  }

  /** The connection is lost: one line, then a new connection and the same session again. */
  private reconnect(error: Error | undefined): void {
    for (const cleanup of this.connectionCleanups.splice(0)) cleanup();
    this.attachment = undefined;
    this.earlyInput ??= [];
    this.snapshotSeen = false;
    this.reconnected = true;
    const lost = this.client;
    // On the terminal, in raw mode, over the screen the resync redraws; a file or pipe keeps it off its bytes.
    const line = `holdfast: ${lostLine(this.link, lossReason(this.link, this.client, error))}`;
    if (this.stdout.isTTY) this.write(`\r\n${line}\r\n`);
    else process.stderr.write(`${line}\n`);
    reconnect(this.link, { signal: this.stopReconnect.signal })
      .then(async (client) => {
        this.client = client;
        const { session } = await client.request('show', { session: this.id });
        if (!this.ended) this.attachTo(session);
      })
      .catch((err: Error) => {
        if (this.ended) return;
        if (err instanceof RequestError && err.code === ErrorCode.NoSession)
          return this.end('removed', `session ${this.label()} was removed`, ExitCode.Ok);
        // Lost again before the session answered: once more, from the top.
        if (this.client.isClosed && !(err instanceof RequestError) && this.client !== lost) return this.reconnect(err);
        this.end('disconnected', `could not reconnect: ${err.message}`, ExitCode.Failed);
      });
  }

  private takeTerminal(): void {
    this.restored = false;
    if (this.stdin.isTTY) {
      this.stdin.setRawMode(true);
      this.rawMode = true;
    }
    // Last resort: a crash or a process.exit elsewhere still gives the terminal back.
    const onExit = () => this.restoreTerminal();
    process.on('exit', onExit);
    this.cleanups.push(() => process.off('exit', onExit));
  }

  private listen(): void {
    const onInput = (chunk: Buffer) => this.onInput(chunk);
    this.stdin.on('data', onInput);
    this.stdin.resume();
    this.cleanups.push(() => {
      this.stdin.off('data', onInput);
      this.stdin.pause();
    });

    const onResize = () => {
      if (this.role === 'owner' && this.attachment && this.stdout.columns && this.stdout.rows) {
        // A resize that fails means the session ended or the connection closed: the end handlers report that.
        this.attachment.resize(this.stdout.columns, this.stdout.rows).catch(() => undefined);
      }
    };
    this.stdout.on('resize', onResize);
    this.cleanups.push(() => this.stdout.off('resize', onResize));

    // Writing to a terminal that went away (SIGHUP) must not crash us before we clean up.
    const onWriteError = () => undefined;
    this.stdout.on('error', onWriteError);
    this.cleanups.push(() => this.stdout.off('error', onWriteError));

    for (const signal of ['SIGTERM', 'SIGHUP', 'SIGINT'] as NodeJS.Signals[]) {
      const handler = () => this.end('signal', '', ExitCode.Ok);
      process.on(signal, handler);
      this.cleanups.push(() => process.off(signal, handler));
    }

    this.cleanups.push(
      () => this.stopReconnect.abort(new Error('detached')),
      () => this.connectionCleanups.splice(0).forEach((cleanup) => cleanup()),
    );
  }

  private listenToConnection(): void {
    const events = this.client.onEvent((event) => {
      if (event.type === 'stopping') this.end('stopped', 'the daemon is stopping', ExitCode.Ok);
    });
    const closed = this.client.onClose((error) => this.reconnect(error));
    this.connectionCleanups.push(
      () => events.dispose(),
      () => closed.dispose(),
    );
  }

  private onInput(chunk: Buffer): void {
    const at = findDetach(chunk, this.detachKeys);
    const keys = at < 0 ? chunk : chunk.subarray(0, at);
    if (this.role === 'owner' && keys.length > 0) {
      // Held while (re)connecting, up to a paste's worth: a wait of minutes must not grow without bound.
      if (!this.earlyInput) this.attachment?.write(keys);
      else if (this.earlyInput.length < MAX_KEYS_HELD) this.earlyInput.push(Buffer.from(keys));
    }
    if (at >= 0) this.end('detached', '', ExitCode.Ok);
  }

  private onSnapshot(bytes: Buffer, resync: boolean): void {
    if (this.ended) return;
    if (this.stdout.isTTY) this.write(snapshotPrefix(this.alt.active));
    this.alt.active = false;
    const body = withoutFullReset(bytes, resync || this.reconnected);
    this.alt.feed(body);
    this.write(body);
    this.snapshotSeen = true;
    this.flushEarlyInput();
    if (this.exitedBefore) this.endExited(this.exitedBefore);
  }

  private flushEarlyInput(): void {
    if (!this.earlyInput || !this.attachment || !this.snapshotSeen) return;
    const keys = Buffer.concat(this.earlyInput);
    this.earlyInput = undefined;
    if (keys.length > 0 && this.role === 'owner') this.attachment.write(keys);
  }

  private onOutput(bytes: Buffer): void {
    if (this.ended) return;
    this.alt.feed(bytes);
    this.write(bytes);
  }

  private onEvent(event: DaemonEvent): void {
    switch (event.type) {
      case 'role':
        if (event.role === 'watcher' && this.role === 'owner') {
          this.end(
            'taken',
            `input was taken over (${event.reason || 'another client claimed it'}); detached from ${this.label()}`,
            ExitCode.Ok,
          );
        }
        this.role = event.role;
        return;
      case 'exit':
        if (event.id === this.id) this.endExited(event.exit);
        return;
      case 'removed':
        if (event.id === this.id) this.end('removed', `session ${this.label()} was removed`, ExitCode.Ok);
        return;
      default:
        return;
    }
  }

  private endExited(exit: ExitStatus): void {
    this.end('exited', `session ${this.label()} ${formatState({ state: 'exited', exit })}`, ExitCode.Ok, exit);
  }

  private label(): string {
    return this.name && this.name !== this.id ? `${this.name} (${this.id})` : this.id;
  }

  private write(data: string | Buffer): void {
    try {
      this.stdout.write(data);
    } catch {
      // the terminal is gone; the end handlers take it from here
    }
  }

  private restoreTerminal(): void {
    if (this.restored) return;
    this.restored = true;
    if (this.rawMode) {
      try {
        this.stdin.setRawMode(false);
      } catch {
        // no terminal left to restore
      }
      this.rawMode = false;
    }
    // Only a terminal needs putting back; a file or pipe (`attach --watch > log`) gets no resets.
    if (this.stdout.isTTY) this.write(restoreSequence(this.alt.active));
  }

  /** The attach itself was refused (e.g. the session went away): main reports it like any error. */
  private fail(err: Error): void {
    if (this.ended) return;
    this.ended = true;
    for (const cleanup of this.cleanups.splice(0).reverse()) cleanup();
    this.restoreTerminal();
    this.rejectEnd(err);
  }

  private end(reason: EndReason, message: string, exitCode: ExitCode, exit?: ExitStatus): void {
    if (this.ended) return;
    this.ended = true;
    for (const cleanup of this.cleanups.splice(0).reverse()) cleanup();
    void this.attachment?.detach();
    this.restoreTerminal();
    // The program's last line may have no newline: start ours on a fresh line.
    const text = message || `detached from ${this.label()}`;
    if (this.stdout.isTTY) this.write('\r\n');
    process.stderr.write(`holdfast: ${text}\n`);
    this.resolveEnd({ data: { session: this.id, reason, exit: exit ?? null }, exitCode });
  }
}
