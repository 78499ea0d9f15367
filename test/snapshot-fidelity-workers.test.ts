// Differential fuzz through the emulator workers (test/helpers/snapshotFuzz.ts): as sessions run, a snapshot
// replayed into a fresh terminal rebuilds the full state. Its own file: each of the two takes about a minute.
import { test } from 'node:test';
import { EmulatorWorkers } from '../src/daemon/emulatorWorkers';
import { fuzz, RUNS } from './helpers/snapshotFuzz';

test(`through the emulator workers, as sessions run, snapshots rebuild the full state (${RUNS} streams)`, async () => {
  const workers = new EmulatorWorkers();
  try {
    await fuzz(0, workers);
  } finally {
    workers.dispose();
  }
});
