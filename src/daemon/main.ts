// Daemon entry: `daemon.js run [--on-demand | --persistent] [--socket PATH] [--ready-fd N] [--log FILE]
// [--log-stderr] [--scrollback N] [--max-sessions N] [--successor]` (or HOLDFAST_MAX_SESSIONS). Started
// detached by `holdfast new` or the extension, in the foreground by `holdfast serve` (its log lines on
// stderr), by a daemon handing over its sessions with --successor (the manifest on stdin, the PTYs as fds).
// The process around the daemon: its signals, and a crash it can act on (the sessions are handed off).
import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { resolveSocketPath } from '../host/paths';
import { printableLines } from '../text/printable';
import { DisposableStore, toDisposable } from '../base/disposable';
import { Daemon, type DaemonOptions } from './daemon';
import { checkEmulatorWorkerBundle } from './emulatorWorkers';
import { receiveHandoff } from './succession/handoffReceive';
import { checkNodePtyInternals } from './pty/nodePtyInternals';
import { DEFAULT_LIMITS, parseLimit } from './sessions/sessionRegistry';

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      'on-demand': { type: 'boolean' },
      persistent: { type: 'boolean' },
      socket: { type: 'string' },
      'ready-fd': { type: 'string' },
      log: { type: 'string' },
      /** Log lines also go to stderr (always so without a readiness fd: someone runs it by hand). */
      'log-stderr': { type: 'boolean' },
      scrollback: { type: 'string' },
      'max-sessions': { type: 'string' },
      successor: { type: 'boolean' },
    },
  });
  if (positionals[0] !== 'run') {
    process.stderr.write(
      'usage: daemon.js run [--on-demand|--persistent] [--socket PATH] [--ready-fd N] [--log-stderr]\n',
    );
    return 2;
  }
  const readyFd = values['ready-fd'] === undefined ? undefined : Number(values['ready-fd']);
  const socket = resolveSocketPath(values.socket);
  const limits: Record<string, number> = {};
  try {
    // Another version of node-pty fails here, loudly, not later in a session. @xterm/headless is checked where
    // it runs, in the emulator worker (emulator.ts): the main thread never loads it.
    checkNodePtyInternals();
    checkEmulatorWorkerBundle();
    // Then: the previous daemon waits for the answer, its sessions cut meanwhile.
    const succession = values.successor ? await receiveHandoff() : undefined;
    if (values.scrollback !== undefined)
      limits.defaultScrollback = parseLimit(values.scrollback, '--scrollback', 0, DEFAULT_LIMITS.maxScrollback);
    if (values['max-sessions'] !== undefined)
      limits.maxSessions = parseLimit(values['max-sessions'], '--max-sessions', 1, 100_000);
    const result = await runDaemon({
      socket,
      startMode: values.persistent ? 'persistent' : 'on-demand',
      logFile: values.log,
      logEcho:
        (readyFd === undefined && !values.successor) || values['log-stderr']
          ? (line) => process.stderr.write(printableLines(line))
          : undefined,
      limits,
      succession,
      onReady: () => writeReadiness(readyFd, { ready: true, pid: process.pid }),
    });
    if (result === 'taken') writeReadiness(readyFd, { adopt: true, pid: process.pid });
    return 0;
  } catch (err) {
    writeReadiness(readyFd, { error: `the daemon could not start: ${(err as Error).message}` });
    if (readyFd === undefined) process.stderr.write(`holdfast daemon: ${(err as Error).message}\n`);
    return 1;
  }
}

/** Runs a daemon in this process until it stops; resolves 'taken' if another daemon serves the socket. */
export async function runDaemon(
  options: DaemonOptions & { onReady?: (daemon: Daemon) => void },
): Promise<'stopped' | 'taken'> {
  const started = await Daemon.start(options);
  if (started.kind === 'taken') return 'taken';
  const { daemon } = started;
  const disposables = new DisposableStore();
  const onSignal = (signal: string) => void daemon.stop(`received ${signal}`);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, onSignal);
    disposables.add(toDisposable(() => process.off(signal, onSignal)));
  }
  const ignoreHup = () => daemon.log.write('ignored SIGHUP');
  process.on('SIGHUP', ignoreHup);
  disposables.add(toDisposable(() => process.off('SIGHUP', ignoreHup)));
  const onCrash = crashHandler(daemon);
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  disposables.add(
    toDisposable(() => {
      process.off('uncaughtException', onCrash);
      process.off('unhandledRejection', onCrash);
    }),
  );
  options.onReady?.(daemon);
  await new Promise<void>((resolve) => daemon.onStopped(resolve));
  disposables.dispose();
  await daemon.log.flush(); // the log is written in the background: every line is in before the exit
  return 'stopped';
}

/**
 * What an uncaught exception does. The first hands every session to a successor, a fresh process with the
 * same programs. If that handoff fails, this daemon carries on as it is: every program runs and every
 * client is served (the failed handoff gave the PTYs back), and only what the callback that threw was
 * doing is left undone (a request unanswered, one session's bookkeeping short). Later exceptions are
 * logged, not handed off again: a callback that throws on every turn would cut and give back every PTY
 * for ever. `holdfast upgrade` can still hand off. Stopping instead would end every program for the sake
 * of one callback.
 */
function crashHandler(daemon: Daemon): (err: unknown) => void {
  let state: 'serving' | 'handing off' | 'carrying on after a crash' = 'serving';
  return (err) => {
    daemon.log.write(`uncaught: ${(err as Error)?.stack ?? String(err)}`);
    if (state !== 'serving') return daemon.log.write(`not handed off again (${state})`);
    state = 'handing off';
    daemon.handOff(undefined, 'a crash').catch((failed: Error) => {
      state = 'carrying on after a crash';
      daemon.log.write(`the handoff after the crash failed (${failed.message}): carrying on, every session here`);
    });
  };
}

/** Tells whoever started the daemon (its readiness fd) how the start went. */
export function writeReadiness(fd: number | undefined, message: object): void {
  if (fd === undefined) return;
  try {
    fs.writeSync(fd, JSON.stringify(message) + '\n');
    fs.closeSync(fd);
  } catch {
    // the spawner went away; nothing to tell
  }
}

// Whoever started the daemon may have closed its stdout and stderr: writing there (a library's console.error
// too) must never raise an error, let alone one taken for a crash.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);

void main().then((code) => process.exit(code));
