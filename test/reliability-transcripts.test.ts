// A hostile compressed transcript (Codex's .jsonl.zst rollout): a 256 KiB file that decompresses to
// 8 GiB is read in a search worker under the same time budget as a pattern, never on the daemon's
// main thread; and a transcript is decompressed once per file, size and mtime, not on every search.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { HoldfastClient, RequestError } from '../src/protocol/client';
import { readTranscript } from '../src/agents/transcripts';
import { startTestDaemon, tempDir, TestDaemon, waitForText } from './helpers/daemon';
import { record } from './helpers/reliability';
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

  test('regression: its CPU was unbounded; search answers limit within the budget, list stays quick', async () => {
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
    const start = performance.now();
    const failure = await client.request('search', { pattern: 'NEEDLE' }).then(
      () => assert.fail('the search read all of it'),
      (err: unknown) => err,
    );
    const answeredIn = performance.now() - start;
    searching = false;
    await listing;
    assert.ok(failure instanceof RequestError, String(failure));
    assert.equal(failure.code, 'limit', failure.message);
    assert.ok(answeredIn < 4000, `the search answered after ${answeredIn.toFixed(0)} ms`);
    assert.ok(slowest < 500, `list waited ${slowest.toFixed(0)} ms`);
    // The stopped worker is replaced: a search of another session answers.
    const { matches } = await client.request('search', { pattern: '^FINDME$', session: 'plain' });
    assert.equal(matches.length, 1);
    record({
      item: 'hostile',
      name: 'search over a Codex session whose .jsonl.zst rollout (256 KiB) decompresses to 8 GiB, search.budgetMs 500',
      value:
        `limit after ${answeredIn.toFixed(0)} ms (read in the search worker, stopped at its budget); ` +
        `slowest list ${slowest.toFixed(0)} ms`,
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
