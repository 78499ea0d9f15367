// How a tab's text reaches VS Code's renderer: in writes of a bounded size, each but the small ones followed
// by a probe that the renderer's terminal answers once it has parsed that far (DSR 5, "status report":
// xterm.js answers CSI 0 n, which comes back through the tab's input and is taken out of it here), so that
// at most a bounded number of characters wait in the renderer. VS Code acknowledges nothing a pseudoterminal
// writes; its own terminals pause their program at 100,000 characters unacknowledged. Without a bound here, a
// flood the renderer parsed slower than the extension host wrote queued seconds of it there, hidden tabs' too,
// and a keystroke's echo in any tab of the window waited behind it: 4-5 s measured in code-server
// (docs/bench.md).
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).

export enum RendererPace {
  /**
   * Characters written and not yet parsed by the renderer, at most: VS Code's high watermark for its own
   * terminals (FlowControlConstants.HighWatermarkChars), a few tens of ms of xterm.js's parsing.
   */
  MaxUnparsedChars = 100_000,
  /** The same while the user types in another tab: that tab's echo waits behind less (typing first). */
  TypingUnparsedChars = 20_000,
  /** Characters in one write at most (whole chunks; one larger chunk goes alone): answers come as it parses. */
  SliceChars = 16_000,
  /**
   * A write shorter than this goes without a probe and is not counted as unparsed (it parses in well under a
   * millisecond): typed keys' echoes and a command's few lines. VS Code's local echo reads every answer as
   * something the user typed that it cannot guess, and drops its guesses at the next output; a key typed
   * before that output was parsed is then guessed at a stale cursor, and its echo written one cell left,
   * over the key before it (docs/vscode.md, "Local echo").
   */
  ProbeMinChars = 4_000,
  /**
   * A probe unanswered this long counts as answered (its answer, if it comes, is still taken out of the
   * input): a renderer loaded enough to take longer still gets some text. One that never answered any
   * probe by then is not probed any more, and its tab writes as fast as output comes, as before.
   */
  ProbeTimeoutMs = 5000,
}

/** What the writer asks of the renderer after each write of ProbeMinChars or more, and its answer. */
export const PROBE = '\x1b[5n';
export const PROBE_ANSWER = '\x1b[0n';

export interface WriterPace {
  /** Characters written and not yet parsed, at most (a function: typing elsewhere lowers it). */
  maxUnparsedChars(): number;
  sliceChars: number;
  /** Writes shorter than this are not probed (RendererPace.ProbeMinChars), until a slice of them went out. */
  probeMinChars: number;
  probeTimeoutMs: number;
}

export const DEFAULT_WRITER_PACE: WriterPace = {
  maxUnparsedChars: () => RendererPace.MaxUnparsedChars,
  sliceChars: RendererPace.SliceChars,
  probeMinChars: RendererPace.ProbeMinChars,
  probeTimeoutMs: RendererPace.ProbeTimeoutMs,
};

export class RendererWriter {
  /** Whole chunks (each ends where the daemon cut the stream: between sequences, so a probe fits there). */
  private queue: string[] = [];
  private queuedChars = 0;
  private unparsedChars = 0;
  /** Characters of the small writes since the last probe (the next probe stands for them too). */
  private unprobedChars = 0;
  /** Characters each outstanding probe stands for, oldest first. */
  private readonly probes: number[] = [];
  /** Probes counted as answered when they timed out, whose answers may still come. */
  private late = 0;
  /** The renderer answered a probe: it is paced by its answers (else, after a timeout, not at all). */
  private answering = false;
  private unpaced = false;
  private flushHandle: NodeJS.Immediate | undefined;
  private probeTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly write: (text: string) => void,
    private readonly pace: WriterPace = DEFAULT_WRITER_PACE,
  ) {}

  /** Characters not handed to the renderer yet. */
  get waiting(): number {
    return this.queuedChars;
  }

  /** Characters handed to the renderer and not parsed there yet (as far as its answers say). */
  get unparsed(): number {
    return this.unparsedChars;
  }

  /** Queues a whole chunk; what one turn of the event loop brought goes in one write. */
  push(text: string): void {
    if (!text || this.closed) return;
    this.queue.push(text);
    this.queuedChars += text.length;
    this.flushHandle ??= setImmediate(() => this.flush());
  }

  /** Drops what waits (a snapshot replaces it); what the renderer has is not taken back. */
  clear(): void {
    this.queue = [];
    this.queuedChars = 0;
  }

  /**
   * The tab's input: probe answers are taken out (as many as are outstanding; one more is the program's own
   * query's, in order), the rest is the user's keys or the terminal's answers to the program.
   */
  takeAnswers(data: string): string {
    let rest = data;
    let at = rest.indexOf(PROBE_ANSWER);
    for (; at >= 0 && this.probes.length + this.late > 0; at = rest.indexOf(PROBE_ANSWER)) {
      rest = rest.slice(0, at) + rest.slice(at + PROBE_ANSWER.length);
      this.answering = true;
      if (this.late > 0) this.late--;
      else this.answered();
    }
    return rest;
  }

  close(): void {
    this.closed = true;
    this.clear();
    clearImmediate(this.flushHandle);
    clearTimeout(this.probeTimer);
    this.flushHandle = this.probeTimer = undefined;
  }

  private answered(): void {
    this.unparsedChars = Math.max(0, this.unparsedChars - (this.probes.shift() ?? 0));
    clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
    this.armProbeTimer();
    if (this.queuedChars > 0) this.flushHandle ??= setImmediate(() => this.flush());
  }

  private armProbeTimer(): void {
    if (this.probes.length === 0 || this.probeTimer || this.closed) return;
    this.probeTimer = setTimeout(() => {
      this.probeTimer = undefined;
      this.late++;
      if (!this.answering) this.unpaced = true; // this renderer does not answer: it is not probed any more
      this.answered();
    }, this.pace.probeTimeoutMs);
  }

  private flush(): void {
    this.flushHandle = undefined;
    while (!this.closed && this.queue.length > 0 && this.unparsedChars < this.pace.maxUnparsedChars()) {
      let text = this.queue.shift()!;
      while (this.queue.length > 0 && text.length + this.queue[0].length <= this.pace.sliceChars)
        text += this.queue.shift()!;
      this.queuedChars -= text.length;
      if (this.unpaced) {
        this.write(text);
        continue;
      }
      // Small writes go unprobed until they add up to a slice: a stream of them is paced as one large write.
      const stands = this.unprobedChars + text.length;
      if (text.length < this.pace.probeMinChars && stands < this.pace.sliceChars) {
        this.unprobedChars = stands;
        this.write(text);
        continue;
      }
      this.unprobedChars = 0;
      this.unparsedChars += stands;
      this.probes.push(stands);
      this.armProbeTimer();
      this.write(text + PROBE);
    }
  }
}
