// A client-side terminal for tests: replays what a channel receives (snapshot, then output).
import { Terminal } from '@xterm/headless';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import type { AttachHandlers, SnapshotReason } from '../../src/client/client';
import type { DaemonEvent } from '../../src/protocol/messages';

export class ReplayTerminal implements AttachHandlers {
  readonly terminal: Terminal;
  snapshots = 0;
  resyncs = 0;
  outputBytes = 0;
  readonly events: DaemonEvent[] = [];

  constructor(cols: number, rows: number, scrollback = 10_000) {
    this.terminal = new Terminal({ cols, rows, scrollback, allowProposedApi: true });
    this.terminal.loadAddon(new Unicode11Addon());
    this.terminal.unicode.activeVersion = '11';
  }

  onSnapshot(bytes: Buffer, why: SnapshotReason): void {
    this.snapshots++;
    if (why === 'resync') this.resyncs++;
    this.terminal.write(bytes);
  }

  onOutput(bytes: Buffer): void {
    this.outputBytes += bytes.length;
    this.terminal.write(bytes);
  }

  onEvent(event: DaemonEvent): void {
    this.events.push(event);
  }

  /** Resolves once everything written so far is parsed. */
  settle(): Promise<void> {
    return new Promise((resolve) => this.terminal.write('', resolve));
  }

  async lines(): Promise<string[]> {
    await this.settle();
    const buffer = this.terminal.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < buffer.length; y++) lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
    return lines;
  }

  dispose(): void {
    this.terminal.dispose();
  }
}
