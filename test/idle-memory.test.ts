// Sessions that go quiet give back what parsing their output took: each thread collects once when its
// sessions go quiet (idleCollector.ts), also when they went quiet while the worker was still parsing.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { startTestDaemon, tempDir, waitFor } from './helpers/daemon';
import { record, RssSampler, rssMiB } from './helpers/reliability';

const SESSIONS = 10;
const BYTES_EACH = 3_000_000;

function colouredFile(): string {
  const lines: string[] = [];
  for (let i = 0; lines.length * 100 < BYTES_EACH; i++)
    lines.push(`\x1b[3${i % 8}m${'word'.repeat(5)}\x1b[0m ${i} ${'x'.repeat(60)}`);
  const file = path.join(tempDir('hf-idle-memory-'), 'coloured.txt');
  fs.writeFileSync(file, lines.join('\r\n'));
  return file;
}

test('ten sessions print 3 MB each and go quiet: the daemon gives memory back', async () => {
  const file = colouredFile();
  const daemon = await startTestDaemon();
  const rss = new RssSampler(daemon.pid, 50);
  try {
    const client = await daemon.connect();
    const before = rssMiB(daemon.pid);
    const ids: string[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const { session } = await client.request('create', {
        argv: ['sh', '-c', `cat '${file}'; echo; echo DONE; exec sleep 600`],
        cols: 120,
        rows: 40,
      });
      ids.push(session.id);
    }
    for (const id of ids)
      await client.request('wait', { session: id, condition: { kind: 'text', pattern: 'DONE' }, timeoutMs: 60_000 });
    const peak = rss.stop();
    const grown = peak - before;
    // A sixteenth of what the output took, at least: without a collection once quiet none of it comes
    // back (measured: RSS 0-12 MiB above the peak 20 s later, in 3 runs). Not most of it: the emulators
    // keep the sessions' history, the workers started, and the C heap keeps the pages of a burst it
    // cannot trim, a share that varies with the load: 41-80 MiB came back of 230-260 alone, 25-30 beside
    // other test files (scripts/test.sh runs this file alone); the V8 heaps' pages give back 50-70 MiB.
    const bound = peak - grown / 16;
    const settled = () => rssMiB(daemon.pid) < bound;
    await waitFor(settled, 30_000, 'RSS to come down once the sessions are quiet').catch(() => undefined);
    const after = rssMiB(daemon.pid);
    record({
      item: 'memory',
      name: `daemon RSS: before / peak / 30 s after ${SESSIONS} sessions printed 3 MB each and went quiet`,
      value: `${Math.round(before)} / ${Math.round(peak)} / ${Math.round(after)} MiB`,
      bound: 'after < peak - a sixteenth of the growth',
    });
    assert.ok(after < bound, `RSS ${after} MiB after, ${before} before, ${peak} at the peak`);
  } finally {
    rss.stop();
    await daemon.stop();
  }
});
