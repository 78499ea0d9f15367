// Daemon entry: `daemon.js run [--on-demand | --persistent] [--socket PATH] [--ready-fd N] [--log FILE]
// [--log-stderr] [--scrollback N] [--max-sessions N] [--successor]` (or HOLDFAST_MAX_SESSIONS). Started
// detached by `holdfast new` or the extension, in the foreground by `holdfast serve` (its log lines on
// stderr), by a daemon handing over its sessions with --successor (the manifest on stdin, the PTYs as fds).
import { parseArgs } from 'node:util';
import { resolveSocketPath } from '../protocol/paths';
import { printableLines } from '../protocol/printable';
import { runDaemon, writeReadiness } from './daemon';
import { receiveHandoff } from './handoffReceive';
import { checkNodePtyInternals } from './nodePtyInternals';
import { DEFAULT_LIMITS, parseLimit } from './sessionRegistry';
import { checkXtermInternals } from './xtermInternals';

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
    // Another version of either library fails here, loudly, not later in a session.
    checkXtermInternals();
    checkNodePtyInternals();
    // First: the previous daemon waits for the answer, its sessions cut meanwhile.
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

// Whoever started the daemon may have closed its stdout and stderr: writing there (a library's console.error
// too) must never raise an error, let alone one taken for a crash.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);

void main().then((code) => process.exit(code));
