// Patterns from clients (`wait --for text:RE`, search): RE2 syntax, matched in linear time (a
// backtracking `^(a+)+$` took 129 s), and a bounded program: linear time is still time per instruction.
import { RE2JS } from 're2js';

/** Longer patterns are refused: compiling is linear too, but nothing real needs more. */
export const MAX_PATTERN_LENGTH = 4096;

/**
 * Instructions of a compiled pattern at most (re2js's programSize): matching costs time per character
 * per instruction, and compiling grows with it too. `(?:a?){1000}a{1000}` is 3,002 and took 0.45 s a
 * line of 1,000 characters; `x{1000}` is 1,002; what people search for is tens.
 */
export const MAX_PROGRAM_SIZE = 2000;

const FLAGS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL };

export class PatternError extends Error {}

/** A pattern that is valid but too costly (the daemon answers `limit`). */
export class PatternLimitError extends PatternError {}

export interface TextPattern {
  test(text: string): boolean;
}

/**
 * Compiles `pattern` with flags from "ims"; throws PatternError (PatternLimitError when too costly) with
 * a one-line reason. Compiling can take seconds for a long pattern: the daemon compiles in its worker.
 */
export function compilePattern(pattern: unknown, flags: unknown = ''): TextPattern {
  if (typeof pattern !== 'string' || pattern === '') throw new PatternError('pattern must be a non-empty string');
  if (pattern.length > MAX_PATTERN_LENGTH)
    throw new PatternError(`pattern is ${pattern.length} characters; at most ${MAX_PATTERN_LENGTH}`);
  if (typeof flags !== 'string') throw new PatternError('flags must be a string');
  let bits = 0;
  for (const flag of flags) {
    if (!Object.hasOwn(FLAGS, flag)) throw new PatternError(`unknown flag "${flag}" (flags: i, m, s)`);
    bits |= FLAGS[flag];
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern, bits);
  } catch (err) {
    throw new PatternError(
      `bad pattern (RE2 syntax, matched in linear time: no backreferences or lookaround): ${(err as Error).message}`,
    );
  }
  if (re.programSize() > MAX_PROGRAM_SIZE)
    throw new PatternLimitError(
      `pattern too costly: its program has ${re.programSize()} instructions, at most ${MAX_PROGRAM_SIZE} ` +
        '(fewer or smaller repeats)',
    );
  return { test: (text) => re.test(text) };
}
