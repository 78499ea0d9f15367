// Cuts program output only between complete escape sequences and complete UTF-8 characters,
// so a snapshot (taken between chunks) never falls in the middle of one, and drops a string
// sequence (OSC, DCS, SOS, PM, APC) whose payload is over-long before anyone parses or holds it.
// This is not a parser: it tracks just enough state to know where a sequence ends.

const enum State {
  Ground,
  Escape, // after ESC, possibly with intermediates
  Csi, // ESC [ ... final byte
  String, // OSC / DCS / SOS / PM / APC: until BEL (OSC) or ESC \
  StringEscape, // ESC seen inside a string
  Discard, // inside a string over MAX_STRING_PAYLOAD: dropped until it ends
}

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;

/**
 * Text without ESC at least this long is not scanned byte by byte: memchr finds its end, and only its
 * last characters are looked at (a flood of plain text costs the main thread almost nothing).
 */
const SKIP_MIN = 32;

/**
 * In `data[from, end)`, which holds no ESC, the last position before `end - 3` where a character
 * starts and the one before it is complete: the scan resumes there in Ground, with it as the
 * boundary, as if it had read every byte before. -1 when an odd byte makes that unsure (the caller
 * reads byte by byte then).
 */
function resumePoint(data: Buffer, from: number, end: number): number {
  let start = end - 4;
  while (start > from && (data[start] & 0xc0) === 0x80) start--;
  if (start <= from) return -1;
  let lead = start - 1;
  while (lead > from && (data[lead] & 0xc0) === 0x80 && start - lead < 4) lead--;
  const b = data[lead];
  const length = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xf4 ? (b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2) : 0;
  return length > 0 && lead + length === start ? start : -1;
}

/** A held-back tail larger than this is released anyway (a runaway or binary stream). */
const MAX_HELD = 1024 * 1024;

/**
 * The longest payload of a string sequence passed on: a clipboard write (OSC 52) of a big selection
 * and a hyperlink or shell-integration report fit. A longer one is dropped whole, for the emulator
 * and the clients alike (one stream, so snapshots stay exact): a 10 MB OSC 0 cost 4.5 s of CPU, as
 * the tail was held and copied again at every read, and a 10 MB OSC 7 took the daemon to 975 MB.
 * Truncating would pass on a payload that means something else (half a path, half an image).
 * Under MAX_HELD, so a string is never released before it ends.
 */
export const MAX_STRING_PAYLOAD = 512 * 1024;

/** Where scan() stopped: a string went over MAX_STRING_PAYLOAD at `at`; output ends at `boundary`. */
interface Overflow {
  boundary: number;
  at: number;
}

export class SequenceBoundary {
  private state = State.Ground;
  private utf8Pending = 0;
  /** The tail after the last boundary, kept as read: copying it whole at every read made it quadratic. */
  private held: Buffer[] = [];
  private heldBytes = 0;

  /** An over-long string is being dropped (set by scan). */
  private overflow: Overflow | undefined;
  /** Bytes of the current string's payload so far. */
  private stringBytes = 0;

  /** Returns the part of (held + chunk) that ends on a boundary; keeps the rest for next time. */
  cut(chunk: Buffer): Buffer | null {
    if (this.state === State.Discard) {
      const end = this.discardEnd(chunk);
      if (end < 0) return null;
      chunk = chunk.subarray(end);
    }
    let boundary = this.scan(chunk);
    if (this.overflow) return this.cutOverflow(chunk);
    if (boundary < chunk.length && this.heldBytes + chunk.length - boundary > MAX_HELD) boundary = chunk.length;
    const piece = boundary > 0 ? this.release(chunk, boundary) : null;
    if (boundary < chunk.length) {
      const rest = Buffer.from(chunk.subarray(boundary));
      this.held.push(rest);
      this.heldBytes += rest.length;
    }
    return piece;
  }

  /** The held tail and chunk up to `end`, which complete each other. */
  private release(chunk: Buffer, end: number): Buffer {
    const piece = this.heldBytes > 0 ? Buffer.concat([...this.held, chunk.subarray(0, end)]) : chunk.subarray(0, end);
    this.held = [];
    this.heldBytes = 0;
    return piece;
  }

  /** What came before the over-long string, and whatever follows its end in `chunk`. */
  private cutOverflow(chunk: Buffer): Buffer | null {
    const { boundary, at } = this.overflow!;
    this.overflow = undefined;
    const before = boundary > 0 ? this.release(chunk, boundary) : null;
    this.held = [];
    this.heldBytes = 0;
    const tail = chunk.subarray(at + 1);
    const end = this.discardEnd(tail);
    const after = end < 0 ? null : this.cut(tail.subarray(end));
    if (!before) return after;
    return after ? Buffer.concat([before, after]) : before;
  }

  /**
   * Drops the rest of an over-long string: returns where what follows it starts in `data`, or -1
   * when it goes on. BEL, CAN and SUB end it (dropped); an ESC starts the next sequence (kept: a
   * lone ESC \ left from an ST is ignored by terminals).
   */
  private discardEnd(data: Buffer): number {
    for (let i = 0; i < data.length; i++) {
      const b = data[i];
      if (b === BEL || b === CAN || b === SUB || b === ESC) {
        this.state = State.Ground;
        return b === ESC ? i : i + 1;
      }
    }
    this.state = State.Discard;
    return -1;
  }

  /** What is held back, left held (a successor daemon cuts it again, ahead of what it reads). */
  get pending(): Buffer {
    return Buffer.concat(this.held);
  }

  /** Everything still held back (used when the program has exited). */
  flush(): Buffer | null {
    const rest = this.heldBytes > 0 ? Buffer.concat(this.held) : null;
    this.held = [];
    this.heldBytes = 0;
    this.state = State.Ground;
    this.utf8Pending = 0;
    this.overflow = undefined;
    return rest;
  }

  /** Scans a chunk from where the last one left off; returns the index just past its last boundary (0: none). */
  // eslint-disable-next-line max-lines-per-function -- hot loop: every output byte, one switch, no call per byte
  private scan(data: Buffer): number {
    let boundary = 0;
    let state = this.state;
    let pending = this.utf8Pending;
    let escFreeUntil = 0; // no ESC in data[i, escFreeUntil)
    for (let i = 0; i < data.length; i++) {
      const b = data[i];
      switch (state) {
        case State.Ground:
          if (pending === 0 && i >= escFreeUntil) {
            escFreeUntil = data.indexOf(ESC, i);
            if (escFreeUntil < 0) escFreeUntil = data.length;
            const resume = escFreeUntil - i >= SKIP_MIN ? resumePoint(data, i, escFreeUntil) : -1;
            if (resume > i) {
              boundary = resume;
              i = resume - 1;
              continue;
            }
          }
          if (pending > 0) {
            if ((b & 0xc0) === 0x80) {
              pending--;
              if (pending === 0) boundary = i + 1;
              continue;
            }
            pending = 0; // invalid sequence: the emulator replaces it; treat as ended
          }
          if (b === ESC) state = State.Escape;
          else if (b >= 0xc2 && b <= 0xf4) pending = b >= 0xf0 ? 3 : b >= 0xe0 ? 2 : 1;
          else boundary = i + 1;
          break;
        case State.Escape:
          if (b === 0x5b /* [ */) state = State.Csi;
          else if (
            b === 0x5d /* ] */ ||
            b === 0x50 /* P */ ||
            b === 0x58 /* X */ ||
            b === 0x5e /* ^ */ ||
            b === 0x5f /* _ */
          ) {
            state = State.String;
            this.stringBytes = 0;
          } else if (b === ESC) state = State.Escape;
          else if (b === CAN || b === SUB) {
            state = State.Ground;
            boundary = i + 1;
          } else if (b >= 0x20 && b <= 0x2f)
            state = State.Escape; // intermediate, e.g. ESC ( B
          else if (b < 0x20) {
            // C0 controls execute inside escape sequences and leave the state alone
          } else {
            state = State.Ground;
            boundary = i + 1;
          }
          break;
        case State.Csi:
          if (b >= 0x40 && b <= 0x7e) {
            state = State.Ground;
            boundary = i + 1;
          } else if (b === ESC) state = State.Escape;
          else if (b === CAN || b === SUB) {
            state = State.Ground;
            boundary = i + 1;
          }
          break;
        case State.String:
          if (b === BEL) {
            state = State.Ground;
            boundary = i + 1;
          } else if (b === ESC) state = State.StringEscape;
          else if (b === CAN || b === SUB) {
            state = State.Ground;
            boundary = i + 1;
          } else if (++this.stringBytes > MAX_STRING_PAYLOAD) {
            this.overflow = { boundary, at: i };
            this.state = State.Discard;
            this.utf8Pending = 0;
            return boundary;
          }
          break;
        case State.StringEscape:
          if (b === 0x5c /* \ */) {
            state = State.Ground;
            boundary = i + 1;
          } else if (b === 0x5b)
            state = State.Csi; // string aborted by a new sequence
          else if (b === 0x5d || b === 0x50 || b === 0x58 || b === 0x5e || b === 0x5f) {
            state = State.String;
            this.stringBytes = 0;
          } else if (b === ESC) state = State.Escape;
          else {
            state = State.Ground;
            boundary = i + 1;
          }
          break;
      }
    }
    this.state = state;
    this.utf8Pending = pending;
    return boundary;
  }
}
