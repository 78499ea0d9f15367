// `holdfast serve`'s daemon: dist/daemon.js as a child in the foreground, with the command line
// every daemon gets (launch.ts: its V8 flags), its log lines on our stderr. SIGINT and SIGTERM are
// passed on to it, and its exit is ours; the CLI bundle itself holds no daemon code.
import { spawn } from 'node:child_process';
import * as os from 'node:os';
import type { Readable } from 'node:stream';
import { daemonArgs, daemonEnv, onReadiness, type ReadyMessage } from '../client/launch';

export type ForegroundOutcome =
  /** It served and stopped: its exit code (128 + the signal's number when a signal ended it). */
  | { kind: 'stopped'; pid: number; code: number }
  /** Another daemon already serves the socket; this one exited without serving. */
  | { kind: 'taken' }
  /** It could not start (its reason) or could not be spawned. */
  | { kind: 'failed'; message: string };

const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

export function runForegroundDaemon(options: {
  daemonScript: string;
  socket: string;
  env: NodeJS.ProcessEnv;
}): Promise<ForegroundOutcome> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      daemonArgs(options.daemonScript, 'persistent', options.socket, ['--log-stderr']),
      {
        stdio: ['ignore', 'ignore', 'inherit', 'pipe'],
        env: daemonEnv(options.env),
        cwd: '/',
      },
    );
    let readiness: ReadyMessage | Error | undefined;
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    // As the daemon itself does: a terminal that closes leaves it serving, and this process with it.
    const ignoreHup = () => undefined;
    for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
    process.on('SIGHUP', ignoreHup);
    const finish = (outcome: ForegroundOutcome) => {
      for (const signal of FORWARDED_SIGNALS) process.off(signal, forward);
      process.off('SIGHUP', ignoreHup);
      resolve(outcome);
    };
    const ready = child.stdio[3] as Readable;
    onReadiness(ready, (message) => {
      readiness = message;
      // Nothing else comes on it; 'close' then waits only for the daemon to exit.
      ready.destroy();
    });
    child.on('error', (err) => finish({ kind: 'failed', message: `cannot start the daemon: ${err.message}` }));
    child.on('close', (code, signal) => {
      if (readiness === undefined)
        finish({ kind: 'failed', message: `the daemon exited during startup (${signal ?? `code ${code}`})` });
      else if (readiness instanceof Error) finish({ kind: 'failed', message: readiness.message });
      else if ('error' in readiness) finish({ kind: 'failed', message: readiness.error });
      else if ('adopt' in readiness) finish({ kind: 'taken' });
      else finish({ kind: 'stopped', pid: child.pid!, code: code ?? 128 + os.constants.signals[signal!] });
    });
  });
}
