// Test helpers for the `holdfast` CLI: run dist/cli.js against a private socket and state dir.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI_SCRIPT, isAlive, waitFor } from './daemon';

export { CLI_SCRIPT, isAlive, waitFor };

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Killed after this long (default 30 s); the run then has a code of -1. */
  timeoutMs?: number;
  cwd?: string;
}

/** Runs `node dist/cli.js ...args` with `env`; never throws on a non-zero exit. */
export function runCli(env: NodeJS.ProcessEnv, args: string[], options: CliOptions = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const { timeoutMs = 30_000, cwd } = options;
    execFile(process.execPath, [CLI_SCRIPT, ...args], { env, timeout: timeoutMs, cwd }, (err, stdout, stderr) => {
      // A number is the exit code; a string (ETIMEDOUT, a signal's kill) means it did not exit on its own.
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Like runCli, but fails the test unless the exit code is 0; returns stdout. */
export async function cliOk(env: NodeJS.ProcessEnv, args: string[], options?: CliOptions): Promise<string> {
  const result = await runCli(env, args, options);
  if (result.code !== 0) throw new Error(`holdfast ${args.join(' ')} exited ${result.code}: ${result.stderr.trim()}`);
  return result.stdout;
}

export interface CliSandbox {
  dir: string;
  socket: string;
  env: NodeJS.ProcessEnv;
  /** Runs `node dist/cli.js ...args`; never throws on a non-zero exit. */
  run(args: string[], options?: CliOptions & { env?: NodeJS.ProcessEnv }): Promise<CliRun>;
  /** Like run, but fails the test unless the exit code is 0; returns stdout. */
  ok(args: string[]): Promise<string>;
  /** Stops whatever daemon serves the sandbox's socket and waits for it to be gone. */
  cleanup(): Promise<void>;
}

export function cliSandbox(): CliSandbox {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hf-cli-'));
  fs.chmodSync(dir, 0o700);
  const socket = path.join(dir, 'holdfast.sock');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOLDFAST_SOCKET: socket,
    XDG_STATE_HOME: path.join(dir, 'state'),
    XDG_RUNTIME_DIR: path.join(dir, 'run'),
  };
  delete env.HOLDFAST_SESSION;
  const run = (args: string[], { env: own, timeoutMs, cwd }: CliOptions & { env?: NodeJS.ProcessEnv } = {}) =>
    runCli(own ?? env, args, { timeoutMs, cwd: cwd ?? dir });
  return {
    dir,
    socket,
    env,
    run,
    ok: (args) => cliOk(env, args, { cwd: dir }),
    async cleanup() {
      const version = await run(['version', '--json']);
      const pid = version.code === 0 ? (JSON.parse(version.stdout).daemon?.pid as number | undefined) : undefined;
      if (pid) {
        await run(['stop']);
        await waitFor(() => !isAlive(pid), 10_000, `daemon ${pid} to exit`);
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One line, prefixed "holdfast: ", nothing else: the CLI's error contract. */
export function isOneErrorLine(stderr: string): boolean {
  return /^holdfast: [^\n]+\n$/.test(stderr);
}
