// A request refused `busy` (a handoff under way: the sessions are between two daemons) is asked again once
// the handoff is done, for every client (the extension, the CLI, MCP): HoldfastClient.request goes through
// here. Done is either of: the daemon lets this connection go (its successor serves; until then it answers
// `stopping`), and the request is asked of the successor on a connection of its own; or the daemon answers
// it (the handoff failed, it serves on). Bounded: past BusyRetry.DeadlineMs the first refusal is the answer.
import { ErrorCode, type Method, type Params, type Result } from '../protocol/messages';

export enum BusyRetry {
  /** The first wait before asking the same daemon again; doubled each time. */
  FirstDelayMs = 50,
  /** The longest wait between two askings of the same daemon. */
  MaxDelayMs = 1000,
  /** The longest a request waits for a handoff: a successor has 10 s to answer (HandoffTiming.AnswerMs). */
  DeadlineMs = 20_000,
}

/**
 * Methods that act on the connection that asks (a `claim` names its channel; a `grant` mints a credential
 * that lives while that connection does): once it is gone they fail as its other requests did, and the
 * client that attaches again to the successor asks again itself.
 */
const BOUND_TO_CONNECTION: ReadonlySet<Method> = new Set<Method>(['claim', 'grant']);

/** What the retry needs of a connection. */
export interface BusyRetryClient {
  /** The request asked once, as the daemon answers it. */
  requestOnce<M extends Method>(method: M, params: Params<M>): Promise<Result<M>>;
  readonly isClosed: boolean;
  /** Closed by its owner: what it asked is not asked again elsewhere. */
  readonly closedOnPurpose: boolean;
  /** Resolves once the connection has closed. */
  readonly closed: Promise<void>;
  /** A connection of its own to whichever daemon now serves the socket, closed by the caller. */
  connectAgain(): Promise<BusyRetryClient & { close(): void }>;
  /** BusyRetry.DeadlineMs unless the client was told otherwise. */
  readonly busyDeadlineMs: number;
}

export function isBusy(err: unknown): boolean {
  return (err as { code?: unknown } | undefined)?.code === ErrorCode.Busy;
}

/** After a handoff, the daemon that handed over retires: `stopping` until it lets its connections go. */
function isRetiring(err: unknown): boolean {
  return (err as { code?: unknown } | undefined)?.code === ErrorCode.Stopping;
}

export async function askUntilDone<M extends Method>(
  client: BusyRetryClient,
  method: M,
  params: Params<M>,
): Promise<Result<M>> {
  let refusal: unknown;
  try {
    return await client.requestOnce(method, params);
  } catch (err) {
    if (!isBusy(err)) throw err;
    refusal = err;
  }
  const deadline = Date.now() + client.busyDeadlineMs;
  for (let delay: number = BusyRetry.FirstDelayMs; ; delay = Math.min(delay * 2, BusyRetry.MaxDelayMs)) {
    const left = deadline - Date.now();
    if (left <= 0) throw refusal;
    await closedOrAfter(client, Math.min(delay, left));
    try {
      if (!client.isClosed) return await client.requestOnce(method, params);
      if (client.closedOnPurpose || BOUND_TO_CONNECTION.has(method)) throw new Error('connection to the daemon closed');
      return await askSuccessor(client, method, params);
    } catch (err) {
      if (!isBusy(err) && !isRetiring(err)) throw err;
    }
  }
}

async function askSuccessor<M extends Method>(
  client: BusyRetryClient,
  method: M,
  params: Params<M>,
): Promise<Result<M>> {
  const successor = await client.connectAgain();
  try {
    return await successor.requestOnce(method, params);
  } finally {
    successor.close();
  }
}

/** Resolves once the connection closes or `ms` has passed, whichever comes first. */
function closedOrAfter(client: BusyRetryClient, ms: number): Promise<void> {
  if (client.isClosed) return Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([client.closed, elapsed]).finally(() => clearTimeout(timer));
}
