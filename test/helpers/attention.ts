// Test helper: waiting on a session's attention through the daemon's events.
import type { HoldfastClient } from '../../src/client/client';
import type { SessionAttention } from '../../src/protocol/messages';

/**
 * Resolves with the session's attention once `matches` holds: listening to its events first, then
 * asking how it is now, so that no event falls between. `failure` says what never came (after 20 s).
 */
export async function attentionWhere(
  client: HoldfastClient,
  id: string,
  matches: (a: SessionAttention) => boolean,
  failure: () => string = () => `no such attention for ${id}`,
): Promise<SessionAttention> {
  let sub: { dispose(): void } | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise<SessionAttention>((resolve, reject) => {
      sub = client.onEvent((event) => {
        if (event.type === 'attention' && event.id === id && matches(event.attention)) resolve(event.attention);
      });
      timer = setTimeout(() => reject(new Error(failure())), 20_000);
      client.request('show', { session: id }).then(({ session }) => {
        if (matches(session.attention)) resolve(session.attention);
      }, reject);
    });
  } finally {
    sub?.dispose();
    clearTimeout(timer);
  }
}
