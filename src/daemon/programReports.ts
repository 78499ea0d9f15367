// What a program tells its terminal about itself through OSC sequences, read here with the rules
// that keep its untrusted bytes in their place: its directory (OSC 7) and its shell's prompt marks
// (OSC 133). Notifications (OSC 9, OSC 777) are read where the emulator registers them.
import * as os from 'node:os';
import { hasUnprintable } from '../text/printable';
import type { PromptMark } from './attention';

/** Longest OSC 7 payload taken: PATH_MAX is 4096 on Linux, and percent-encoding only makes it longer. */
export const MAX_OSC7_LENGTH = 4096;

/**
 * OSC 7 carries file://host/path, the path percent-encoded. It decides where relaunch and resume
 * run, so only this machine's (host empty, "localhost" or this hostname) absolute paths are taken,
 * and none with a control or bidi reordering character (U+202E makes a path read backwards):
 * anything else is ignored and the last good directory kept.
 */
export function cwdFromOsc7(data: string, hostname: string = os.hostname()): string | undefined {
  if (data.length > MAX_OSC7_LENGTH) return undefined;
  const match = /^file:\/\/([^/]*)(\/.*)$/i.exec(data);
  if (!match) return undefined;
  const host = match[1].toLowerCase();
  if (host !== '' && host !== 'localhost' && host !== hostname.toLowerCase()) return undefined;
  let cwd: string;
  try {
    cwd = decodeURIComponent(match[2]);
  } catch {
    // Not valid percent-encoding (a shell that does not encode "%"): the path as written.
    cwd = match[2];
  }
  if (!cwd.startsWith('/') || hasUnprintable(cwd)) return undefined;
  return cwd;
}

/** OSC 133's mark letter (A prompt, B input, C command start, D command end), then nothing or ";" and options. */
export function promptMarkOf(data: string): PromptMark | undefined {
  const mark = data.charAt(0);
  if (data.length > 1 && data[1] !== ';') return undefined;
  return mark === 'A' || mark === 'B' || mark === 'C' || mark === 'D' ? mark : undefined;
}
