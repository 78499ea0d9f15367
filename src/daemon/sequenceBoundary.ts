// Cuts program output only between complete escape sequences and complete UTF-8 characters,
// so a snapshot (taken between chunks) never falls in the middle of one.
// This is not a parser: it tracks just enough state to know where a sequence ends.

const enum State {
  Ground,
  Escape, // after ESC, possibly with intermediates
  Csi, // ESC [ ... final byte
  String, // OSC / DCS / SOS / PM / APC: until BEL (OSC) or ESC \
  StringEscape, // ESC seen inside a string
}

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;

/** A held-back tail larger than this is released anyway (a runaway or binary stream). */
const MAX_HELD = 1024 * 1024;

export class SequenceBoundary {
  private state = State.Ground;
  private utf8Pending = 0;
  private held: Buffer | null = null;

  /** Returns the part of (held + chunk) that ends on a boundary; keeps the rest for next time. */
  cut(chunk: Buffer): Buffer | null {
    const data = this.held ? Buffer.concat([this.held, chunk]) : chunk;
    const scanFrom = this.held ? this.held.length : 0;
    this.held = null;
    let boundary = this.scan(data, scanFrom);
    if (boundary < data.length && data.length - boundary > MAX_HELD) boundary = data.length;
    if (boundary < data.length) this.held = Buffer.from(data.subarray(boundary));
    return boundary > 0 ? data.subarray(0, boundary) : null;
  }

  /** Everything still held back (used when the program has exited). */
  flush(): Buffer | null {
    const rest = this.held;
    this.held = null;
    this.state = State.Ground;
    this.utf8Pending = 0;
    return rest;
  }

  /** Scans bytes from `from`, returns the index just past the last boundary in `data`. */
  // eslint-disable-next-line max-lines-per-function -- hot loop: every output byte, one switch, no call per byte
  private scan(data: Buffer, from: number): number {
    // Re-scanning the held part is unnecessary: the state already covers it,
    // and the last boundary inside it was 0 (it was held from its start).
    let boundary = this.state === State.Ground && this.utf8Pending === 0 ? from : 0;
    let state = this.state;
    let pending = this.utf8Pending;
    for (let i = from; i < data.length; i++) {
      const b = data[i];
      switch (state) {
        case State.Ground:
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
          )
            state = State.String;
          else if (b === ESC) state = State.Escape;
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
          }
          break;
        case State.StringEscape:
          if (b === 0x5c /* \ */) {
            state = State.Ground;
            boundary = i + 1;
          } else if (b === 0x5b)
            state = State.Csi; // string aborted by a new sequence
          else if (b === 0x5d || b === 0x50 || b === 0x58 || b === 0x5e || b === 0x5f) state = State.String;
          else if (b === ESC) state = State.Escape;
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
