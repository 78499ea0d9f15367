// Failure artifacts: screenshots, console errors and logs saved under test-artifacts/ when a test fails.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CodeServer } from './codeServer';
import { ARTIFACTS_DIR } from './environment';
import type { Isolation } from './isolation';
import { safeName } from './utilities';
import type { Workbench } from './workbench';

/**
 * Runs `body`; when it throws, saves a screenshot of every open window and the server's logs
 * under test-artifacts/ (named after `name`) and rethrows.
 */
export async function withArtifacts<T>(
  name: string,
  parts: { windows: () => Workbench[]; server?: () => CodeServer | undefined; isolation?: Isolation },
  body: () => Promise<T>,
): Promise<T> {
  try {
    return await body();
  } catch (err) {
    const saved: string[] = [];
    const base = safeName(name).slice(0, 100);
    let i = 0;
    for (const wb of parts.windows()) {
      i++;
      try {
        if (!wb.page.isClosed()) saved.push(await wb.screenshot(`${base}-window${i}`));
        if (wb.consoleLines.length) {
          fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
          fs.writeFileSync(path.join(ARTIFACTS_DIR, `${base}-window${i}-console.txt`), wb.consoleLines.join('\n'));
        }
      } catch {
        // an artifact is a failure's aid: saving it must not fail the test
      }
    }
    const server = parts.server?.();
    if (server) saved.push(server.saveLogs(name));
    const iso = parts.isolation;
    if (iso) {
      const daemonLog = path.join(iso.stateHome, 'holdfast', 'daemon.log');
      if (fs.existsSync(daemonLog)) {
        const dest = path.join(ARTIFACTS_DIR, safeName(name));
        fs.mkdirSync(dest, { recursive: true });
        fs.copyFileSync(daemonLog, path.join(dest, 'daemon.log'));
      }
    }
    if (err instanceof Error) err.message += `\n(artifacts: ${saved.join(', ')})`;
    throw err;
  }
}
