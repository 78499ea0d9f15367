// Why an ssh to a host ended, in one line that names the fix: ssh's exit status and the last of its stderr
// (BatchMode makes every prompt a failure, so each way a login can fail ends here, never in a hung prompt).
import { oneLine, printable } from '../text/printable';

/** Whether trying again can help: a host key or login refused, or no holdfast there, stays so until someone acts. */
export type SshFailureKind = 'transient' | 'permanent';

export class SshFailure extends Error {
  constructor(
    message: string,
    readonly kind: SshFailureKind,
    /** No holdfast was found there by the default command: an install is the fix (hostInstall.ts). */
    readonly notInstalled = false,
  ) {
    super(message);
  }
}

/** ssh's own status for its errors (connection, host key, login), as opposed to the remote command's. */
const SSH_ERROR_STATUS = 255;
/** A POSIX shell's status for a command it could not find, and for one it found but could not run. */
const NOT_FOUND_STATUS = 127;
const NOT_EXECUTABLE_STATUS = 126;
/** holdfast's own status for a usage error (an old holdfast that has no `bridge` says so with it). */
const USAGE_STATUS = 2;

/** ssh's messages (OpenSSH 9), the first that matches wins: the line for TARGET, and whether it may pass. */
const SSH_MESSAGES: [RegExp, (target: string) => string, SshFailureKind][] = [
  [
    /REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for \S+ has changed/,
    (t) => `ssh: the host key of ${t} has changed — find out why before you fix ~/.ssh/known_hosts`,
    'permanent',
  ],
  [
    /Host key verification failed|No \S+ host key is known for|host key is not known/i,
    (t) => `ssh: host key unknown — run \`ssh ${t}\` once`,
    'permanent',
  ],
  [
    /Permission denied|Too many authentication failures|No more authentication methods/,
    (t) => `ssh: ${t} refused the login — with no password prompt, a key must do: \`ssh-copy-id ${t}\` or ssh-agent`,
    'permanent',
  ],
  [/Could not resolve hostname/, (t) => `ssh: cannot resolve the host name of ${t}`, 'transient'],
  [/Connection refused/, (t) => `ssh: ${t} refused the connection (no sshd listening there?)`, 'transient'],
  [/timed out|Timeout, server \S+ not responding/i, (t) => `ssh: ${t} did not answer (timed out)`, 'transient'],
  [/No route to host|Network is unreachable/, (t) => `ssh: no route to ${t}`, 'transient'],
  [
    /Connection (closed|reset) by|Broken pipe|kex_exchange_identification/,
    (t) => `ssh: ${t} closed the connection`,
    'transient',
  ],
];

/** The last line ssh (or the remote shell) wrote, printable and short: a line nothing above knows. */
function lastLine(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  const line = printable(oneLine(lines.at(-1) ?? ''));
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/**
 * The failure of an ssh process that ended before (or instead of) bridging: `command` is the host's own remote
 * command (named when it was not found; none: the default, holdfast on the PATH or in ~/.holdfast), `stderr` what
 * ssh and the remote shell wrote.
 */
export function sshFailure(
  target: string,
  command: string | undefined,
  status: number | null,
  signal: NodeJS.Signals | null,
  stderr: string,
): SshFailure {
  if (signal) return new SshFailure(`ssh to ${target} ended by ${signal}`, 'transient');
  if (status === SSH_ERROR_STATUS) {
    for (const [pattern, line, kind] of SSH_MESSAGES)
      if (pattern.test(stderr)) return new SshFailure(line(target), kind);
    const last = lastLine(stderr);
    return new SshFailure(last ? `ssh: ${last.replace(/^ssh: /, '')}` : `ssh to ${target} failed`, 'transient');
  }
  const program = command?.split(' ')[0] ?? 'holdfast';
  if (status === NOT_FOUND_STATUS)
    return new SshFailure(
      command === undefined
        ? `holdfast is not installed on ${target}: neither on the PATH of its non-interactive shell nor in ` +
            `~/.holdfast (install it: \`holdfast host install ${target}\`)`
        : `${program} is not installed on ${target}, or not on the PATH of its non-interactive shell ` +
            `(set "command" in its hosts entry, e.g. "~/.local/bin/holdfast")`,
      'permanent',
      command === undefined,
    );
  if (status === USAGE_STATUS && /unknown command "bridge"/.test(stderr))
    return new SshFailure(
      `the holdfast on ${target} is too old to bridge (it has no \`bridge\`): \`holdfast host install ${target}\` ` +
        `puts this one in ~/.holdfast; set "command": "~/.holdfast/holdfast" in its hosts entry`,
      'permanent',
    );
  if (status === NOT_EXECUTABLE_STATUS)
    return new SshFailure(`${program} cannot be run on ${target}: ${lastLine(stderr)}`, 'permanent');
  const last = lastLine(stderr);
  return new SshFailure(
    `the remote holdfast on ${target} exited with status ${status}${last ? `: ${last}` : ''}`,
    'transient',
  );
}

/** ssh itself could not start here (HOLDFAST_SSH names a program that is not there). */
export function sshNotStarted(program: string, err: NodeJS.ErrnoException): SshFailure {
  const why = err.code === 'ENOENT' ? 'not found' : (err.code ?? err.message);
  return new SshFailure(
    `cannot run ${printable(program)} (${why}): OpenSSH's client is needed to reach a host`,
    'permanent',
  );
}
