// The daemon as the tests' waits see it, without a CLI process a call: a worker keeps one connection to the
// test's daemon open and the test's thread waits for each answer (Atomics.wait), so the checks stay synchronous
// where they are written. A `holdfast list` on code-server's Node costs ~0.1 CPU-s; a request here ~1 ms.
import * as path from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { countCall } from './pollCount';

export interface ProbeSetup {
  socket: string;
  signal: SharedArrayBuffer;
  timeoutMs: number;
}
export interface ProbeAsk {
  seq: number;
  method: string;
  params: Record<string, unknown>;
}
export type ProbeAnswer =
  | { seq: number; ok: true; result: unknown }
  | { seq: number; ok: false; message: string; code?: string; noDaemon?: boolean };

/** A call that got no answer: the daemon refused it (code), none listens (noDaemon), or the connection failed. */
export class ProbeError extends Error {
  constructor(
    message: string,
    readonly code?: string,
    readonly noDaemon = false,
  ) {
    super(message);
  }
}

/** A CLI call's timeout (Isolation.cli), and a margin for the worker's own. */
const TIMEOUT_MS = 15_000;

export class DaemonProbe {
  private worker: Worker | undefined;
  private port: MessagePort | undefined;
  private readonly signal = new SharedArrayBuffer(4);
  private seq = 0;

  constructor(private readonly socket: string) {}

  /** The daemon's result for `method`, asked synchronously; throws ProbeError. */
  ask<T>(method: string, params: Record<string, unknown>): T {
    countCall(`probe ${method}`);
    const port = this.start();
    const done = new Int32Array(this.signal);
    const seq = ++this.seq;
    Atomics.store(done, 0, 0);
    port.postMessage({ seq, method, params } satisfies ProbeAsk);
    if (Atomics.wait(done, 0, 0, TIMEOUT_MS + 5_000) === 'timed-out') {
      this.dispose();
      throw new ProbeError(`${method}: the probe's worker did not answer`);
    }
    for (;;) {
      const reply = receiveMessageOnPort(port)?.message as ProbeAnswer | undefined;
      if (!reply) throw new ProbeError(`${method}: the probe's worker answered nothing`);
      if (reply.seq !== seq) continue;
      if (reply.ok) return reply.result as T;
      throw new ProbeError(reply.message, reply.code, reply.noDaemon);
    }
  }

  private start(): MessagePort {
    if (this.worker && this.port) return this.port;
    const { port1, port2 } = new MessageChannel();
    const setup: ProbeSetup & { port: MessagePort } = {
      socket: this.socket,
      signal: this.signal,
      timeoutMs: TIMEOUT_MS,
      port: port2,
    };
    this.worker = new Worker(path.join(__dirname, 'daemonProbeWorker.js'), {
      workerData: setup,
      transferList: [port2],
    });
    // Its socket must not keep the test's process alive, nor its end fail the test.
    this.worker.unref();
    this.worker.on('error', () => this.dispose());
    port1.unref();
    this.port = port1;
    return port1;
  }

  /** Closes the connection and ends the worker. */
  dispose(): void {
    const worker = this.worker;
    this.worker = undefined;
    this.port?.close();
    this.port = undefined;
    if (worker) void worker.terminate();
  }
}
