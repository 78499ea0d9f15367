// A bounded window during which something must NOT happen ("no history arrives within X ms").
// Never use it to order events: to wait for something, wait for the thing itself (waitFor, an
// event, a reply on the same connection).

/** Lets `ms` pass so that the caller can then assert that what it watched for did not happen. */
export function absenceWindow(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
