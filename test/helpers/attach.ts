// Test helpers for `holdfast attach`: the CLI runs inside a node-pty terminal the test types into.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as pty from 'node-pty';
import type { SessionInfo } from '../../src/protocol/messages';
import { CLI_SCRIPT, type CliSandbox, waitFor } from './cli';

/** Generous: under a loaded CI machine each step (a node start, a fork) can take seconds. */
export const STEP_TIMEOUT_MS = 30_000;

/** A terminal running `holdfast attach ...`, then printing its exit code and `stty -a`. */
export class AttachTerminal {
  readonly term: pty.IPty;
  output = '';

  constructor(
    private readonly box: CliSandbox,
    args: string[],
    cols = 100,
    rows = 30,
  ) {
    // It waits for a line after "[end]": a program that exits right after its last write can lose that
    // output to node-pty (here, the test's reader), as an attach once did under load ("[end]" never came).
    const script = `node "$0" attach "$@"; echo "[rc=$?]"; stty -a; echo "[end]"; read done`;
    this.term = pty.spawn('/bin/sh', ['-c', script, CLI_SCRIPT, ...args], {
      cols,
      rows,
      cwd: box.dir,
      env: { ...box.env, TERM: 'xterm-256color' },
    });
    this.term.onData((data) => (this.output += data));
  }

  async expect(pattern: RegExp | string, what: string, from = 0): Promise<void> {
    const found = () =>
      typeof pattern === 'string' ? this.output.includes(pattern, from) : pattern.test(this.output.slice(from));
    await waitFor(found, STEP_TIMEOUT_MS, `${what}; the terminal showed: ${JSON.stringify(this.output.slice(-600))}`);
  }

  /** Waits for the attach to end and returns its exit code and what came after. */
  async finished(): Promise<{ rc: number; after: string }> {
    try {
      await this.expect('[end]', 'attach to end');
      this.term.write('\n');
    } catch (err) {
      const sessions = await this.box.run(['list', '--json']);
      let log = '';
      try {
        log = fs
          .readFileSync(`${this.box.env.XDG_STATE_HOME}/holdfast/daemon.log`, 'utf8')
          .split('\n')
          .slice(-15)
          .join('\n');
      } catch {
        // no log yet: the daemon has not written its first line
      }
      throw new Error(`${(err as Error).message}\nsessions: ${sessions.stdout}\ndaemon log:\n${log}`, { cause: err });
    }
    const rc = Number(/\[rc=(\d+)\]/.exec(this.output)![1]);
    return { rc, after: this.output.slice(this.output.lastIndexOf('[rc=')) };
  }
}

export async function showSession(box: CliSandbox, ref: string): Promise<SessionInfo> {
  return JSON.parse(await box.ok(['show', ref, '--json']));
}

/** `stty -a` output of a terminal back in its normal (cooked, echoing) mode. */
export function assertCookedTerminal(sttyOutput: string): void {
  assert.match(sttyOutput, /(^|[\s;])icanon\b/, 'canonical mode is back');
  assert.match(sttyOutput, /(^|[\s;])echo\b/, 'echo is back');
  assert.doesNotMatch(sttyOutput, /-icanon|(^|\s)-echo\b/);
}
