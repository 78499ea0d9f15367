// Exit codes (stable, documented in docs/cli.md) and the one error type commands throw.
import { InputError } from '../base/inputError';
import { NoDaemonError, RequestError } from '../client/client';
import { ErrorCode } from '../protocol/messages';
import { NoHostDaemonError } from '../link/daemonLink';
import { SshFailure } from '../link/sshFailure';
import { ProtocolMismatchError } from '../protocol/version';

export enum ExitCode {
  Ok = 0,
  Failed = 1,
  Usage = 2,
  NoSession = 4,
  NoDaemon = 6,
  TimedOut = 124,
}

/** An error with the exit code and the machine-readable code it ends the command with. */
export class CliError extends Error {
  constructor(
    readonly exitCode: ExitCode,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function usageError(message: string): CliError {
  return new CliError(ExitCode.Usage, 'usage', message);
}

export function noDaemonMessage(socketPath: string): string {
  return `no daemon is listening on ${socketPath} (start one with \`holdfast new\` or \`holdfast serve\`)`;
}

/** Maps anything thrown by a command onto an exit code and one line of text. */
export function toCliError(err: unknown): CliError {
  if (err instanceof CliError) return err;
  if (err instanceof InputError) return usageError(err.message);
  if (err instanceof NoHostDaemonError) return new CliError(ExitCode.NoDaemon, 'no-daemon', err.message);
  if (err instanceof NoDaemonError)
    return new CliError(ExitCode.NoDaemon, 'no-daemon', noDaemonMessage(err.socketPath));
  if (err instanceof ProtocolMismatchError) return new CliError(ExitCode.Failed, ErrorCode.Protocol, err.message);
  // A host out of reach: ssh's own line (host key, login, network) or a far end that said nothing in time.
  if (err instanceof SshFailure) return new CliError(ExitCode.Failed, 'ssh', err.message);
  if (err instanceof RequestError) {
    switch (err.code) {
      case ErrorCode.NoSession:
        return new CliError(ExitCode.NoSession, err.code, err.message);
      case ErrorCode.BadRequest:
      case ErrorCode.Ambiguous:
        return new CliError(ExitCode.Usage, err.code, err.message);
      default:
        return new CliError(ExitCode.Failed, err.code, err.message);
    }
  }
  const message = err instanceof Error ? err.message : String(err);
  return new CliError(ExitCode.Failed, 'failed', message);
}
