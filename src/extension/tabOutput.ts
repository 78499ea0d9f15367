// What a tab writes into its terminal: the session's output (decoded, and batched per turn of the
// event loop), snapshots, and Holdfast's notice lines, which must come after the snapshot they
// describe (a snapshot starts with a reset) and are shown again after a history snapshot.
// Pure Node (no vscode import): the tab passes the function that writes to VS Code.
import type { SnapshotReason } from '../protocol/client';
import { noticeLine } from './notices';

/** Notices shown again after a history snapshot (which starts with a reset); older ones are dropped. */
const MAX_NOTICES_KEPT = 16;

export class TabOutput {
  private opened = false;
  private closed = false;
  private beforeOpen: string[] = []; // VS Code drops what a pseudoterminal writes before open()
  private pendingWrite = '';
  private flushHandle: NodeJS.Immediate | undefined;
  private decoder = new TextDecoder('utf-8');
  /** Attaching, and its snapshot has not come yet: notices wait for it. */
  private awaitingSnapshot = false;
  private afterSnapshot: string[] = [];
  private noticesShown: string[] = []; // since the last snapshot, at most MAX_NOTICES_KEPT

  constructor(private readonly write: (text: string) => void) {}

  get isOpen(): boolean {
    return this.opened;
  }

  /** VS Code opened the terminal: what was written before goes out now. */
  open(): void {
    this.opened = true;
    for (const text of this.beforeOpen.splice(0)) this.write(text);
  }

  /** An attach starts: notices printed until its snapshot arrives wait for it. */
  expectSnapshot(): void {
    this.awaitingSnapshot = true;
    this.afterSnapshot = [];
  }

  /** The attach is over (done or failed): notices print at once again. */
  attachSettled(): void {
    this.awaitingSnapshot = false;
  }

  snapshot(bytes: Buffer, why: SnapshotReason): void {
    this.decoder = new TextDecoder('utf-8');
    this.emit(this.decoder.decode(bytes, { stream: true }));
    this.awaitingSnapshot = false;
    // The history snapshot starts with a reset too: the notices printed since the screen come back.
    if (why === 'history') for (const text of this.noticesShown) this.emit(noticeLine(text));
    else this.noticesShown = [];
    for (const text of this.afterSnapshot.splice(0)) this.print(text);
  }

  output(bytes: Uint8Array): void {
    this.emit(this.decoder.decode(bytes, { stream: true }));
  }

  /** A notice about the session as the coming snapshot shows it. */
  printAfterSnapshot(text: string): void {
    if (this.awaitingSnapshot) this.afterSnapshot.push(text);
    else this.print(text);
  }

  print(text: string): void {
    if (this.noticesShown.push(text) > MAX_NOTICES_KEPT) this.noticesShown.shift();
    this.emit(noticeLine(text));
  }

  close(): void {
    this.closed = true;
    if (this.flushHandle) clearImmediate(this.flushHandle);
    this.flushHandle = undefined;
  }

  /** Output arrives in many small frames; the tab gets what one turn of the event loop brought, at once. */
  private emit(text: string): void {
    if (!text || this.closed) return;
    if (!this.opened) {
      this.beforeOpen.push(text);
      return;
    }
    this.pendingWrite += text;
    this.flushHandle ??= setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushHandle = undefined;
    const text = this.pendingWrite;
    this.pendingWrite = '';
    if (text && !this.closed) this.write(text);
  }
}
