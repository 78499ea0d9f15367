// A hostile compressed transcript (Codex's .jsonl.zst rollout): a 256 KiB file that decompresses to
// 8 GiB is read in a search worker under the same time budget as a pattern, never on the daemon's
// main thread; and a transcript is decompressed once per file, size and mtime, not on every search.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { HoldfastClient, RequestError } from '../src/client/client';
import type { SearchResult } from '../src/protocol/messages';
import { readTranscript } from '../src/agents/transcripts';
import { startTestDaemon, tempDir, type TestDaemon, waitFor, waitForText } from './helpers/daemon';
import { cpuMs, daemonLog, record, rssMiB, RssSampler, sleep } from './helpers/reliability';
import { zstdFrame, zstdRunFrame } from './helpers/zstdFrame';

const THREAD = '0199a213-81c0-7800-8aa1-eeeeeeeeeeee';

/** The folder Codex keeps a day's rollouts in, under `home`. */
function rolloutDay(home: string): string {
  const day = path.join(home, '.codex', 'sessions', '2026', '12', '04');
  fs.mkdirSync(day, { recursive: true });
  return day;
}

const rollout = (day: string) => path.join(day, `rollout-2026-12-04T07-10-11-${THREAD}.jsonl.zst`);

const message = (text: string) =>
  JSON.stringify({ timestamp: 't', type: 'event_msg', payload: { type: 'agent_message', message: text } }) + '\n';

describe('a compressed transcript that decompresses to 8 GiB', () => {
  let home: string;
  let daemon: TestDaemon;
  let client: HoldfastClient;

  before(async () => {
    home = fs.realpathSync(tempDir('hf-home-'));
    fs.writeFileSync(rollout(rolloutDay(home)), zstdRunFrame(0x78, 8 * 1024 ** 3));
    daemon = await startTestDaemon([], '--persistent', { HOME: home }); // it reads this home's agent folders
    client = await daemon.connect();
    const metadata = { agent: { profile: 'codex', sessionId: THREAD } };
    await client.request('create', { name: 'bomb', argv: ['sleep', '1000'], cwd: home, metadata });
    await client.request('create', { name: 'plain', argv: ['sh', '-c', 'echo FIND""ME; exec sleep 1000'], cwd: home });
    await waitForText(client, 'plain', '^FINDME$');
  });
  after(async () => {
    await daemon.stop();
    fs.rmSync(daemon.dir, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  test('regression: its CPU was unbounded, then every search failed; now it is skipped as too costly', async () => {
    await client.request('config.set', { key: 'search.budgetMs', value: 500 });
    const probe = await daemon.connect('probe');
    let slowest = 0;
    let searching = true;
    const listing = (async () => {
      while (searching) {
        const start = performance.now();
        await probe.request('list', {});
        slowest = Math.max(slowest, performance.now() - start);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const search = async () => {
      const start = performance.now();
      const result = await client.request('search', { pattern: '^FINDME$' }).catch((err: Error) => err);
      return { result, ms: performance.now() - start };
    };
    const first = await search();
    const again = await search();
    searching = false;
    await listing;
    for (const { result } of [first, again]) {
      if (result instanceof Error) throw result;
      assert.equal(result.matches.length, 1, 'the other session is searched');
      assert.equal(result.skippedTranscripts?.length, 1);
      assert.match(result.skippedTranscripts[0].why, /^transcript too costly: .*rollout.*\.jsonl\.zst: /);
    }
    assert.ok(first.ms < 4000, `the search answered after ${first.ms.toFixed(0)} ms`);
    assert.ok(slowest < 500, `list waited ${slowest.toFixed(0)} ms`);
    const why = (first.result as SearchResult).skippedTranscripts![0].why.replace(/^.*\.zst: /, '');
    record({
      item: 'hostile',
      name: 'search over a Codex session whose .jsonl.zst rollout (256 KiB) decompresses to 8 GiB, search.budgetMs 500',
      value:
        `answered after ${first.ms.toFixed(0)} ms, then ${again.ms.toFixed(0)} ms, its transcript skipped ` +
        `("transcript too costly: ${why}"); slowest list ${slowest.toFixed(0)} ms (was: limit, "narrow the ` +
        'pattern", at every search; before that its CPU unbounded)',
      bound: 'list < 500 ms',
    });
  });
});

test('a compressed transcript is decompressed once per file, size and mtime', async () => {
  const home = fs.realpathSync(tempDir('hf-home-'));
  try {
    const file = rollout(rolloutDay(home));
    const agent = { profile: 'codex', sessionId: THREAD };
    const write = (text: string, mtime: Date) => {
      fs.writeFileSync(file, zstdFrame(Buffer.from(message(text))));
      fs.utimesSync(file, mtime, mtime);
    };
    const at = new Date(1_700_000_000_000);
    write('first ONE', at);
    assert.deepEqual((await readTranscript(agent, home, home))?.lines, ['assistant: first ONE']);
    // Same size and mtime: the cached lines, so the file was not decompressed again.
    write('first TWO', at);
    assert.deepEqual((await readTranscript(agent, home, home))?.lines, ['assistant: first ONE']);
    write('first TWO', new Date(at.getTime() + 1000));
    assert.deepEqual((await readTranscript(agent, home, home))?.lines, ['assistant: first TWO']);
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
});

describe('four Codex sessions ringing bells over a rollout that unpacks to 4 GiB', () => {
  /** What each session runs (as `codex`, which gets its hook options first): output, then a bell (waiting). */
  const RINGING = '#!/bin/sh\nwhile :; do echo tick; sleep 0.2; printf "\\a"; sleep 0.2; done\n';
  /** How long the bells ring (the probe of the issue rang for 25 s). */
  const RING_MS = 12_000;
  let home: string;
  let daemon: TestDaemon;
  let client: HoldfastClient;

  before(async () => {
    home = fs.realpathSync(tempDir('hf-home-'));
    // As `head -c 4G /dev/zero | zstd` makes it: 128 KiB, RLE blocks, a 2 MiB window.
    fs.writeFileSync(rollout(rolloutDay(home)), zstdRunFrame(0, 4 * 1024 ** 3, 21));
    daemon = await startTestDaemon([], '--persistent', { HOME: home });
    client = await daemon.connect();
    await client.request('create', { name: 'plain', argv: ['sh', '-c', 'echo FIND""ME; exec sleep 1000'], cwd: home });
    await waitForText(client, 'plain', '^FINDME$');
  });
  after(async () => {
    await daemon.stop();
    fs.rmSync(daemon.dir, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  test('regression: held the daemon at 2.6 GB, searches failed blaming the pattern; now bounded', async () => {
    const base = rssMiB(daemon.pid);
    const cpuBefore = cpuMs(daemon.pid);
    const rss = new RssSampler(daemon.pid, 100);
    const metadata = { agent: { profile: 'codex', sessionId: THREAD } };
    const codex = path.join(home, 'codex');
    fs.writeFileSync(codex, RINGING, { mode: 0o755 });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++)
      ids.push((await client.request('create', { name: `codex-${i}`, argv: [codex], cwd: home, metadata })).session.id);
    const searches: string[] = [];
    const started = Date.now();
    while (Date.now() - started < RING_MS) {
      const answer = await client.request('search', { pattern: '^FINDME$' }).then(
        (result) =>
          `${result.matches.length} match${result.skippedTranscripts?.length ? ', a transcript skipped' : ''}`,
        (err: RequestError) => `${err.code}: ${err.message}`,
      );
      searches.push(answer);
      await sleep(2000);
    }
    const cpuUsed = cpuMs(daemon.pid) - cpuBefore;
    const peak = rss.stop();
    const last = await client.request('search', { pattern: '^FINDME$' }).catch((err: Error) => err);
    for (const id of ids) await client.request('kill', { session: id, signal: 'KILL', remove: true });
    // Memory comes back once the text workers have let their buffers go (an idle one ends after 30 s).
    await waitFor(() => rssMiB(daemon.pid) < base + 50, 60_000, 'RSS back near its baseline').catch(() => undefined);
    const after = rssMiB(daemon.pid);
    const told = daemonLog(daemon.env)
      .split('\n')
      .filter((line) => line.includes('transcript too costly'));
    record({
      item: 'hostile',
      name:
        'four Codex sessions ringing a bell every 0.4 s for 12 s over a .jsonl.zst rollout (128 KiB) that unpacks to ' +
        '4 GiB of zeros; a search every 2 s',
      value:
        `daemon RSS ${Math.round(base)} → peak ${Math.round(peak)} → ${Math.round(after)} MiB after; ` +
        `CPU ${(cpuUsed / 1000).toFixed(1)} s in ${(RING_MS / 1000).toFixed(0)} s; searches: ${searches.join('; ')}; ` +
        `${told.length} log line(s) "${told[0]?.replace(/^.*transcript too costly: [^:]*: /, '') ?? ''}" ` +
        '(was: RSS 103 → 2,989 MB, 2,587 MB a minute after; 27.6 s of CPU in 25 s; every search failed, ' +
        '"narrow the pattern")',
      bound: 'peak < base + 200 MiB, after < base + 50 MiB; every search answered; one log line',
    });
    assert.ok(peak < base + 200, `RSS ${base} → ${peak} MiB`);
    assert.ok(after < base + 50, `RSS ${after} MiB after, ${base} MiB before`);
    assert.ok(
      searches.every((s) => s.startsWith('1 match')),
      searches.join('; '),
    );
    if (last instanceof Error) throw last;
    assert.equal(last.matches.length, 1);
    assert.match(last.skippedTranscripts?.[0]?.why ?? '', /transcript too costly/);
    // Said once, whichever job found it (then never read again while it stays as it is).
    assert.equal(told.length, 1, told.join('\n'));
    assert.match(told[0], /transcript too costly: .*not read again until it changes/);
    assert.ok(cpuUsed < RING_MS / 2, `the daemon used ${cpuUsed} ms of CPU in ${RING_MS} ms`);
  });
});
