// How a client run from a shell (the CLI, `holdfast mcp`) connects to the daemon: to its socket, with the
// scoped credential its environment may carry instead of the token file's token.
import type { ConnectOptions } from './client';
import { VERSION } from '../protocol/version';
import { SCOPE_TOKEN_ENV } from '../host/endpointTrust';

/** A scoped credential in the environment (a session started by a scoped client) is used over the token file. */
export function connectOptions(socket: string, env: NodeJS.ProcessEnv): ConnectOptions {
  return { socket, client: 'cli', version: VERSION, credential: env[SCOPE_TOKEN_ENV] || undefined };
}
