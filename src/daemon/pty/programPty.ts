// What a session uses of its program's PTY, whoever holds it: the daemon that spawned it (PtyProcess) or a
// successor that adopted its master fd (AdoptedPty). And what both give at a succession's cut.
import type { IDisposable } from '../../base/disposable';

export interface ExitInfo {
  code: number | null;
  signal: string | null;
}

export interface ProgramPty extends IDisposable {
  readonly pid: number;
  readonly onData: (listener: (chunk: Buffer) => void) => IDisposable;
  readonly onExit: (listener: (info: ExitInfo) => void) => IDisposable;
  readonly exited: ExitInfo | undefined;
  /** True while the leader runs or anything in its process group is alive (zombies count as gone). */
  groupAlive(): Promise<boolean>;
  /** Writes for the program to read; refused (the reason returned) when too much would wait for it. */
  write(data: string | Buffer): string | undefined;
  resize(cols: number, rows: number): void;
  pause(): void;
  resume(): void;
  /** Signals the program's process group, never a group whose id may belong to someone else now (groupGuard.ts). */
  signalGroup(signal: NodeJS.Signals): Promise<boolean>;
}

/** What a session needs of its program: a PTY of either kind, or an ArchivedProcess (no program, see recovery). */
export type ProgramProcess = Omit<ProgramPty, 'exited'>;

/** What a PTY hands to a successor at the cut. */
export interface PtyCut {
  /** The master, open in this process until release(). */
  fd: number;
  pid: number;
  /** The leader's process group (its pid: every program starts its own session). */
  pgid: number;
  /** Read from the PTY before the cut and not delivered: the successor delivers it first. */
  output: Buffer;
}

/** A ProgramPty that can be handed to a successor: cut, then released (taken) or uncut (the successor failed). */
export interface HandablePty extends ProgramPty {
  readonly cols: number;
  readonly rows: number;
  /**
   * Stops reading now: no byte is read after this returns, nothing more is delivered and no exit is
   * reported. 'ended' when the output already ended (the exit is on its way: wait for it instead).
   */
  cut(): PtyCut | 'ended';
  /** Once none is in flight, the input the program has not taken, with what was written since the cut. */
  takeInput(): Promise<Buffer>;
  /** The successor failed: delivers `output`, writes `input`, reads again, and reports an exit held meanwhile. */
  uncut(output: Buffer, input: Buffer): void;
  /** The successor has it: closes this process's copy of the master; signals nothing, reports nothing more. */
  release(): void;
}
