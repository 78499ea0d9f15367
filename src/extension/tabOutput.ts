// What a tab writes into its terminal: the session's output (decoded, and paced: a bounded amount per
// time slice), snapshots, and Holdfast's notice lines, which must come after the snapshot they
// describe (a snapshot starts with a reset) and are shown again after a history snapshot. A tab that
// falls too far behind drops what it holds and asks for a fresh snapshot, like any slow client.
// Pure Node (no vscode import): the tab passes the function that writes to VS Code.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import type { SnapshotReason } from '../protocol/client';
import { noticeLine } from './notices';

/** Notices shown again after a history snapshot (which starts with a reset); older ones are dropped. */
const MAX_NOTICES_KEPT = 16;

/**
 * VS Code acknowledges nothing a pseudoterminal writes (its own terminals pause the PTY above 100,000
 * unacknowledged characters, FlowControlConstants.HighWatermarkChars): so the tab sets the pace itself.
 */
export enum OutputPace {
  /** Characters handed to VS Code in one write, at most: VS Code's high watermark for its own terminals. */
  SliceChars = 100_000,
  /** The time between two writes while more waits: at most 10 MB/s reaches the renderer. */
  SliceMs = 10,
  /** Characters waiting beyond which the tab stops writing them and asks for a fresh snapshot instead. */
  MaxBehindChars = 2_000_000,
}

export interface Pace {
  sliceChars: number;
  sliceMs: number;
  maxBehindChars: number;
}

const DEFAULT_PACE: Pace = {
  sliceChars: OutputPace.SliceChars,
  sliceMs: OutputPace.SliceMs,
  maxBehindChars: OutputPace.MaxBehindChars,
};

export class TabOutput {
  private opened = false;
  private closed = false;
  private beforeOpen: string[] = []; // VS Code drops what a pseudoterminal writes before open()
  private pendingWrite = '';
  private flushHandle: NodeJS.Immediate | NodeJS.Timeout | undefined;
  /** Fell behind: output is dropped until the fresh snapshot asked for arrives. */
  private skipping = false;
  private decoder = new TextDecoder('utf-8');
  /** Attaching, and its snapshot has not come yet: notices wait for it. */
  private awaitingSnapshot = false;
  private afterSnapshot: string[] = [];
  private noticesShown: string[] = []; // since the last snapshot, at most MAX_NOTICES_KEPT

  /**
   * `resync`: asks the daemon for a fresh full snapshot (the tab fell behind); false when it cannot.
   * `pace`: OutputPace's figures (smaller in tests, to fall behind a modest flood).
   */
  constructor(
    private readonly write: (text: string) => void,
    private readonly resync: () => boolean = () => false,
    private readonly pace: Pace = DEFAULT_PACE,
  ) {}

  /** Characters waiting to be written (at most MaxBehindChars plus what one turn brought). */
  get behind(): number {
    return this.pendingWrite.length;
  }

  /** Output is being dropped until a fresh snapshot comes. */
  get isSkipping(): boolean {
    return this.skipping;
  }

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
    if (this.skipping) this.pendingWrite = ''; // the snapshot holds all that was dropped
    this.skipping = false;
    this.emit(this.decoder.decode(bytes, { stream: true }));
    this.awaitingSnapshot = false;
    // The history snapshot starts with a reset too: the notices printed since the screen come back.
    if (why === 'history') for (const text of this.noticesShown) this.emit(noticeLine(text));
    else this.noticesShown = [];
    for (const text of this.afterSnapshot.splice(0)) this.print(text);
  }

  output(bytes: Uint8Array): void {
    if (this.skipping) return;
    this.emit(this.decoder.decode(bytes, { stream: true }));
    if (this.pendingWrite.length <= this.pace.maxBehindChars || !this.opened || !this.resync()) return;
    // Too far behind: what waits is dropped and a fresh snapshot (screen and scrollback) replaces it.
    this.pendingWrite = '';
    this.skipping = true;
  }

  /** The fresh snapshot asked for will not come (the channel is gone): a new attach brings one. */
  resyncFailed(): void {
    this.skipping = false;
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
    this.cancelFlush();
  }

  private cancelFlush(): void {
    clearImmediate(this.flushHandle as NodeJS.Immediate);
    clearTimeout(this.flushHandle as NodeJS.Timeout);
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

  /** Writes one slice; the rest waits for the next one, SliceMs later. */
  private flush(): void {
    this.flushHandle = undefined;
    if (this.closed || !this.pendingWrite) return;
    let end = Math.min(this.pendingWrite.length, this.pace.sliceChars);
    if (end < this.pendingWrite.length && isHighSurrogate(this.pendingWrite.charCodeAt(end - 1))) end--;
    const text = this.pendingWrite.slice(0, end);
    this.pendingWrite = this.pendingWrite.slice(end);
    if (this.pendingWrite) this.flushHandle = setTimeout(() => this.flush(), this.pace.sliceMs);
    this.write(text);
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
