// A Holdfast tab (SessionTab, plain Node) while its daemon hands every session to a successor (`handoff`,
// Restart Daemon, `holdfast upgrade`): the connection drops, the tab says it is reconnecting, then the
// successor's snapshot replaces that notice with the program's screen, shown or hidden, before and after
// the scrollback comes. A full-screen program that prints nothing after the cut is the hard case.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { startTestDaemon, waitFor } from './helpers/daemon';
import { tabFor, tabWindow } from './helpers/tabWindow';

const STEP_MS = 20_000;
const SIZE = { columns: 80, rows: 24 };
const FULL_SCREEN = `printf 'h1\\nh2\\n\\033[?1049h\\033[2J\\033[5;3HFULL SCREEN\\033[2;1Hcursor here'; exec cat`;
/** Every snapshot starts with a reset; the scrollback's also opens a synchronized update. */
const RESET = '\x1bc';
const HISTORY_START = '\x1bc\x1b[3J\x1b[?2026h';
const NOTICE = '[holdfast]';

function count(text: string, part: string): number {
  return text.split(part).length - 1;
}

for (const shown of [true, false]) {
  const how = shown ? 'a shown tab' : 'a hidden tab (no size until it is shown)';
  test(`handoff with a full-screen program that prints nothing after it: ${how} shows its screen again`, async () => {
    const daemon = await startTestDaemon();
    const window = tabWindow(daemon);
    const { connection, errors } = window;
    const other = await daemon.connect('other');
    const argv = ['bash', '-c', FULL_SCREEN];
    const { session } = await other.request('create', { name: 'full', argv, cols: 80, rows: 24 });
    const condition = { kind: 'text' as const, pattern: 'cursor here' };
    await other.request('wait', { session: session.id, condition, timeoutMs: STEP_MS });
    await connection.adopt();
    const { tab, written } = tabFor(window, session);
    const sinceReset = () => written().slice(written().lastIndexOf(RESET));
    try {
      tab.open(shown ? SIZE : undefined);
      await waitFor(() => tab.status === 'live' && sinceReset().includes('FULL SCREEN'), STEP_MS, 'the screen');
      const successor = (await other.request('handoff', {})).pid;
      await waitFor(() => written().includes(NOTICE), STEP_MS, 'the tab to say it lost the connection');
      await waitFor(() => connection.client?.hello.pid === successor, STEP_MS, 'the window on the successor');
      await waitFor(() => tab.status === 'live', STEP_MS, `the tab live again (it is ${tab.status})`);
      await waitFor(
        () => written().lastIndexOf(RESET) > written().lastIndexOf(NOTICE),
        STEP_MS,
        "the successor's snapshot after the notice",
      );
      if (!shown) {
        const histories = count(written(), HISTORY_START);
        tab.setDimensions(SIZE); // shown: the scrollback is asked for, and the notices since the screen come back
        await waitFor(() => count(written(), HISTORY_START) > histories, STEP_MS, 'the scrollback once shown');
      }
      assert.match(sinceReset(), /FULL SCREEN/);
      assert.match(sinceReset(), /cursor here/);
      assert.ok(!sinceReset().includes(NOTICE), `no notice left under the screen: ${JSON.stringify(sinceReset())}`);
      tab.handleInput('typed-after\r');
      await waitFor(() => sinceReset().includes('typed-after'), STEP_MS, 'a key reaching the program');
      assert.deepEqual(errors, []);
    } finally {
      tab.dispose();
      connection.dispose();
      other.close();
      await daemon.stop();
      fs.rmSync(daemon.dir, { recursive: true, force: true });
    }
  });
}
