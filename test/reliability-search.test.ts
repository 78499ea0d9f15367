// A costly pattern cannot stall the daemon: search and text waits run in a worker thread with a time
// budget, and a pattern whose program is too large is refused; another client's `list` is answered
// within 100 ms throughout, with both cores kept busy by other processes.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { availableParallelism } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { TextWorkers } from '../src/daemon/textWorkers';
import { type HoldfastClient, RequestError } from '../src/client/client';
import { runCli } from './helpers/cli';
import { startTestDaemon, type TestDaemon } from './helpers/daemon';
import { record } from './helpers/reliability';

/** 19 characters, 3,002 instructions: 0.45 s a line of 1,000 a's when it ran; refused now. */
const HUGE = '(?:a?){1000}a{1000}';
/** 1,952 instructions, within the limit, but past what re2js's DFA caches: ~0.1 s a line of a's here. */
const SLOW = '(?:a?){650}a{650}';
/**
 * 100 lines of 640 a's (SLOW needs 650: no line matches, so each is scanned to its end and a wait cannot be
 * met early), 100 of 1,000 pseudo-random a/b, then a last line.
 */
const PROGRAM =
  'let s = 1; const r = () => (s = (s * 1103515245 + 12345) & 0x7fffffff);' +
  "for (let i = 0; i < 100; i++) console.log('a'.repeat(640));" +
  "for (let i = 0; i < 100; i++) console.log(Array.from({ length: 1000 }, () => (r() & 1024 ? 'a' : 'b')).join(''));" +
  "console.log('done-aaa'); setInterval(() => {}, 1e9);";

/** The request fails with `code`; its message matches `message`. */
async function refusedWith(request: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  await assert.rejects(request, (err) => {
    assert.ok(err instanceof RequestError, String(err));
    assert.equal(err.code, code, err.message);
    assert.match(err.message, message);
    return true;
  });
}

/** search.budgetMs while the slow pattern runs. */
const BUDGET_MS = 1000;

/** Sends `list` every 20 ms on its own connection and keeps the slowest answer since the last reset. */
class ListProbe {
  slowest = 0;
  private running = true;
  readonly done: Promise<void>;

  constructor(client: HoldfastClient) {
    this.done = (async () => {
      while (this.running) {
        const start = performance.now();
        await client.request('list', {});
        this.slowest = Math.max(this.slowest, performance.now() - start);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
  }

  take(): number {
    const slowest = this.slowest;
    this.slowest = 0;
    return slowest;
  }

  stop(): Promise<void> {
    this.running = false;
    return this.done;
  }
}

describe('a costly pattern against a daemon with both cores busy', () => {
  let daemon: TestDaemon;
  let client: HoldfastClient;
  let probe: ListProbe;
  const load: ChildProcess[] = [];

  before(async () => {
    daemon = await startTestDaemon();
    client = await daemon.connect();
    await client.request('create', { name: 'aaa', argv: [process.execPath, '-e', PROGRAM], cols: 80, rows: 24 });
    await client.request('wait', {
      session: 'aaa',
      condition: { kind: 'text', pattern: '^done-aaa$' },
      timeoutMs: 30_000,
    });
    for (let i = 0; i < availableParallelism(); i++)
      load.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    probe = new ListProbe(await daemon.connect('probe'));
  });
  after(async () => {
    await probe?.stop();
    for (const child of load) child.kill('SIGKILL');
    await daemon.stop();
    fs.rmSync(daemon.dir, { recursive: true, force: true });
  });

  test('the 19-character pattern is refused at compile time with limit, by search and by wait', async () => {
    probe.take();
    await refusedWith(
      client.request('search', { pattern: HUGE }),
      'limit',
      /^search: pattern too costly: its program has 3002 instructions, at most 2000/,
    );
    await refusedWith(
      client.request('wait', { session: 'aaa', condition: { kind: 'text', pattern: HUGE, history: true } }),
      'limit',
      /^text wait: pattern too costly/,
    );
    const slowest = probe.take();
    record({
      item: 'hostile',
      name: `search and wait --for text with ${HUGE} over 100 lines of a's, both cores busy`,
      value:
        'refused before any matching: limit (3,002 instructions, at most 2,000); ' +
        `slowest list ${slowest.toFixed(0)} ms ` +
        '(was: daemon frozen 45.6 s by MCP search_history, 52 s by grep; ~1.3 s every 50 ms by wait)',
      bound: 'list < 100 ms',
    });
    assert.ok(slowest < 100, `list waited ${slowest.toFixed(0)} ms`);
  });

  test('a pattern that runs out of its budget answers limit (search, grep, wait); the daemon serves on', async () => {
    // A budget of a second: a pattern run on the daemon's main thread would hold every list for its whole
    // budget, three times, where a list beside the busy cores (and others' load) has waited up to ~200 ms.
    await client.request('config.set', { key: 'search.budgetMs', value: BUDGET_MS });
    probe.take();
    const start = performance.now();
    await refusedWith(
      client.request('search', { pattern: SLOW }),
      'limit',
      /^search: the pattern ran out of its time budget \(1000 ms\)/,
    );
    const answeredIn = performance.now() - start;
    await refusedWith(
      client.request('wait', { session: 'aaa', condition: { kind: 'text', pattern: SLOW, history: true } }),
      'limit',
      /^text wait: the pattern ran out of its time budget/,
    );
    const grep = await runCli(daemon.env, ['grep', SLOW]);
    assert.notEqual(grep.code, 0);
    assert.match(grep.stderr, /ran out of its time budget \(1000 ms\)/);
    const slowest = probe.take();
    record({
      item: 'hostile',
      name: `search, grep and wait --for text --history with ${SLOW} (under the program limit), budget ${BUDGET_MS} ms`,
      value:
        `limit after ${answeredIn.toFixed(0)} ms (the worker stopped and replaced; the next search answers); ` +
        `slowest list ${slowest.toFixed(0)} ms`,
      bound: `list < ${BUDGET_MS / 2} ms`,
    });
    assert.ok(slowest < BUDGET_MS / 2, `list waited ${slowest.toFixed(0)} ms`);
    assert.ok(answeredIn < 3 * BUDGET_MS, `the search answered after ${answeredIn.toFixed(0)} ms`);

    // The stopped worker is replaced: a normal search answers as before.
    await client.request('config.set', { key: 'search.budgetMs', value: 2000 });
    const { matches } = await client.request('search', { pattern: '^done-aaa$' });
    assert.deepEqual(
      matches.map((m) => [m.name, m.line]),
      [['aaa', 200]],
    );
  });
});

test('a job whose client went away is stopped at once, not at the end of its budget', async () => {
  const workers = new TextWorkers(
    () => 60_000,
    () => undefined,
    1,
  );
  try {
    // Plain rows (no decoding) that never match, so all of them are scanned: 2,000 rows at ~17 ms each
    // here run for half a minute, far past the moment the client goes away, on a fast machine too.
    const rows = Array.from({ length: 2000 }, () => 'a'.repeat(640));
    const text = { stored: [], rows, wrapped: rows.map(() => false), screenRow: 0 };
    let gone = false;
    const start = performance.now();
    const job = workers.run({ kind: 'test', pattern: SLOW, flags: '', text }, 'text wait', () => gone);
    setTimeout(() => (gone = true), 200);
    await assert.rejects(job, /the client went away/);
    assert.ok(performance.now() - start < 5000);
    // The next job gets a new worker.
    assert.equal(await workers.run({ kind: 'test', pattern: 'aaab', flags: '', text }, 'text wait'), false);
  } finally {
    workers.dispose();
  }
});
