// Small utilities of the e2e harness: tracing, polling, free ports, temp dirs, safe file names.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { countCall } from './pollCount';

const TRACE = !!process.env.HOLDFAST_E2E_TRACE;
const traceStart = Date.now();
/** The scenario file (e.g. "reload"): two files' traces interleave when they run side by side. */
const traceFile = path.basename(process.argv[1] ?? '', '.test.js');
/** With HOLDFAST_E2E_TRACE=1, prints what the harness does, with its file and seconds since it started. */
export function trace(message: string): void {
  if (TRACE) {
    process.stderr.write(`[e2e ${traceFile} ${((Date.now() - traceStart) / 1000).toFixed(1)}s] ${message}\n`);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface WaitOptions {
  timeout?: number;
  /** A fixed interval between checks; without it, 50 ms and then each ×1.5 longer, to 500 ms. */
  interval?: number;
  /** Said in the error when the condition is not met in time. */
  message?: string;
}

/**
 * The growing interval: what a short wait looks for is seen within ~50-100 ms, and a long one (a window load, an
 * agent's start) checks twice a second, not five times (each check of the workbench costs the renderer).
 */
const FIRST_INTERVAL_MS = 50;
const INTERVAL_GROWTH = 1.5;
const LONGEST_INTERVAL_MS = 500;

/**
 * Polls `condition` until it returns something other than undefined/null/false, and returns
 * that. Exceptions thrown by the condition count as "not yet" (the last one is reported).
 */
export async function waitFor<T>(
  condition: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  opts: WaitOptions = {},
): Promise<T> {
  const timeout = opts.timeout ?? 30_000;
  let interval = opts.interval ?? FIRST_INTERVAL_MS;
  const deadline = Date.now() + timeout;
  let lastError: unknown;
  let lastValue: unknown;
  countCall('waits');
  for (;;) {
    countCall('waitFor');
    try {
      const value = await condition();
      lastValue = value;
      if (value !== undefined && value !== null && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const why =
        lastError instanceof Error
          ? `; last error: ${lastError.message}`
          : lastValue !== undefined
            ? `; last value: ${JSON.stringify(lastValue)}`
            : '';
      throw new Error(`timed out after ${timeout} ms waiting for ${opts.message ?? 'a condition'}${why}`);
    }
    // Never past the deadline by more than a check: the last one comes at it.
    await sleep(Math.max(0, Math.min(interval, deadline - Date.now())));
    if (opts.interval === undefined) interval = Math.min(interval * INTERVAL_GROWTH, LONGEST_INTERVAL_MS);
  }
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export function makeTempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `holdfast-e2e-${prefix}-`));
}

/** Writes `text` to the executable file `name` in `dir` (mode 0755) and returns its path. */
export function writeExecutable(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text, { mode: 0o755 });
  return file;
}

/** `text` matched literally inside a RegExp. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `name` as a file name: letters, digits, dot, dash and underscore, at most 120 characters. */
export function safeName(name: string): string {
  return (
    name
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 120) || 'unnamed'
  );
}
