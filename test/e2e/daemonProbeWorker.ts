// The worker behind DaemonProbe (daemonProbe.ts): one connection to a test's daemon, kept open, asked what the
// waits ask (list, show, read). A connection the daemon closed (stop, crash, restart, a handoff's end) is dropped
// and the request asked again on a new one, as a CLI call would make it; no daemon listening is said as such.
import { workerData, type MessagePort } from 'node:worker_threads';
import { HoldfastClient, RequestError } from '../../src/client/client';
import { NoDaemonError } from '../../src/client/unixSocket';
import { VERSION } from '../../src/protocol/version';
import type { ProbeAnswer, ProbeAsk, ProbeSetup } from './daemonProbe';

const { socket, port, signal, timeoutMs } = workerData as ProbeSetup & { port: MessagePort };
const done = new Int32Array(signal);
let client: HoldfastClient | undefined;

function answer(reply: ProbeAnswer): void {
  port.postMessage(reply);
  Atomics.store(done, 0, 1);
  Atomics.notify(done, 0);
}

/** `promise`, or a rejection after the CLI's own timeout for a call. */
function inTime<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from the daemon in ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

async function ask({ seq, method, params }: ProbeAsk): Promise<ProbeAnswer> {
  for (let attempt = 0; ; attempt++) {
    try {
      if (!client || client.isClosed) {
        client = undefined;
        client = await HoldfastClient.connect({ socket, client: 'e2e-probe', version: VERSION, timeoutMs: 5000 });
      }
      // The methods asked here are the protocol's own; their params are the tests', checked by the daemon.
      const result: unknown = await inTime(client.request(method as 'list', params as Record<string, never>));
      return { seq, ok: true, result };
    } catch (err) {
      if (err instanceof NoDaemonError) return { seq, ok: false, noDaemon: true, message: err.message };
      // The daemon's answer to this request (not a connection that ended) is the result.
      const answered = err instanceof RequestError && client !== undefined && !client.isClosed;
      if (answered) return { seq, ok: false, code: err.code, message: err.message };
      client?.close();
      client = undefined;
      if (attempt > 0) return { seq, ok: false, message: (err as Error).message };
    }
  }
}

port.on('message', (message: ProbeAsk) => {
  void ask(message).then(answer);
});
