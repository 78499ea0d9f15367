// Who may report an agent's state for a session (`notify`): only a hook running inside it. Each session
// gets a credential of its own in its environment (HOLDFAST_NOTIFY_TOKEN); without it a process in one
// session could mark another waiting, or point its resume at a forged conversation id.
import { createHmac, randomBytes } from 'node:crypto';
import { tokensMatch } from './endpoint';

export const NOTIFY_TOKEN_ENV = 'HOLDFAST_NOTIFY_TOKEN';

export class NotifyCredentials {
  /**
   * Per daemon run (and its successors: the sessions keep theirs): a credential is derived, so nothing
   * per session needs keeping.
   */
  constructor(readonly secret: Buffer = randomBytes(32)) {}

  of(sessionId: string): string {
    return createHmac('sha256', this.secret).update(`notify\0${sessionId}`).digest('hex');
  }

  matches(sessionId: string, given: unknown): boolean {
    return tokensMatch(this.of(sessionId), given);
  }
}
