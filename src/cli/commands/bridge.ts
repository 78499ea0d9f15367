// `holdfast bridge`: the far end of `--host`, run by sshd on this machine for a client elsewhere (src/link/bridge.ts).
import { daemonScriptPath } from '../../host/bundles';
import { BridgeExit, runBridge } from '../../link/bridge';
import { boolOpt, expectPositionals } from '../args';
import type { Command } from '../command';
import { ExitCode } from '../errors';

const EXIT_CODES: Record<BridgeExit, ExitCode> = {
  [BridgeExit.Ok]: ExitCode.Ok,
  [BridgeExit.Failed]: ExitCode.Failed,
  [BridgeExit.NoDaemon]: ExitCode.NoDaemon,
};

export const bridgeCommand: Command = {
  name: 'bridge',
  summary: "connect stdin and stdout to this machine's daemon: what `--host` runs here over ssh",
  usage: 'bridge [--start]',
  options: {
    start: { type: 'boolean', help: 'start an on-demand daemon when none listens (as `holdfast new` does)' },
  },
  here: 'is the far end of --host, run here by ssh',
  details: [
    "Checks the daemon's socket and token file as every client does, puts this machine's token into the client's " +
      'hello (the client sends none: no token crosses the network), then passes the frames both ways untouched.',
    'A failure is one Error frame on stdout (no-daemon: exit 6); nothing else is ever written there.',
  ],
  async run(ctx) {
    expectPositionals(ctx.args, 0, 0, '');
    const exit = await runBridge({
      socket: ctx.socket,
      env: ctx.env,
      start: boolOpt(ctx.args, 'start') ? { daemonScript: daemonScriptPath() } : undefined,
      input: process.stdin,
      output: process.stdout,
    });
    // stdout belonged to the frames: nothing more is printed.
    return { data: undefined, exitCode: EXIT_CODES[exit] };
  },
};
