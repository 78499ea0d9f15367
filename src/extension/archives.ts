// After a reboot or a daemon crash: bring this workspace's sessions back as archived tabs (their
// saved screens, no process) from the previous daemon's checkpoint. Nothing is re-run here; an
// archive starts again only when the user asks (Resume / Relaunch). Pure Node (no vscode import).
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import { type HoldfastClient, RequestError } from '../client/client';
import { Capability, ErrorCode, type SessionInfo } from '../protocol/messages';
import { resumeOffered } from '../agents/agents';
import { archivedFrom } from '../protocol/recovery';
import { readLayout } from '../protocol/tabLayout';

/**
 * How an archive starts again: an agent that was running when checkpointed, with a resume command
 * it can fill in, resumes its conversation; the rest relaunch (an agent that had already finished
 * before the crash gets a new conversation, not its ended one).
 */
export function archiveAction(session: SessionInfo): 'resume' | 'relaunch' | undefined {
  const from = archivedFrom(session.metadata);
  if (!from || session.state !== 'exited') return undefined;
  // The daemon's own rule for what `resume` accepts (a custom profile's command comes from the settings).
  return from.running && resumeOffered(session.metadata) ? 'resume' : 'relaunch';
}

/**
 * Restores the previous daemon's checkpoint when this workspace has no sessions in the daemon and
 * that checkpoint has some. Only the newest earlier checkpoint is considered: an older one was
 * either superseded by it or deliberately emptied. Resolves how many sessions of `workspace` came back.
 */
export async function restoreArchives(
  client: HoldfastClient,
  workspace: string,
  sessions: readonly SessionInfo[],
  log: (line: string) => void,
): Promise<number> {
  if (!client.supports(Capability.Recovery)) return 0;
  if (sessions.some((s) => readLayout(s.metadata).workspace === workspace)) return 0;
  const { checkpoints } = await client.request('recovery.list', {});
  const previous = checkpoints.filter((c) => !c.current).sort((a, b) => b.writtenAt - a.writtenAt)[0];
  if (!previous || previous.sessions === 0) return 0;
  // Another window restored it.
  if (sessions.some((s) => archivedFrom(s.metadata)?.checkpoint === previous.id)) return 0;
  const inspected = await client.request('recovery.inspect', { id: previous.id });
  if (!inspected.sessions.some((s) => readLayout(s.metadata).workspace === workspace)) return 0;
  try {
    const restored = await client.request('recovery.restore', { id: previous.id });
    const mine = restored.sessions.filter((s) => readLayout(s.metadata).workspace === workspace).length;
    log(
      `restored checkpoint ${previous.id} (written ${new Date(previous.writtenAt).toISOString()}): ` +
        `${restored.sessions.length} archived session(s), ${mine} of this workspace`,
    );
    return mine;
  } catch (err) {
    // Another window restored it a moment ago: its archives are in the daemon now.
    if (err instanceof RequestError && err.code === ErrorCode.BadRequest) {
      log(`checkpoint ${previous.id} not restored: ${err.message}`);
      return 0;
    }
    throw err;
  }
}
