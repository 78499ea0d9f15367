// A window's side of a Holdfast tab in plain Node: a DaemonConnection, a TabHost that keeps the errors it is
// told, and tabs wired to the connection as the window's tabs are (tabs.ts).
import type { SessionInfo } from '../../src/protocol/messages';
import { DaemonConnection } from '../../src/extension/daemonConnection';
import { SessionTab } from '../../src/extension/pseudoterminal';
import type { TabHost } from '../../src/extension/tabHost';
import { DAEMON_SCRIPT, type TestDaemon } from './daemon';

export interface TabWindow {
  connection: DaemonConnection;
  host: TabHost;
  /** What the tabs reported as errors, as `message: error`. */
  errors: string[];
  /** The lines the tabs logged as warnings. */
  warnings: string[];
}

/** A window connected (once adopted) to `socket`, which is `daemon`'s or a proxy in front of it. */
export function tabWindow(daemon: TestDaemon, socket = daemon.socket): TabWindow {
  const connection = new DaemonConnection({
    socket,
    daemonScript: () => DAEMON_SCRIPT,
    execPath: process.execPath,
    env: daemon.env,
    wrapper: async () => undefined,
  });
  const errors: string[] = [];
  const warnings: string[] = [];
  const host: TabHost = {
    connection,
    sessionKnown: () => undefined,
    becameOwner: () => undefined,
    sessionRemoved: () => undefined,
    reportError: (message, error) => errors.push(`${message}: ${String(error)}`),
    warn: (line) => warnings.push(line),
  };
  return { connection, host, errors, warnings };
}

/** A tab showing `session`, with everything it wrote kept. */
export function tabFor(window: TabWindow, session: SessionInfo): { tab: SessionTab; written: () => string } {
  const { connection } = window;
  const tab = new SessionTab(window.host, { kind: 'existing', session });
  connection.onDidLose(({ daemonGone, expected }) => (daemonGone ? tab.daemonGone(expected) : tab.connectionLost()));
  connection.onDidConnect((client) => tab.reconnected(client));
  let text = '';
  tab.onDidWrite((data) => (text += data));
  return { tab, written: () => text };
}
