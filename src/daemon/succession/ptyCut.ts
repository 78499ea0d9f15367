// What a PTY holds from a succession's cut until it is released or uncut: output read while
// draining the stream, input written after the cut, and whether the session wanted it paused.
import { InputLimit } from '../../protocol/limits';

export type CutPhase = 'reading' | 'cut' | 'released';

export function inputLimitReason(queued: number, bytes: number): string {
  return (
    `the program has not read ${queued} bytes of its input yet: ${bytes} more would pass the ` +
    `${InputLimit.QueuedBytes}-byte limit`
  );
}

export class HeldAtCut {
  private currentPhase: CutPhase = 'reading';
  private readonly heldOutput: Buffer[] = [];
  private readonly heldInput: Buffer[] = [];
  private heldInputBytes = 0;
  /** What the session last asked for, applied when reading starts again. */
  paused = false;

  get phase(): CutPhase {
    return this.currentPhase;
  }

  cut(): void {
    this.currentPhase = 'cut';
  }

  /** Reading again; the input written since the manifest took it, to be written now (else the next cut sends it). */
  uncut(): Buffer {
    this.currentPhase = 'reading';
    return this.takeInput();
  }

  release(): void {
    this.currentPhase = 'released';
    this.heldOutput.length = 0;
    this.heldInput.length = 0;
  }

  /** Keeps a chunk read from the PTY while cut (true), or says it is to be delivered (false). */
  output(chunk: Buffer): boolean {
    if (this.currentPhase === 'reading') return false;
    if (this.currentPhase === 'cut') this.heldOutput.push(chunk);
    return true;
  }

  takeOutput(): Buffer {
    return Buffer.concat(this.heldOutput.splice(0));
  }

  /** Holds input written after the cut, under the same bound as input waiting in the kernel's queue. */
  input(data: string | Buffer, queued: number): string | undefined {
    if (this.currentPhase === 'released') return 'the program was handed to a successor daemon';
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
    if (queued + this.heldInputBytes + bytes.length > InputLimit.QueuedBytes)
      return inputLimitReason(queued + this.heldInputBytes, bytes.length);
    this.heldInput.push(bytes);
    this.heldInputBytes += bytes.length;
    return undefined;
  }

  takeInput(): Buffer {
    this.heldInputBytes = 0;
    return Buffer.concat(this.heldInput.splice(0));
  }
}

/** Resolves once `settled()` holds, asking again each turn of the event loop (input in flight ends fast). */
export function untilSettled(settled: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (settled() ? resolve() : setImmediate(check));
    check();
  });
}
