// One ssh to a host that runs a command and ends (the install's probe, its receiver, a command of an install), as
// opposed to sshStream.ts's bridge: what it wrote, bounded, and how it ended; ssh's own failures in sshFailure's line.
import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { HostEntry } from './hosts';
import { SshFailure, sshFailure, sshNotStarted } from './sshFailure';
import { SSH_OPTIONS, SSH_PROGRAM_ENV } from './sshStream';

/** What a command's stdout and stderr may hold here: more is dropped (a host's words, not a file). */
const KEEP_BYTES = 64 * 1024;

export interface SshRunResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface SshRunOptions {
  /** Fed to the command's stdin, then closed; none: stdin is closed at once. */
  input?: Readable;
  /** Ends ssh after this long (a probe); none: as long as it takes (a transfer). */
  timeoutMs?: number;
}

/**
 * Runs `commandLine` on the host through ssh with the bridge's options. Resolves with how it ended once it has;
 * rejects with ssh's failure when ssh itself failed (exit 255: a host key, a login, the network) or could not start.
 */
export function sshRun(
  host: HostEntry,
  env: NodeJS.ProcessEnv,
  commandLine: string,
  options: SshRunOptions = {},
): Promise<SshRunResult> {
  const program = env[SSH_PROGRAM_ENV] || 'ssh';
  return new Promise((resolve, reject) => {
    const child = spawn(program, [...SSH_OPTIONS, '--', host.target, commandLine], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (stdout.length < KEEP_BYTES) stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < KEEP_BYTES) stderr += chunk.toString('utf8');
    });
    child.stdin.on('error', () => undefined); // ssh gone: 'close' says why
    let timedOut = false;
    const timer = options.timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          child.kill('SIGTERM');
        }, options.timeoutMs)
      : undefined;
    let failed: SshFailure | undefined;
    child.on('error', (err) => (failed = sshNotStarted(program, err)));
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      options.input?.destroy();
      if (timedOut)
        failed ??= new SshFailure(`${host.target} did not answer within ${options.timeoutMs} ms`, 'transient');
      if (failed) return reject(failed);
      if (status === 255 || signal) return reject(sshFailure(host.target, '', status, signal, stderr));
      resolve({ status, signal, stdout, stderr });
    });
    if (options.input) options.input.pipe(child.stdin);
    else child.stdin.end();
  });
}
