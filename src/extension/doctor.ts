// "Holdfast: Show Daemon Status": checks that explain what works and what does not, each with a
// fix when there is one. Pure Node (no vscode import), unit-tested.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { HoldfastClient } from '../client/client';
import { Capability, type DaemonStatus } from '../protocol/messages';
import { checkEndpoint } from '../host/endpointTrust';
import { currentTarget, missingPtyBinary, ptyBinaryDirFor } from '../host/nodePtyBinary';
import { defaultLogPath } from '../host/paths';

export type CheckLevel = 'ok' | 'warn' | 'fail' | 'info';

export interface Check {
  level: CheckLevel;
  name: string;
  detail: string;
  fix?: string;
}

/** What only the activation knows about this window's install, for the report. */
export type StatusFacts = Pick<
  DoctorInput,
  'extensionVersion' | 'installDir' | 'installError' | 'cliLauncher' | 'windowCliHook' | 'remoteCli' | 'systemdScope'
>;

export interface DoctorInput {
  socket: string;
  client: HoldfastClient | undefined;
  /** Why there is no client, if there is none. */
  connectionError?: string;
  extensionVersion: string;
  installDir?: string;
  installError?: string;
  cliLauncher?: string;
  windowCliHook?: string;
  remoteCli?: string;
  systemdScope: boolean;
  workspace: string;
  tabsHere: number;
}

export async function runChecks(input: DoctorInput): Promise<Check[]> {
  const checks: Check[] = [];
  checks.push({
    level: 'info',
    name: 'extension',
    detail:
      `Holdfast ${input.extensionVersion}, workspace ${input.workspace}, ` +
      `${input.tabsHere} Holdfast tab(s) in this window`,
  });
  checks.push(...endpointChecks(input.socket));
  const status = await daemonChecks(input, checks);
  const logFile = status?.logFile ?? defaultLogPath();
  checks.push(
    fs.existsSync(logFile)
      ? { level: 'ok', name: 'daemon log', detail: logFile }
      : { level: 'info', name: 'daemon log', detail: `${logFile} (not written yet)` },
  );
  checks.push(...installChecks(input), ...cliChecks(input));
  return checks;
}

/** The daemon's own state, through the connection; pushed onto `checks`. Returns its status when it answered. */
async function daemonChecks(input: DoctorInput, checks: Check[]): Promise<DaemonStatus | undefined> {
  if (!input.client || input.client.isClosed) {
    checks.push({
      level: 'fail',
      name: 'daemon',
      detail: input.connectionError ?? `no daemon listens on ${input.socket}`,
      fix: 'open a Holdfast terminal (it starts the daemon), then look at "Holdfast: Open Log"',
    });
    return undefined;
  }
  let status: DaemonStatus;
  try {
    status = await input.client.request('status', {});
  } catch (err) {
    checks.push({ level: 'fail', name: 'daemon', detail: `connected, but status failed: ${(err as Error).message}` });
    return undefined;
  }
  const hello = input.client.hello;
  const up = Math.round((Date.now() - status.startedAt) / 1000);
  checks.push({
    level: 'ok',
    name: 'daemon',
    detail:
      `pid ${status.pid}, version ${status.version}, protocol ${status.protocol}, ${status.startMode}, ` +
      `up ${up}s, ${status.sessions} session(s), ${status.clients} client(s)`,
  });
  checks.push({
    level: 'info',
    name: 'daemon runtime',
    detail: `${status.execPath} (Node ${status.nodeVersion}); capabilities: ${hello.capabilities.join(', ') || 'none'}`,
  });
  if (input.client.supports(Capability.Recovery)) checks.push(await checkpointCheck(input.client));
  if (status.version !== input.extensionVersion) {
    checks.push({
      level: 'info',
      name: 'daemon version',
      detail:
        `the running daemon is ${status.version}, this extension is ${input.extensionVersion}: sessions keep ` +
        'running; "Holdfast: Restart Daemon" switches (it ends every session)',
    });
  }
  return status;
}

/** The daemon's copy of its files, and how it is started. */
function installChecks(input: DoctorInput): Check[] {
  const checks: Check[] = [];
  if (input.installError)
    checks.push({
      level: 'fail',
      name: 'daemon copy',
      detail: input.installError,
      fix: `reinstall the extension (its .vsix for ${currentTarget()}); the copy needs dist/daemon.js and node-pty`,
    });
  else if (input.installDir) checks.push(installCheck(input.installDir));
  checks.push({
    level: 'info',
    name: 'start in systemd scope',
    detail: input.systemdScope
      ? 'yes (systemd-run --user --scope works)'
      : 'no (systemd-run --user --scope is not available; the daemon starts as a plain detached process)',
  });
  return checks;
}

/** `holdfast` in VS Code terminals and `code` in Holdfast sessions. */
function cliChecks(input: DoctorInput): Check[] {
  const checks: Check[] = [];
  if (input.cliLauncher) {
    const executable = isExecutable(input.cliLauncher);
    checks.push({
      level: executable ? 'ok' : 'fail',
      name: 'holdfast CLI',
      detail:
        input.cliLauncher + (executable ? ' (on PATH in new VS Code terminals)' : ' is missing or not executable'),
    });
  }
  if (input.windowCliHook) {
    checks.push({
      level: 'ok',
      name: '`code` in sessions',
      detail: `window hook ${input.windowCliHook}; editor CLI ${input.remoteCli ?? 'from PATH'}`,
    });
  } else {
    checks.push({
      level: 'warn',
      name: '`code` in sessions',
      detail:
        'this editor gives extensions no CLI hook (VSCODE_IPC_HOOK_CLI): ' +
        '`code FILE` in a Holdfast terminal opens where the editor decides',
    });
  }
  return checks;
}

/** What a reboot would leave: the daemon's checkpoints, and any it cannot read. */
async function checkpointCheck(client: HoldfastClient): Promise<Check> {
  try {
    const [{ checkpoints, skipped }, { config }] = await Promise.all([
      client.request('recovery.list', {}),
      client.request('config.get', {}),
    ]);
    const recovery = config.recovery;
    if (skipped.length > 0) {
      return {
        level: 'warn',
        name: 'checkpoints',
        detail: `${skipped.length} unreadable: ${skipped.map((s) => `${s.file} (${s.error})`).join('; ')}`,
        fix: 'they are skipped; delete them, or `holdfast recovery forget ID`',
      };
    }
    const own = checkpoints.find((c) => c.current);
    const earlier = checkpoints.filter((c) => !c.current).length;
    const what =
      `${recovery.enabled ? 'on' : 'OFF'}, screens ${recovery.screenText ? 'saved' : 'not saved'}, ` +
      `every ${recovery.intervalSeconds}s while screens change`;
    const ownText = own
      ? `this daemon's written ${Math.round((Date.now() - own.writtenAt) / 1000)}s ago (${own.sessions} session(s))`
      : 'none written by this daemon yet';
    const detail = `${what}; ${ownText}; ${earlier} from earlier daemons (\`holdfast recovery list\`)`;
    return recovery.enabled
      ? { level: 'ok', name: 'checkpoints', detail }
      : {
          level: 'warn',
          name: 'checkpoints',
          detail,
          fix: 'a reboot would lose layout and agent ids: `holdfast config set recovery.enabled true`',
        };
  } catch (err) {
    return { level: 'warn', name: 'checkpoints', detail: `cannot list them: ${(err as Error).message}` };
  }
}

/** The endpoint rules of src/host/endpointTrust.ts, the ones the connection itself applies. */
function endpointChecks(socket: string): Check[] {
  return checkEndpoint(socket).map((c) => ({
    level: c.state === 'ok' ? 'ok' : c.state === 'missing' ? 'info' : 'fail',
    name: c.name,
    detail: c.detail,
    fix: c.state === 'unsafe' ? c.fix : undefined,
  }));
}

function installCheck(dir: string): Check {
  const needed = [path.join('dist', 'daemon.js'), path.join('node_modules', 'node-pty', 'package.json')];
  const missing = needed.filter((f) => !fs.existsSync(path.join(dir, f)));
  if (missing.length > 0)
    return {
      level: 'fail',
      name: 'daemon copy',
      detail: `${dir} lacks ${missing.join(', ')}`,
      fix: `delete ${dir} and reload the window`,
    };
  const ptyDir = path.join(dir, 'node_modules', 'node-pty');
  if (!ptyBinaryDirFor(ptyDir))
    return {
      level: 'fail',
      name: 'daemon copy',
      detail: missingPtyBinary(ptyDir),
      fix: `install the Holdfast .vsix built for ${currentTarget()}`,
    };
  return { level: 'ok', name: 'daemon copy', detail: dir };
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function formatChecks(checks: Check[]): string[] {
  const mark: Record<CheckLevel, string> = { ok: '✓', warn: '!', fail: '✗', info: '·' };
  return checks.map((c) => `${mark[c.level]} ${c.name}: ${c.detail}${c.fix ? `\n    fix: ${c.fix}` : ''}`);
}
