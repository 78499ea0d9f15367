// Differential fuzz: a snapshot replayed into a fresh terminal must rebuild the same state, in this thread
// (test/helpers/snapshotFuzz.ts). The same through the emulator workers: snapshot-fidelity-workers.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fuzz, resizesWithHistory, RUNS } from './helpers/snapshotFuzz';

test(`snapshots rebuild the exact state (${RUNS} seeded random VT streams)`, () => fuzz(null));

const MARGIN = process.env.HOLDFAST_FUZZ_MARGIN;
test(`with history out of the emulator, snapshots rebuild the full state over resizes (${RUNS} streams)`, async () => {
  // Margin 0: the emulator keeps only a screen's height of scrollback, so most history is in the store.
  await fuzz(MARGIN === undefined ? 0 : Number(MARGIN));
  console.log(`# ${resizesWithHistory()} of ${RUNS} seeds resized with lines in the history store`);
  assert.ok(
    resizesWithHistory() > 0,
    'no seed resized with lines in the history store: the test no longer covers reflow',
  );
});
