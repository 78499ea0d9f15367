// `holdfast host upgrade H`: this build installed on the host (hostInstall.ts), then the host's running daemon, when
// it is older, handed over to the installed one by that install's own `holdfast upgrade` (succession: the programs,
// their PIDs and screens stay). A daemon as new as this Holdfast, or none, is left alone.
import { z } from 'zod';
import { NoDaemonError } from '../client/client';
import { compareVersions, ProtocolMismatchError, VERSION } from '../protocol/version';
import { oneLine, printable } from '../text/printable';
import { sshLink } from './daemonLink';
import { type InstallOptions, type InstallResult, installHoldfast, InstallRefused } from './hostInstall';
import { type HostEntry, hostName } from './hosts';
import { runInstalledCommand } from './installScripts';
import { sshRun } from './sshRun';

export interface UpgradeResult {
  install: InstallResult;
  /** The daemon found there before: its pid and version (none: no daemon listened). */
  from?: { pid: number; version: string };
  /** The daemon serving after the handoff, when there was one. */
  to?: { pid: number; sessions: number };
  /** Why nothing was handed over, when nothing was. */
  kept?: string;
}

/** What the install's `holdfast upgrade --json` prints: its answer, or its one error. */
const upgradeAnswerSchema = z.union([
  z.object({ from: z.number().int(), pid: z.number().int(), sessions: z.number().int() }),
  z.object({ error: z.object({ message: z.string().max(4096) }) }),
]);

/** The version and pid of the daemon on the host, or undefined when none listens; a too-old one is named too. */
async function runningDaemon(host: HostEntry, env: NodeJS.ProcessEnv): Promise<UpgradeResult['from'] | 'too-old'> {
  try {
    const client = await sshLink(host, env).connect();
    client.close();
    return { pid: client.hello.pid, version: client.hello.version };
  } catch (err) {
    if (err instanceof NoDaemonError) return undefined;
    if (err instanceof ProtocolMismatchError && err.side === 'daemon-too-old') return 'too-old';
    throw err;
  }
}

export async function upgradeHost(
  host: HostEntry,
  env: NodeJS.ProcessEnv,
  options: InstallOptions = {},
): Promise<UpgradeResult> {
  const name = hostName(host);
  const install = await installHoldfast(host, env, options);
  const running = await runningDaemon(host, env);
  if (!running) return { install, kept: `no daemon runs on ${name}: the next one starts from the install` };
  if (running !== 'too-old' && (compareVersions(running.version, VERSION) ?? -1) >= 0)
    return { install, from: running, kept: `the daemon on ${name} is ${printable(running.version)} already` };
  const args = ['upgrade', '--json', ...(host.socket ? ['--socket', host.socket] : [])];
  const ran = await sshRun(host, env, runInstalledCommand(install.name, args));
  let answer: z.infer<typeof upgradeAnswerSchema> | undefined;
  try {
    answer = upgradeAnswerSchema.parse(JSON.parse(ran.stdout));
  } catch {
    answer = undefined; // said below with its stderr
  }
  if (!answer || 'error' in answer || ran.status !== 0) {
    const why = answer && 'error' in answer ? answer.error.message : (ran.stderr.trim().split('\n').at(-1) ?? '');
    throw new InstallRefused(`holdfast upgrade on ${name} failed: ${printable(oneLine(why)).slice(0, 300)}`);
  }
  return {
    install,
    from: running === 'too-old' ? { pid: answer.from, version: 'older' } : running,
    to: { pid: answer.pid, sessions: answer.sessions },
  };
}
