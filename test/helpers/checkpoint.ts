// Test helper: recovery checkpoint files written by hand, as a daemon (or an attacker) would leave them.
import type { CheckpointFile } from '../../src/protocol/recovery';

type SavedSession = CheckpointFile['sessions'][number];

/**
 * A checkpoint file's JSON: each of `sessions` filled in with a running 80x24 session's fields
 * (`each(i)` on top of them, then the session's own), as written by a daemon that no longer runs.
 */
export function checkpointJson(
  id: string,
  sessions: Record<string, unknown>[],
  each: (index: number) => Partial<SavedSession> = () => ({}),
  writtenAt = Date.now(),
): string {
  const full = sessions.map((s, i) => ({
    id: `0000000${i}`,
    cols: 80,
    rows: 24,
    createdAt: 1,
    running: true,
    exit: null,
    metadata: {},
    ...each(i),
    ...s,
  }));
  return JSON.stringify({
    version: 1,
    id,
    writtenAt,
    daemonPid: 1,
    daemonStartedAt: 1,
    socket: '/nowhere',
    sessions: full,
  });
}
