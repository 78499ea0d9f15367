// Talking to the daemon: connect, never starting one (only `new` does, through connectOrStart).
// Session arguments go to the daemon as typed: it resolves an exact id, else a unique name.
import { HoldfastClient } from '../protocol/client';
import { connectOptions } from '../host/clientOptions';
import { Context } from './command';

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
