// Patterns from clients (`wait --for text:RE`, later search): RE2 syntax, matched in linear time,
// so no pattern a client sends can stall the daemon (a backtracking `^(a+)+$` took 129 s).
import { RE2JS } from 're2js';

/** Longer patterns are refused: compiling is linear too, but nothing real needs more. */
export const MAX_PATTERN_LENGTH = 4096;

const FLAGS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL };

export class PatternError extends Error {}

export interface TextPattern {
  test(text: string): boolean;
}

/** Compiles `pattern` with flags from "ims"; throws PatternError with a one-line reason. */
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
  try {
    const re = RE2JS.compile(pattern, bits);
    return { test: (text) => re.test(text) };
  } catch (err) {
    throw new PatternError(
      `bad pattern (RE2 syntax, matched in linear time: no backreferences or lookaround): ${(err as Error).message}`,
    );
  }
}
