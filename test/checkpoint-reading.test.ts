// How a text worker reads the checkpoint files for the daemon (textJobs.ts): a list reads only files
// that are new or changed since the last, stops reading at its share of the budget and goes on at the
// next list, and a checkpoint asked for by id crosses to the main thread without screens over the bound.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { type CheckpointsRead, runJob, type TextJob } from '../src/daemon/search/textJobs';
import { CheckpointLimit } from '../src/protocol/limits';
import { checkpointJson } from './helpers/checkpoint';
import { tempDir } from './helpers/daemon';

function writeCheckpoint(dir: string, id: string, writtenAt: number, screen?: string): void {
  const json = checkpointJson(id, [{ id: 's1', name: 'n', cwd: '/', screen }], undefined, writtenAt);
  fs.writeFileSync(path.join(dir, `checkpoint-${id}.json`), json, { mode: 0o600 });
}

async function read(dir: string, readForMs: number, id?: string): Promise<CheckpointsRead> {
  const job: TextJob = { kind: 'checkpoints', dir, currentId: 'mine', id, readForMs };
  const answer = await runJob(job);
  assert.ok(answer.ok, answer.ok ? '' : answer.message);
  return answer.result as CheckpointsRead;
}

const ids = (read: CheckpointsRead) => read.checkpoints.map((c) => c.id);

test('a list reads what it has time for, then goes on; unchanged files are not read again', async () => {
  const dir = tempDir();
  writeCheckpoint(dir, 'a', 1);
  writeCheckpoint(dir, 'b', 2);
  fs.writeFileSync(path.join(dir, 'checkpoint-bad.json'), '{', { mode: 0o600 });
  // Out of time before the first file: nothing read, all three left for the next list.
  const none = await read(dir, -1);
  assert.deepEqual([ids(none), none.skipped.length, none.unread], [[], 0, 3]);
  const all = await read(dir, 60_000);
  assert.deepEqual([ids(all), all.unread], [['b', 'a'], 0]);
  assert.match(all.skipped[0].error, /^not valid JSON/);
  // Already read: answered from what was read, even with no time left to read anything.
  const again = await read(dir, -1);
  assert.deepEqual([ids(again), again.skipped.length, again.unread], [['b', 'a'], 1, 0]);
  // A file rewritten is read again; one removed is gone.
  writeCheckpoint(dir, 'a', 3);
  fs.rmSync(path.join(dir, 'checkpoint-bad.json'));
  const changed = await read(dir, -1);
  assert.deepEqual([ids(changed), changed.unread], [['b'], 1]);
  const after = await read(dir, 60_000);
  assert.deepEqual([ids(after), after.skipped.length, after.checkpoints[0].writtenAt], [['a', 'b'], 0, 3]);
});

test('a checkpoint asked for crosses without a screen over the bound; inspect still counts its bytes', async () => {
  const dir = tempDir();
  const screen = 'x'.repeat(CheckpointLimit.ScreenChars + 1);
  writeCheckpoint(dir, 'big', 1, screen);
  writeCheckpoint(dir, 'small', 2, 'hello');
  const big = (await read(dir, 60_000, 'big')).found;
  assert.ok(big);
  assert.equal(big.data.sessions[0].screen, undefined);
  assert.deepEqual(big.droppedScreens, [{ id: 's1', chars: screen.length }]);
  assert.equal(big.inspected[0].screenBytes, screen.length);
  const small = (await read(dir, 60_000, 'small')).found;
  assert.ok(small);
  assert.deepEqual([small.data.sessions[0].screen, small.droppedScreens], ['hello', []]);
});
