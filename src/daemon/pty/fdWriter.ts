// Writes to a PTY master fd the way node-pty's own write stream does (its CustomWriteStream is not
// exported): a queue written as the kernel takes it, EAGAIN retried on the next turn, so a program
// that does not read its input never blocks the daemon. With nothing queued, what the kernel takes at
// once is written at once (writeNow).
import * as fs from 'node:fs';
import type { IDisposable } from '../../base/disposable';

/**
 * Writes what the kernel takes now to a non-blocking fd (a PTY master: node-pty opens it so). A keystroke
 * then reaches the program without a round trip through libuv's thread pool, two thread wake-ups that
 * wait for a core on a busy machine. Returns how many bytes are done with: 0 when the kernel takes none
 * (EAGAIN), all of them when the write fails for good (said in `log`: the terminal is gone).
 */
export function writeNow(fd: number, data: Buffer, log: (line: string) => void): number {
  try {
    return fs.writeSync(fd, data);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EAGAIN') return 0;
    log(`writing to the program failed (its input is dropped): ${(err as Error).message}`);
    return data.length;
  }
}

interface WriteTask {
  buffer: Buffer;
  offset: number;
}

export class FdWriter implements IDisposable {
  private readonly queue: WriteTask[] = [];
  private retry: NodeJS.Immediate | undefined;
  private inFlight = false;
  private closed = false;

  constructor(
    private readonly fd: number,
    private readonly log: (line: string) => void,
  ) {}

  /** Bytes written here that the kernel has not taken yet. */
  get queuedBytes(): number {
    let bytes = 0;
    for (const task of this.queue) bytes += task.buffer.length - task.offset;
    return bytes;
  }

  /** No write is in flight: the queue is empty, or waits for the kernel to take more. */
  get settled(): boolean {
    return !this.inFlight;
  }

  write(data: Buffer): void {
    if (this.closed || data.length === 0) return;
    const idle = this.queue.length === 0 && !this.inFlight && this.retry === undefined;
    const offset = idle ? writeNow(this.fd, data, this.log) : 0;
    if (offset === data.length) return;
    this.queue.push({ buffer: data, offset });
    if (idle) this.next();
  }

  /** Takes what is not written yet (call once settled): none of it will be written here. */
  take(): Buffer {
    clearImmediate(this.retry);
    this.retry = undefined;
    const rest = Buffer.concat(this.queue.map((task) => task.buffer.subarray(task.offset)));
    this.queue.length = 0;
    return rest;
  }

  private next(): void {
    this.retry = undefined;
    if (this.closed || this.queue.length === 0) return;
    const task = this.queue[0];
    this.inFlight = true;
    fs.write(this.fd, task.buffer, task.offset, (err, written) => {
      this.inFlight = false;
      if (this.closed) return;
      if (err) {
        if (err.code === 'EAGAIN') this.retry = setImmediate(() => this.next());
        else {
          // EIO: the terminal is gone; anything else is as final. Either way nothing more goes in.
          this.log(`writing to the program failed (its pending input is dropped): ${err.message}`);
          this.queue.length = 0;
        }
        return;
      }
      task.offset += written;
      if (task.offset >= task.buffer.length) this.queue.shift();
      this.next();
    });
  }

  dispose(): void {
    this.closed = true;
    clearImmediate(this.retry);
    this.retry = undefined;
    this.queue.length = 0;
  }
}
