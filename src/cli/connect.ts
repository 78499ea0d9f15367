// Talking to the daemon: connect, never starting one (only `new` does, through connectOrStart).
// Session arguments go to the daemon as typed: it resolves an exact id, else a unique name.
import { ConnectOptions, HoldfastClient } from '../protocol/client';
import { SCOPE_TOKEN_ENV } from '../host/endpointTrust';
import { VERSION } from '../protocol/version';
import { Context } from './command';

/** A scoped credential in the environment (a session started by a scoped client) is used over the token file. */
export function connectOptions(socket: string, env: NodeJS.ProcessEnv): ConnectOptions {
  return { socket, client: 'cli', version: VERSION, credential: env[SCOPE_TOKEN_ENV] || undefined };
}

/** Connects to a running daemon; NoDaemonError (exit 6) when none listens. */
export function connect(ctx: Context): Promise<HoldfastClient> {
  return HoldfastClient.connect(connectOptions(ctx.socket, ctx.env));
}

/** Runs `fn` with a connection and always closes it. */
export async function withClient<T>(ctx: Context, fn: (client: HoldfastClient) => Promise<T>): Promise<T> {
  const client = await connect(ctx);
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}
