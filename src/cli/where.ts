// Which daemon a command talks to: this machine's (its socket) or a host's over SSH (`--host`, HOLDFAST_HOST).
import { resolveSocketPath } from '../host/paths';
import { type DaemonLink, localLink, sshLink } from '../link/daemonLink';
import { SCOPED_NO_HOST, scopedEnv } from '../link/hostFanout';
import { readHosts, resolveHost } from '../link/hosts';
import { stringOpt } from './args';
import type { Command } from './command';
import { CliError, ExitCode, usageError } from './errors';
import type { ParsedArgs } from './args';

/** The variable that names the host every command goes to, unless --host or --socket says otherwise. */
export const HOST_ENV = 'HOLDFAST_HOST';

/**
 * --host wins; then --socket (a socket is on this machine); then HOLDFAST_HOST. With --host, --socket names the
 * host's socket. A command that only makes sense here (`here` says why) refuses --host and ignores HOLDFAST_HOST
 * (an agent's hook must reach its own session's daemon wherever the shell points others).
 */
export function linkFor(command: Command, args: ParsedArgs, env: NodeJS.ProcessEnv): DaemonLink {
  const socketOpt = stringOpt(args, 'socket');
  const fromEnv = socketOpt === undefined && !command.here ? env[HOST_ENV] || undefined : undefined;
  const ref = stringOpt(args, 'host') ?? fromEnv;
  const host = ref === undefined ? undefined : resolveHost(ref, readHosts(env));
  if (!host) return localLink(resolveSocketPath(socketOpt, env), env);
  if (command.here)
    throw usageError(`${command.name} ${command.here}; on ${ref}: ssh ${host.target} holdfast ${command.name}`);
  // A scoped credential is this machine's daemon's: its holder gets no rights on other hosts through this user's keys.
  if (scopedEnv(env)) throw new CliError(ExitCode.Failed, 'forbidden', SCOPED_NO_HOST);
  return sshLink(socketOpt === undefined ? host : { ...host, socket: socketOpt }, env);
}
