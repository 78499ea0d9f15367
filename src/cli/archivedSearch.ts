// `holdfast grep --archived`: the saved screens of checkpoint files that no running daemon holds,
// read without a daemon. Each screen goes through the daemon's own emulator (the lines a restored
// archive would show) and the daemon's matcher.
import { readCheckpoints, recoveryDir } from '../protocol/checkpointFiles';
import { clampScreenSize } from '../protocol/limits';
import { SearchMatch, SearchParams } from '../protocol/messages';
import { SavedSession } from '../protocol/recovery';
import { Emulator } from '../daemon/emulator';
import { matchLines, planSearch } from '../daemon/sessionSearch';
import { DEFAULT_LIMITS } from '../daemon/sessionRegistry';

/** The plain lines of a saved screen (VT bytes), as an archived session restored from it reads them. */
export async function savedScreenLines(saved: SavedSession & { screen: string }): Promise<string[]> {
  const emulator = new Emulator({
    ...clampScreenSize(saved.cols, saved.rows),
    scrollback: DEFAULT_LIMITS.defaultScrollback,
  });
  try {
    const parsed = new Promise<void>((resolve) => {
      const listener = emulator.onParsed(() => {
        if (emulator.backlog > 0) return;
        listener.dispose();
        resolve();
      });
    });
    emulator.write(Buffer.from(saved.screen, 'utf8'));
    await parsed;
    return emulator.lines(Infinity);
  } finally {
    emulator.dispose();
  }
}

/**
 * Matches in the saved screens of every checkpoint but `skipId` (the running daemon's own: its
 * sessions are live there), newest checkpoint first; `found` holds the daemon's matches so far.
 * A session is named NAME@CHECKPOINT. Returns whether more matched than the limit allows.
 */
export async function searchCheckpoints(
  env: NodeJS.ProcessEnv,
  params: SearchParams,
  skipId: string | undefined,
  found: SearchMatch[],
): Promise<boolean> {
  const plan = planSearch(params);
  const { checkpoints } = readCheckpoints(recoveryDir(env), skipId ?? '');
  for (const { data } of checkpoints) {
    if (data.id === skipId) continue;
    for (const saved of data.sessions) {
      if (typeof saved.screen !== 'string') continue;
      if (params.session !== undefined && params.session !== saved.id && params.session !== saved.name) continue;
      const source = { session: saved.id, name: `${saved.name}@${data.id}` };
      const lines = await savedScreenLines({ ...saved, screen: saved.screen });
      if (!(await matchLines(lines, source, plan, found))) return true;
    }
  }
  return false;
}
