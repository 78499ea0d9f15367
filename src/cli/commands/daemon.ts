// The daemon itself: serve (foreground, persistent), stop, upgrade (a new daemon takes the sessions), version.
import { Capability, PROTOCOL_VERSION } from '../../protocol/messages';
import { VERSION } from '../../protocol/version';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { connect, withClient } from '../connect';
import { CliError, ExitCode } from '../errors';
import { runForegroundDaemon } from '../foregroundDaemon';
import { daemonScriptPath } from '../../host/bundles';

/** How long `stop` waits for the daemon to close its end (its sessions get 2 s, then SIGKILL). */
const STOP_WAIT_MS = 10000;

export const stopCommand: Command = {
  name: 'stop',
  summary: 'stop the daemon: every session gets SIGHUP, SIGKILL after 2 s; returns once it is gone',
  usage: 'stop',
  options: {},
  async run(ctx) {
    expectPositionals(ctx.args, 0, 0, '');
    const client = await connect(ctx);
    const pid = client.hello.pid;
    const closed = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), STOP_WAIT_MS);
      client.onClose(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    // The daemon may close the connection before or instead of answering; both mean it is stopping.
    await client.request('stop', {}).catch((err: Error) => {
      if (!client.isClosed) throw err;
    });
    const gone = await closed;
    client.close();
    if (!gone)
      throw new CliError(
        ExitCode.Failed,
        'failed',
        `the daemon (pid ${pid}) accepted stop but was still connected after ${STOP_WAIT_MS} ms`,
      );
    return { data: { stopped: true, pid } };
  },
};

/** How long `upgrade` waits for the new daemon to answer on the socket once the old one handed over. */
const UPGRADE_WAIT_MS = 15_000;

/**
 * Whether the daemon serving the socket becomes `pid` in time. Until then a connection may fail (the
 * old one closes as it retires, the socket is renamed under us): asked again.
 */
async function daemonAnswering(ctx: Parameters<Command['run']>[0], pid: number): Promise<boolean> {
  for (const deadline = Date.now() + UPGRADE_WAIT_MS; Date.now() < deadline;) {
    const answered = await withClient(ctx, async (client) => client.hello.pid).catch(() => undefined);
    if (answered === pid) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

export const upgradeCommand: Command = {
  name: 'upgrade',
  summary: "a new daemon (this CLI's) takes over every session: the same programs, screens and history",
  usage: 'upgrade',
  options: {},
  here: "hands this machine's daemon to this CLI's own",
  details: [
    "The running daemon hands each program's terminal and each session's state to a new daemon started " +
      "from this CLI's dist/daemon.js, which takes over the socket; the old one exits. Clients reconnect.",
    'If the new daemon fails, the sessions carry on in the old one (nothing is lost) and upgrade fails.',
  ],
  async run(ctx) {
    expectPositionals(ctx.args, 0, 0, '');
    const client = await connect(ctx);
    const { pid, version, capabilities } = client.hello;
    let answer: { pid: number; sessions: number };
    try {
      if (!capabilities.includes(Capability.Handoff))
        throw new CliError(
          ExitCode.Failed,
          'unsupported',
          `the daemon (pid ${pid}, ${version}) is too old to hand over its sessions; \`holdfast stop\` ends them`,
        );
      answer = await client.request('handoff', { script: daemonScriptPath() }).catch((err: Error) => {
        throw new CliError(ExitCode.Failed, 'failed', err.message);
      });
    } finally {
      client.close();
    }
    if (!(await daemonAnswering(ctx, answer.pid)))
      throw new CliError(
        ExitCode.Failed,
        'failed',
        `daemon ${answer.pid} took the sessions but did not answer on ${ctx.socket} within ${UPGRADE_WAIT_MS} ms`,
      );
    const kept = `${answer.sessions} session${answer.sessions === 1 ? '' : 's'} kept`;
    return {
      data: { from: pid, pid: answer.pid, sessions: answer.sessions },
      text: `daemon ${pid} → ${answer.pid}: ${kept}`,
    };
  },
};

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run a persistent daemon in the foreground (stops on SIGTERM/SIGINT or `holdfast stop`)',
  usage: 'serve',
  options: {},
  here: 'runs a daemon in this terminal',
  details: [
    'Unlike the on-demand daemon `holdfast new` starts, it stays when its last session is removed. ' +
      'Its log lines go to stderr and to $XDG_STATE_HOME/holdfast/daemon.log.',
    "The daemon is dist/daemon.js, run as serve's child: SIGINT and SIGTERM are passed on to it, and " +
      "its exit code is serve's.",
  ],
  async run(ctx) {
    expectPositionals(ctx.args, 0, 0, '');
    const outcome = await runForegroundDaemon({ daemonScript: daemonScriptPath(), socket: ctx.socket, env: ctx.env });
    switch (outcome.kind) {
      case 'taken': {
        // The pid only adds to the message: a daemon that does not answer us is named without it.
        const pid = await withClient(ctx, async (client) => client.hello.pid).catch(() => undefined);
        throw new CliError(
          ExitCode.Failed,
          'running',
          `a daemon${pid ? ` (pid ${pid})` : ''} already listens on ${ctx.socket}`,
        );
      }
      case 'failed':
        throw new CliError(ExitCode.Failed, 'failed', outcome.message);
      case 'stopped':
        if (outcome.code !== 0)
          throw new CliError(
            outcome.code,
            'failed',
            `the daemon (pid ${outcome.pid}) exited with code ${outcome.code}`,
          );
        return { data: { stopped: true, pid: outcome.pid } };
    }
  },
};

export const versionCommand: Command = {
  name: 'version',
  summary: "print the CLI's version, and the running daemon's if one listens",
  usage: 'version',
  options: {},
  async run(ctx) {
    expectPositionals(ctx.args, 0, 0, '');
    const daemon = await withClient(ctx, async (client) => ({
      version: client.hello.version,
      protocol: client.hello.protocol,
      pid: client.hello.pid,
      startMode: client.hello.startMode,
    })).catch(() => null); // no daemon to ask (or none that answers): the CLI's own version is the answer
    const lines = [`holdfast ${VERSION} (protocol ${PROTOCOL_VERSION})`];
    if (daemon)
      lines.push(`daemon ${daemon.version} (protocol ${daemon.protocol}, pid ${daemon.pid}, ${daemon.startMode})`);
    return { data: { version: VERSION, protocol: PROTOCOL_VERSION, daemon }, text: lines.join('\n') };
  },
};
