// `answer`: approves or denies the permission prompt on a session's screen. The screen is read from the
// emulator's worker and checked against the prompt its agent's profile is known to draw
// (agents/permissionPrompt.ts), else `no-prompt`. Any program can print that layout, so the keys are written
// only for a prompt its agent's own hook said it asks for (attention.ts), or one whose block is the one the
// client showed the user (`shown`, its digest); else `unconfirmed`, and nothing is sent.
import { ErrorCode, type AnswerResult } from '../../protocol/messages';
import {
  findPermissionPrompt,
  type PermissionPrompt,
  type PromptChoice,
  promptArea,
  promptAreaDigest,
  VERIFIED_PROMPTS,
} from '../../agents/permissionPrompt';
import { agentOf } from '../../protocol/recovery';
import { DaemonError } from '../daemonError';
import type { Session } from './session';

/** Reads of the screen before giving up on one that keeps changing while it is read. */
const MAX_READS = 3;

/** The built-in profile of the agent a session runs, if it names one. */
function profileOf(session: Session): string | undefined {
  const profile = agentOf(session.metadata)?.profile;
  return typeof profile === 'string' ? profile : undefined;
}

/** The agent a session's metadata names, when Holdfast knows its permission prompt; else undefined. */
export function promptProfileOf(metadata: Record<string, unknown>): string | undefined {
  const profile = agentOf(metadata)?.profile;
  return typeof profile === 'string' && Object.hasOwn(VERIFIED_PROMPTS, profile) ? profile : undefined;
}

function noPrompt(session: Session, profile: string | undefined): DaemonError {
  const known = Object.values(VERIFIED_PROMPTS).join(', ');
  const what =
    profile !== undefined && Object.hasOwn(VERIFIED_PROMPTS, profile)
      ? `shows no permission prompt of ${VERIFIED_PROMPTS[profile]}`
      : `runs no agent whose permission prompt Holdfast knows (${known})`;
  return new DaemonError(ErrorCode.NoPrompt, `session ${session.id} ${what}: nothing was sent`);
}

/** The permission prompt on a session's screen that `answer` can answer, if there is one. */
export function promptOn(session: Session, rows: readonly string[]): PermissionPrompt | undefined {
  return findPermissionPrompt(profileOf(session), rows);
}

/** Whether the prompt's block is vouched for: by its agent's hook, or as the one the client showed. */
function confirm(session: Session, area: string, shown: string | undefined): void {
  if (area === shown || session.activity.hookAsksFor(area)) return;
  const why =
    shown === undefined
      ? "its agent's own hook has not said it asks, so it must be shown before it is answered " +
        '(holdfast approve|deny shows it and names it: --shown DIGEST)'
      : 'it is not the prompt that was shown (the screen changed since)';
  throw new DaemonError(ErrorCode.Unconfirmed, `session ${session.id}: ${why}; nothing was sent`);
}

export async function answerPrompt(session: Session, choice: PromptChoice, shown?: string): Promise<AnswerResult> {
  const profile = profileOf(session);
  for (let read = 0; read < MAX_READS; read++) {
    if (!session.isRunning) throw new DaemonError(ErrorCode.Exited, `session ${session.id} has exited`);
    const askedAt = Date.now();
    const { lines } = await session.screen();
    // Output read since the screen was asked for may not be on it: it may have answered the prompt.
    if (session.lastOutputAt >= askedAt) continue;
    if (session.isDisposed || !session.isRunning) break;
    const prompt = findPermissionPrompt(profile, lines);
    if (!prompt) throw noPrompt(session, profile);
    confirm(session, promptAreaDigest(promptArea(lines, prompt)), shown);
    const sent = prompt.keys[choice];
    const refused = session.send(sent);
    if (refused) throw new DaemonError(ErrorCode.Limit, `session ${session.id}: ${refused}`);
    return { question: prompt.question, sent };
  }
  if (!session.isRunning) throw new DaemonError(ErrorCode.Exited, `session ${session.id} has exited`);
  throw new DaemonError(
    ErrorCode.NoPrompt,
    `session ${session.id}: its screen kept changing while read; nothing was sent`,
  );
}
