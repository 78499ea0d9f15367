// The daemon's log file, rotated by size (one previous file kept). The daemon has no stdout.
// Every entry is one line made printable here, whatever it quotes (client names, file errors, stack
// traces): text from outside can neither forge a line nor put raw escapes in front of whoever reads it.
// Lines are written in order, in the background (libuv's pool): a slow disk never stalls the thread
// that serves clients. The daemon waits for them (flush, bounded) before a successor writes to the same
// file and before it exits.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensurePrivateDir } from '../host/paths';
import { printable } from '../text/printable';

export const MAX_LOG_BYTES = 1024 * 1024;

export enum LogLimit {
  /**
   * Lines waiting for the disk, at most: a whole log file. Past it the disk has stalled for a long
   * while; lines are counted, not kept, and one line says how many once it takes them again.
   */
  QueuedBytes = MAX_LOG_BYTES,
  /** How long a flush waits for a disk that does not answer (a hung mount) before the daemon goes on. */
  FlushWaitMs = 1000,
}

export class Log {
  private size = 0;
  private queue: string[] = [];
  private queuedBytes = 0;
  private dropped = 0;
  /** The write under way, if any: it takes every line queued until the queue is empty. */
  private writing: Promise<void> | undefined;

  constructor(
    readonly file: string,
    private readonly maxBytes = MAX_LOG_BYTES,
    private readonly echo?: (line: string) => void,
  ) {
    ensurePrivateDir(path.dirname(file), false);
    this.size = fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  }

  write(line: string): void {
    const text = `${new Date().toISOString()} [${process.pid}] ${printable(line)}\n`;
    this.echo?.(text);
    if (this.queuedBytes + text.length > LogLimit.QueuedBytes) {
      this.dropped++;
      return;
    }
    if (this.dropped > 0) {
      this.enqueue(
        `${new Date().toISOString()} [${process.pid}] ${this.dropped} lines not logged: the disk fell behind\n`,
      );
      this.dropped = 0;
    }
    this.enqueue(text);
  }

  /** Resolves once every line written so far is in the file (or failed to get there), or after FlushWaitMs. */
  flush(): Promise<void> {
    const writing = this.writing;
    if (!writing) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, LogLimit.FlushWaitMs);
      void writing.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private enqueue(text: string): void {
    this.queue.push(text);
    this.queuedBytes += text.length;
    this.writing ??= this.drain();
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const text = this.queue.join('');
      this.queue = [];
      this.queuedBytes = 0;
      const bytes = Buffer.byteLength(text);
      try {
        if (this.size > 0 && this.size + bytes > this.maxBytes) {
          await fs.promises.rename(this.file, `${this.file}.1`);
          this.size = 0;
        }
        await fs.promises.appendFile(this.file, text, { mode: 0o600 });
        this.size += bytes;
      } catch {
        // a full disk must not take the daemon down
      }
    }
    this.writing = undefined;
  }
}
