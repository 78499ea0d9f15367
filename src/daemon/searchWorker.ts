// Entry of the worker thread that runs search and text waits (textJobs.ts) for the daemon's main
// thread (textWorkers.ts): one job at a time, each answered once; the main thread ends it at will.
import { parentPort } from 'node:worker_threads';
import { runJob, TextJob, WorkerLoaded } from './textJobs';

const port = parentPort;
if (!port) throw new Error('searchWorker.js runs as a worker thread of the daemon');
port.on('message', (job: TextJob) => {
  void runJob(job).then((answer) => port.postMessage(answer));
});
const loaded: WorkerLoaded = { loaded: true };
port.postMessage(loaded);
