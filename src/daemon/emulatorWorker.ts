// Entry of an emulator worker thread (emulatorHost.ts does the work) for the daemon's main thread
// (emulatorWorkers.ts). An exception that escapes ends the thread: the main thread replaces it.
import { parentPort } from 'node:worker_threads';
import { EmulatorHost } from './emulator/emulatorHost';
import type { FromWorker, ToWorkerBatch } from './common/emulatorProtocol';

const port = parentPort;
if (!port) throw new Error('emulatorWorker.js runs as a worker thread of the daemon');
const host = new EmulatorHost((message, transfer) => port.postMessage(message, transfer));
port.on('message', (batch: ToWorkerBatch) => host.handle(batch));
port.postMessage({ kind: 'started' } satisfies FromWorker);
