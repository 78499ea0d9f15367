// What a tab writes into its terminal: the session's output (decoded, and paced to what the renderer parses:
// rendererWriter.ts), snapshots, and Holdfast's notice lines, which must come after the snapshot they
// describe (a snapshot starts with a reset) and are shown again after a history snapshot. A tab that
// falls too far behind drops what it holds and asks for a fresh snapshot, like any slow client.
// Pure Node (no vscode import): the tab passes the function that writes to VS Code.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import type { SnapshotReason } from '../client/client';
import { noticeLine } from './notices';
import { DEFAULT_WRITER_PACE, RendererWriter, type WriterPace } from './rendererWriter';

/** Notices shown again after a history snapshot (which starts with a reset); older ones are dropped. */
const MAX_NOTICES_KEPT = 16;

export enum OutputPace {
  /**
   * Characters waiting in the extension host (the renderer parses slower than the session prints) beyond
   * which the tab stops writing them and asks for a fresh snapshot instead: a few MB of strings, about half
   * a second of a loaded renderer's parsing.
   */
  MaxBehindChars = 2_000_000,
}

export interface Pace extends WriterPace {
  maxBehindChars: number;
}

export const DEFAULT_PACE: Pace = { ...DEFAULT_WRITER_PACE, maxBehindChars: OutputPace.MaxBehindChars };

export class TabOutput {
  private opened = false;
  private closed = false;
  private beforeOpen: string[] = []; // VS Code drops what a pseudoterminal writes before open()
  private readonly writer: RendererWriter;
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
    write: (text: string) => void,
    private readonly resync: () => boolean = () => false,
    private readonly pace: Pace = DEFAULT_PACE,
  ) {
    this.writer = new RendererWriter(write, pace);
  }

  /** Characters waiting to be written (at most MaxBehindChars plus what one turn brought). */
  get behind(): number {
    return this.writer.waiting;
  }

  /** The tab's input with the renderer's answers to the writer's probes taken out (rendererWriter.ts). */
  takeAnswers(data: string): string {
    return this.writer.takeAnswers(data);
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
    for (const text of this.beforeOpen.splice(0)) this.writer.push(text);
  }

  /**
   * An attach starts: notices printed until its snapshot arrives wait for it. Its first snapshot replaces the
   * screen the notices so far were on (a hidden tab's comes once shown, as a resync): they are not shown again.
   */
  expectSnapshot(): void {
    this.awaitingSnapshot = true;
    this.afterSnapshot = [];
    this.noticesShown = [];
  }

  /** The attach is over (done or failed): notices print at once again. */
  attachSettled(): void {
    this.awaitingSnapshot = false;
  }

  snapshot(bytes: Buffer, why: SnapshotReason): void {
    this.decoder = new TextDecoder('utf-8');
    if (this.skipping) this.writer.clear(); // the snapshot holds all that was dropped
    this.skipping = false;
    this.emit(this.decoder.decode(bytes, { stream: true }));
    this.awaitingSnapshot = false;
    // A history or resync snapshot starts with a reset too (a tab shown again gets one): the notices printed
    // since the attach come back.
    if (why !== 'attach') for (const text of this.noticesShown) this.emit(noticeLine(text));
    else this.noticesShown = [];
    for (const text of this.afterSnapshot.splice(0)) this.print(text);
  }

  output(bytes: Uint8Array): void {
    if (this.skipping) return;
    this.emit(this.decoder.decode(bytes, { stream: true }));
    if (this.writer.waiting <= this.pace.maxBehindChars || !this.opened || !this.resync()) return;
    // Too far behind: what waits is dropped and a fresh snapshot (or the daemon's redraw) replaces it.
    this.writer.clear();
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
    this.writer.close();
  }

  private emit(text: string): void {
    if (!text || this.closed) return;
    if (!this.opened) this.beforeOpen.push(text);
    else this.writer.push(text);
  }
}
