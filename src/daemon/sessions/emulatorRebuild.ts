// What a session's emulator is rebuilt from when its worker dies: the last screen a worker rendered at
// an exact cut, and the chunks parsed since (a bounded tail). Within the bound the rebuild is exact;
// past it the oldest chunks are let go, and a fresh screen is asked for (screen only: cheap).

export enum RebuildTuning {
  /** Parsed bytes kept after the last screen before a new screen is asked for. */
  TailBytes = 256 * 1024,
  /** Bytes kept at most while that screen is on its way: older chunks are let go. */
  MaxTailBytes = 1024 * 1024,
}

export interface RebuildScreen {
  vt: Uint8Array;
  cols: number;
  rows: number;
}

export class EmulatorRebuild {
  private screen: RebuildScreen;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  /** Chunks were let go: a rebuild now shows the last screen and what followed it, with a gap. */
  private gap = false;

  constructor(cols: number, rows: number) {
    this.screen = { vt: new Uint8Array(0), cols, rows };
  }

  /** The emulator parsed `chunks`; true when the tail is over its bound (time for a new screen). */
  parsed(chunks: Buffer[]): boolean {
    for (const chunk of chunks) {
      this.tail.push(chunk);
      this.tailBytes += chunk.length;
    }
    while (this.tailBytes > RebuildTuning.MaxTailBytes && this.tail.length > 1) {
      this.tailBytes -= this.tail.shift()!.length;
      this.gap = true;
    }
    return this.tailBytes > RebuildTuning.TailBytes;
  }

  /** A screen rendered right after the last chunk parsed so far. */
  rendered(screen: RebuildScreen): void {
    this.screen = screen;
    this.tail = [];
    this.tailBytes = 0;
    this.gap = false;
  }

  /** What a new emulator parses first (silently), at the size it was rendered at; whether it is exact. */
  source(): { base: { vt: Uint8Array; cols: number; rows: number }; exact: boolean } {
    const vt = Buffer.concat([this.screen.vt, ...this.tail]);
    return { base: { vt, cols: this.screen.cols, rows: this.screen.rows }, exact: !this.gap };
  }
}
