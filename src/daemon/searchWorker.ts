// Entry of the worker thread that runs search and text waits (textJobs.ts) for the daemon's main
// thread (textWorkers.ts): one job at a time, each answered once; the main thread ends it at will.
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { parentPort } from 'node:worker_threads';
import { runJob, type TextJob, type WorkerLoaded } from './search/textJobs';

const port = parentPort;
if (!port) throw new Error('searchWorker.js runs as a worker thread of the daemon');
// An idle worker never collects: after a job that held big files, its heap (hundreds of MiB for a few
// 15 MB checkpoints, tens for a transcript unpacked to its bound) would stay the daemon's. Collected at
// once after such a job instead.
v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;
const COLLECT_ABOVE_HEAP_BYTES = 32 * 1024 * 1024;

port.on('message', (job: TextJob) => {
  void runJob(job).then((answer) => {
    port.postMessage(answer);
    // Unpacked transcripts are buffers, outside the heap's count: either may be big.
    const { heapUsed, arrayBuffers } = process.memoryUsage();
    if (job.kind !== 'test' && Math.max(heapUsed, arrayBuffers) > COLLECT_ABOVE_HEAP_BYTES) collect();
  });
});
const loaded: WorkerLoaded = { loaded: true };
port.postMessage(loaded);
