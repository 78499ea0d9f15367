// The one error type a request handler throws: its code goes to the client (see ErrorCode).
import type { ErrorCode } from '../protocol/messages';

export class DaemonError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}
