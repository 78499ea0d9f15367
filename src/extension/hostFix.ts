// Which fix a host's connection calls for (hostInstallOffer.ts offers it): no holdfast found there by the default
// command, or a daemon older than this Holdfast (by its hello's version, or a protocol too old to speak).
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import { SshFailure } from '../link/sshFailure';
import { compareVersions, ProtocolMismatchError, VERSION } from '../protocol/version';
import type { HostConnection } from './hostConnection';

/** What a host's state calls for: this Holdfast installed there, or its daemon handed over to this one. */
export type HostFix = 'install' | 'upgrade';

/** What the host's state calls for, if anything: its connection's failure, or the version of its daemon. */
export function hostFix(connection: Pick<HostConnection, 'state' | 'client'>): HostFix | undefined {
  const state = connection.state;
  if (state.kind === 'failed') {
    const cause = state.error.cause;
    if (cause instanceof SshFailure && cause.notInstalled) return 'install';
    if (cause instanceof ProtocolMismatchError && cause.side === 'daemon-too-old') return 'upgrade';
    return undefined;
  }
  const hello = connection.client?.hello;
  return hello && (compareVersions(hello.version, VERSION) ?? 0) < 0 ? 'upgrade' : undefined;
}
