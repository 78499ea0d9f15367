// Test helpers for shell integration: a client terminal that records where OSC 633 marks land, as VS
// Code's renderer does (a marker at the cursor's row, and its column), and a shell started with a
// stand-in for VS Code's scripts (test/fixtures/shell-integration, the same sequences).
import * as path from 'node:path';
import type { IMarker } from '@xterm/headless';
import type { SnapshotReason } from '../../src/client/client';
import type { HoldfastClient } from '../../src/client/client';
import type { SessionInfo } from '../../src/protocol/messages';
import { waitFor } from './daemon';
import { ReplayTerminal } from './terminal';

/** The stand-in scripts folder (only bash): what a client names as VS Code's. */
export const STAND_IN_SCRIPTS = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'shell-integration');

/** A nonce of the shape VS Code makes (a UUID). */
export const NONCE = '0f1e2d3c-4b5a-4697-8877-665544332211';

/** Records each OSC 633 sequence with the row (a marker) and column where it arrived. */
export class MarkRecorder extends ReplayTerminal {
  private marks: { marker: IMarker; x: number; data: string }[] = [];

  constructor(cols: number, rows: number, scrollback = 10_000) {
    super(cols, rows, scrollback);
    this.terminal.parser.registerOscHandler(633, (data) => {
      const marker = this.terminal.registerMarker(0);
      if (marker) this.marks.push({ marker, x: this.terminal.buffer.active.cursorX, data });
      return true;
    });
  }

  override onSnapshot(bytes: Buffer, why: SnapshotReason): void {
    // A snapshot starts the screen again (RIS): what was recorded before is replaced by its marks.
    this.marks = [];
    super.onSnapshot(bytes, why);
  }

  /** "row:column:payload" of each mark still on a row, in order. */
  async recorded(): Promise<string[]> {
    await this.settle();
    return this.marks.filter((m) => !m.marker.isDisposed).map((m) => `${m.marker.line}:${m.x}:${m.data}`);
  }

  /** The text of row `line`. */
  row(line: number): string {
    return this.terminal.buffer.normal.getLine(line)?.translateToString(true) ?? '';
  }
}

/** A bash session with the stand-in shell integration (its rc file: none; HOME is `home`). */
export async function integratedBash(
  client: HoldfastClient,
  home: string,
  extra: { cols?: number; rows?: number; scrollback?: number; name?: string } = {},
): Promise<SessionInfo> {
  const { session } = await client.request('create', {
    argv: ['bash'],
    cwd: home,
    cols: extra.cols ?? 80,
    rows: extra.rows ?? 24,
    scrollback: extra.scrollback,
    name: extra.name,
    env: { HOME: home, HISTFILE: path.join(home, '.bash_history') },
    shellIntegration: { scripts: STAND_IN_SCRIPTS, nonce: NONCE },
  });
  await atPrompt(client, session.id);
  return session;
}

/** Waits until the session's shell says it waits at its prompt. */
export async function atPrompt(client: HoldfastClient, id: string, timeoutMs = 30_000): Promise<SessionInfo> {
  let info: SessionInfo | undefined;
  await waitFor(
    async () => {
      info = (await client.request('show', { session: id })).session;
      return info.shell?.phase === 'prompt';
    },
    timeoutMs,
    `session ${id} at its prompt`,
  );
  return info!;
}
