// Talking to the daemon through the command's link (this machine's socket, or a host over SSH), never starting one
// unless asked (only `new`, `recovery restore` and start_session do).
// Session arguments go to the daemon as typed: it resolves an exact id, else a unique name.
import type { HoldfastClient } from '../client/client';
import type { LinkConnectOptions } from '../link/daemonLink';
import type { Context } from './command';

/** Connects to the running daemon; NoDaemonError (exit 6) when none listens. */
export function connect(ctx: Context, options?: LinkConnectOptions): Promise<HoldfastClient> {
  return ctx.link.connect(options);
}

/** Runs `fn` with a connection and always closes it. */
export async function withClient<T>(
  ctx: Context,
  fn: (client: HoldfastClient) => Promise<T>,
  options?: LinkConnectOptions,
): Promise<T> {
  const client = await connect(ctx, options);
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}
