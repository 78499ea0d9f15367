// The daemon's log file, rotated by size (one previous file kept). The daemon has no stdout.
// Every entry is one line made printable here, whatever it quotes (client names, file errors, stack
// traces): text from outside can neither forge a line nor put raw escapes in front of whoever reads it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensurePrivateDir } from '../host/paths';
import { printable } from '../text/printable';

export const MAX_LOG_BYTES = 1024 * 1024;

export class Log {
  private size = 0;

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
    try {
      if (this.size + text.length > this.maxBytes) {
        fs.renameSync(this.file, `${this.file}.1`);
        this.size = 0;
      }
      fs.appendFileSync(this.file, text, { mode: 0o600 });
      this.size += Buffer.byteLength(text);
    } catch {
      // a full disk must not take the daemon down
    }
  }
}
