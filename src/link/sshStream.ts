// One ssh process to a host running its `holdfast bridge`, as the stream a protocol client speaks over (its stdin
// and stdout). The stream owns the process: destroying it ends ssh; ssh ending closes it, with why (`failure`).
import { type ChildProcess, spawn } from 'node:child_process';
import { Duplex } from 'node:stream';
import { shellQuote } from '../text/shellQuote';
import type { HostEntry } from './hosts';
import { findHoldfastCommand } from './installScripts';
import { type SshFailure, sshFailure, sshNotStarted } from './sshFailure';

/** The ssh program: HOLDFAST_SSH (as GIT_SSH: e.g. a wrapper that adds -F CONFIG), else `ssh` on the PATH. */
export const SSH_PROGRAM_ENV = 'HOLDFAST_SSH';

/** How much of ssh's stderr is kept to say why it failed. */
const STDERR_KEEP = 8192;

/**
 * Options every bridge gets, before the user's own config is read (the command line wins over it): no prompt of any
 * kind; no escape character, since frames are binary and "\n~." in one would end the session; no agent, X11 or
 * port forwarding offered to the remote; a dead network noticed within 45 s.
 */
export const SSH_OPTIONS = [
  '-T',
  '-e',
  'none',
  '-a',
  '-x',
  '-o',
  'BatchMode=yes',
  '-o',
  'ClearAllForwardings=yes',
  '-o',
  'PermitLocalCommand=no',
  '-o',
  'ConnectTimeout=10',
  '-o',
  'ServerAliveInterval=15',
  '-o',
  'ServerAliveCountMax=3',
];

export interface BridgeCommand {
  /** Start the remote's on-demand daemon if none listens (new, recovery restore, start_session). */
  start?: boolean;
}

/**
 * The remote shell's command line: the host's holdfast (its `command`, else the one on its PATH, else the newest
 * of ~/.holdfast: installScripts.ts), `bridge`, its socket and whether to start a daemon.
 */
export function bridgeCommandLine(host: HostEntry, options: BridgeCommand = {}): string {
  const args = ['bridge'];
  if (host.socket) args.push('--socket', host.socket);
  if (options.start) args.push('--start');
  return host.command ? [host.command, ...args.map(shellQuote)].join(' ') : findHoldfastCommand(args);
}

/** ssh's arguments: the options, then `--` so the target can never be read as one, then the command line. */
export function sshArgs(host: HostEntry, options: BridgeCommand = {}): string[] {
  return [...SSH_OPTIONS, '--', host.target, bridgeCommandLine(host, options)];
}

export class SshStream extends Duplex {
  private readonly child: ChildProcess;
  private stderr = '';
  /** Why ssh ended, once it has (a remote that bridged and then closed has none worth more than a close). */
  failure: SshFailure | undefined;

  constructor(
    readonly host: HostEntry,
    env: NodeJS.ProcessEnv,
    options: BridgeCommand = {},
  ) {
    super({ allowHalfOpen: false });
    const program = env[SSH_PROGRAM_ENV] || 'ssh';
    this.child = spawn(program, sshArgs(host, options), { stdio: ['pipe', 'pipe', 'pipe'], env });
    const { stdin, stdout, stderr } = this.child;
    stdin!.on('error', () => undefined); // ssh gone: its 'close' below says why
    stdout!.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) stdout!.pause();
    });
    stderr!.on('data', (chunk: Buffer) => {
      if (this.stderr.length < STDERR_KEEP) this.stderr += chunk.toString('utf8');
    });
    this.child.on('error', (err) => {
      this.failure ??= sshNotStarted(program, err);
      this.destroy();
    });
    // 'close', not 'exit': only once its pipes are drained has everything ssh and the remote wrote been read.
    this.child.on('close', (status, signal) => {
      this.failure ??= sshFailure(host.target, host.command, status, signal, this.stderr);
      this.push(null);
      this.destroy();
    });
  }

  /** The ssh process's pid (tests kill it to drop the connection). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  override _read(): void {
    this.child.stdout?.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.child.stdin?.writable) this.child.stdin.write(chunk, () => callback());
    else callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.child.stdin?.end();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // Ending ssh's stdin lets the remote bridge end cleanly; a TERM makes sure ssh itself goes.
    this.child.stdin?.destroy();
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    callback(error);
  }
}
