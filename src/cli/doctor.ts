// `holdfast doctor`: read-only checks of everything a daemon needs, each failure with its fix.
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type * as NodePty from 'node-pty';
import { readCheckpoints, recoveryDir } from '../host/checkpointFiles';
import { HoldfastClient, NoDaemonError, RequestError } from '../client/client';
import { type DaemonStatus, ErrorCode, PROTOCOL_VERSION } from '../protocol/messages';
import {
  checkSocket as trustCheckSocket,
  checkSocketDir as trustCheckSocketDir,
  readTokenFile,
  type TrustCheck,
} from '../host/endpointTrust';
import { currentTarget, missingPtyBinary, ptyBinaryDirFor } from '../host/nodePtyBinary';
import { defaultLogPath } from '../host/paths';
import { VERSION } from '../protocol/version';
import { expectPositionals } from './args';
import type { Command } from './command';
import { connectOptions } from '../client/clientOptions';
import { ExitCode } from './errors';

export interface Check {
  name: string;
  ok: boolean;
  /** What was found. */
  detail: string;
  /** How to fix it; present on every failed check. */
  fix?: string;
  /** Worth knowing, but not a failure (e.g. CLI and daemon versions differ). */
  warning?: string;
}

function uid(): number {
  return typeof process.getuid === 'function' ? process.getuid() : 0;
}

function mode(st: fs.Stats): string {
  return (st.mode & 0o777).toString(8).padStart(3, '0');
}

/** A check of src/host/endpointTrust.ts, the rules the clients and the daemon apply themselves. */
function fromTrust(check: TrustCheck): Check {
  return check.state === 'ok'
    ? { name: check.name, ok: true, detail: check.detail }
    : { name: check.name, ok: false, detail: check.detail, fix: check.fix };
}

export function checkSocketDir(socketPath: string, env: NodeJS.ProcessEnv): Check {
  return fromTrust(trustCheckSocketDir(socketPath, env));
}

export function checkTokenFile(socketPath: string): Check {
  const { token: _token, ...check } = readTokenFile(socketPath);
  return fromTrust(check);
}

export function checkSocket(socketPath: string): Check {
  return fromTrust(trustCheckSocket(socketPath));
}

export async function checkDaemon(socketPath: string): Promise<{ check: Check; status?: DaemonStatus }> {
  const name = 'daemon';
  let client: HoldfastClient;
  try {
    client = await HoldfastClient.connect({ ...connectOptions(socketPath, process.env), timeoutMs: 3000 });
  } catch (err) {
    if (err instanceof NoDaemonError) {
      return {
        check: {
          name,
          ok: false,
          detail: `no daemon is listening on ${socketPath}`,
          fix: 'start one: `holdfast new` (on demand) or `holdfast serve` (persistent)',
        },
      };
    }
    return {
      check: {
        name,
        ok: false,
        detail: (err as Error).message,
        fix: 'see the daemon log; if it hangs, kill its pid and start it again',
      },
    };
  }
  try {
    const { hello } = client;
    let status: DaemonStatus | undefined;
    try {
      status = await client.request('status', {});
    } catch (err) {
      // Only a daemon without the method (older) is fine: the hello still says enough. Anything else is its failure.
      if (!(err instanceof RequestError && err.code === ErrorCode.Unsupported))
        return {
          check: {
            name,
            ok: false,
            detail: `pid ${hello.pid} answered the hello, but status failed: ${(err as Error).message}`,
            fix: 'see the daemon log; if it hangs, kill its pid and start it again',
          },
        };
    }
    const detail =
      `pid ${hello.pid}, version ${hello.version}, protocol ${hello.protocol}, ${hello.startMode}` +
      (status ? `, ${status.sessions} sessions, ${status.clients} clients, node ${status.nodeVersion}` : '');
    const warnings: string[] = [];
    if (hello.version !== VERSION)
      warnings.push(
        `the daemon runs version ${hello.version}, this CLI is ${VERSION}; \`holdfast stop\` and start ` +
          'it again to update',
      );
    if (hello.protocol !== PROTOCOL_VERSION)
      warnings.push(`protocol ${hello.protocol} differs from this CLI's ${PROTOCOL_VERSION}`);
    return { check: { name, ok: true, detail, warning: warnings.join('; ') || undefined }, status };
  } finally {
    client.close();
  }
}

/** Why node-pty has no binary for this platform, if it has none; undefined when it has one or is not found. */
function missingBinary(requireFromDist: NodeJS.Require): string | undefined {
  let ptyDir: string;
  try {
    ptyDir = path.dirname(requireFromDist.resolve('node-pty/package.json'));
  } catch {
    return undefined; // no node-pty at all: loading it says so
  }
  return ptyBinaryDirFor(ptyDir) ? undefined : missingPtyBinary(ptyDir);
}

/** node-pty as the bundled daemon loads it (resolved from dist/), and one real PTY. */
export async function checkNodePty(fromDir: string): Promise<Check> {
  const name = 'node-pty';
  const requireFromDist = createRequire(path.join(fromDir, 'daemon.js'));
  const missing = missingBinary(requireFromDist);
  if (missing)
    return {
      name,
      ok: false,
      detail: missing,
      fix: `install the Holdfast .vsix built for ${currentTarget()}, or build node-pty here: \`npm rebuild node-pty\``,
    };
  let pty: typeof NodePty;
  try {
    pty = requireFromDist('node-pty') as typeof NodePty;
  } catch (err) {
    return {
      name,
      ok: false,
      detail: `cannot load node-pty from ${fromDir}: ${(err as Error).message.split('\n')[0]}`,
      fix: 'rebuild it: `npm rebuild node-pty` in the Holdfast folder (needs python3, make, g++)',
    };
  }
  return new Promise<Check>((resolve) => {
    let term: NodePty.IPty;
    const timer = setTimeout(() => {
      term?.kill();
      resolve({
        name,
        ok: false,
        detail: 'a test PTY did not exit within 3 s',
        fix: 'check that /dev/ptmx and /dev/pts are usable',
      });
    }, 3000);
    try {
      term = pty.spawn('/bin/sh', ['-c', 'exit 0'], {
        cols: 80,
        rows: 24,
        cwd: '/',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      });
    } catch (err) {
      clearTimeout(timer);
      resolve({
        name,
        ok: false,
        detail: `cannot open a PTY: ${(err as Error).message}`,
        fix: 'check that /dev/ptmx and /dev/pts are usable',
      });
      return;
    }
    term.onExit(() => {
      clearTimeout(timer);
      resolve({ name, ok: true, detail: 'loads and opens a PTY' });
    });
  });
}

/** The log directory exists and is writable, or its nearest existing parent lets the daemon create it. */
export function checkLogDir(logFile: string): Check {
  const name = 'log directory';
  const dir = path.dirname(logFile);
  let probe = dir;
  while (!fs.existsSync(probe) && path.dirname(probe) !== probe) probe = path.dirname(probe);
  try {
    fs.accessSync(probe, fs.constants.W_OK | fs.constants.X_OK);
  } catch {
    return {
      name,
      ok: false,
      detail: `${probe} is not writable`,
      fix: `make ${dir} writable by you, or set XDG_STATE_HOME to a writable directory`,
    };
  }
  return { name, ok: true, detail: probe === dir ? `${dir} is writable` : `${dir} will be created (under ${probe})` };
}

/** Checkpoints a reboot would leave: a private directory, every file readable (a bad one is skipped, never fatal). */
export function checkCheckpoints(env: NodeJS.ProcessEnv): Check {
  const name = 'checkpoints';
  const dir = recoveryDir(env);
  let st: fs.Stats;
  try {
    st = fs.lstatSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      return { name, ok: true, detail: `${dir} (none written yet)` };
    return {
      name,
      ok: false,
      detail: `cannot read ${dir}: ${(err as Error).message}`,
      fix: `make ${dir} yours, mode 700`,
    };
  }
  if (!st.isDirectory() || st.uid !== uid() || (st.mode & 0o077) !== 0) {
    const found = st.isDirectory() ? `mode ${mode(st)}, uid ${st.uid}` : 'not a directory';
    return {
      name,
      ok: false,
      detail: `${dir} must be a directory of yours with mode 700 (it is ${found})`,
      fix: `chmod 700 ${dir}, or move it away`,
    };
  }
  let read: ReturnType<typeof readCheckpoints>;
  try {
    read = readCheckpoints(dir, '');
  } catch (err) {
    return { name, ok: false, detail: `cannot list ${dir}: ${(err as Error).message}`, fix: `chmod 700 ${dir}` };
  }
  const { checkpoints, skipped } = read;
  const newest = checkpoints[0]?.summary;
  const newestNote = newest
    ? `, newest written ${new Date(newest.writtenAt).toISOString()} with ${newest.sessions} session(s)`
    : '';
  const detail = `${dir}: ${checkpoints.length} readable${newestNote}`;
  if (skipped.length > 0) {
    const unreadable = skipped.map((f) => `${path.basename(f.file)} (${f.error})`).join('; ');
    return { name, ok: true, detail, warning: `${skipped.length} unreadable and skipped: ${unreadable}; delete them` };
  }
  return { name, ok: true, detail };
}

export async function runChecks(socketPath: string, env: NodeJS.ProcessEnv, distDir: string): Promise<Check[]> {
  const daemon = await checkDaemon(socketPath);
  return [
    checkSocketDir(socketPath, env),
    checkSocket(socketPath),
    checkTokenFile(socketPath),
    daemon.check,
    await checkNodePty(distDir),
    checkLogDir(daemon.status?.logFile ?? defaultLogPath(env)),
    checkCheckpoints(env),
  ];
}

export const doctorCommand: Command = {
  name: 'doctor',
  summary:
    'check the socket directory, token, daemon, node-pty, log directory and checkpoints; exit 1 if any check fails',
  usage: 'doctor',
  options: {},
  here: "checks this machine's files and daemon",
  details: [
    'Never starts a daemon; "no daemon listening" is a failed check (exit 1), not exit 6. --json ' +
      'prints {"ok": bool, "checks": [{name, ok, detail, fix?, warning?}]}.',
  ],
  async run(ctx) {
    expectPositionals(ctx.args, 0, 0, '');
    const checks = await runChecks(ctx.socket, ctx.env, __dirname);
    const ok = checks.every((c) => c.ok);
    const text = checks
      .map((c) => {
        const lines = [`${c.ok ? 'ok  ' : 'FAIL'}  ${c.name}: ${c.detail}`];
        if (c.fix) lines.push(`      fix: ${c.fix}`);
        if (c.warning) lines.push(`      warning: ${c.warning}`);
        return lines.join('\n');
      })
      .join('\n');
    return { data: { ok, socket: ctx.socket, checks }, text, exitCode: ok ? ExitCode.Ok : ExitCode.Failed };
  },
};
