// Running one command in a shell session and getting its result: the shell's integration reports
// where the command ends and its exit code (src/daemon/sessions/sessionShell.ts).
import { Capability } from '../../protocol/messages';
import type { RunResult } from '../../protocol/shell';
import { hasControl } from '../../text/printable';
import { expectPositionals, intOpt } from '../args';
import type { Command } from '../command';
import { withClient } from '../connect';
import { CliError, ExitCode, usageError } from '../errors';

export const runCommand: Command = {
  name: 'run',
  summary: "type a command at a shell session's prompt; print its output, exit with its exit code",
  usage: 'run ID [--timeout-ms N] -- CMD ARGS...',
  options: {
    'timeout-ms': {
      type: 'string',
      value: 'N',
      help: 'give up after N ms with exit code 124 (the command goes on; default: wait forever)',
    },
  },
  details: [
    'The words after `--` are joined by one space into one command line, which the shell runs as if typed ' +
      '(as ssh does): `holdfast run dev -- make test`, `holdfast run dev -- "cd src && ls"`.',
    "The session's shell must have shell integration (Holdfast starts bash, zsh, fish and pwsh with VS Code's " +
      'scripts), wait at its prompt with nothing typed there, and run no program in the foreground; else ' +
      'nothing is typed and run exits 1 saying why.',
    "Prints the text the command printed as the session's screen and scrollback hold it (colours dropped, the " +
      'start cut when it scrolled out of the scrollback, with a note) and exits with its exit code. A command ' +
      "that ends the shell exits with the session's exit code; one the shell reports no code for, 1.",
    '--json prints {"exitCode": N|null, "output": "...", "truncated": bool, "session": SessionInfo, ...}.',
  ],
  async run(ctx) {
    const { args } = ctx;
    expectPositionals(args, 1, Infinity, 'session ID or name, then -- and the command');
    const [session, ...words] = args.positionals;
    const command = [...words, ...args.rest].join(' ');
    if (command.trim() === '') throw usageError('run needs a command: holdfast run ID -- CMD ARGS...');
    if (hasControl(command)) throw usageError('run types one line: the command must not hold newlines or control keys');
    const timeoutMs = intOpt(args, 'timeout-ms', 0);
    const result = await withClient(ctx, async (client) => {
      if (!client.supports(Capability.Shell))
        throw new CliError(
          ExitCode.Failed,
          'unsupported',
          'this daemon is too old for `run`: restart it (holdfast upgrade)',
        );
      return client.request('run', { session, command, timeoutMs });
    });
    return { data: result, text: result.output, exactText: true, ...ending(result, timeoutMs) };
  },
};

/** The exit code run ends with, and a note when it is not the command's own. */
function ending(result: RunResult, timeoutMs: number | undefined): { exitCode: number; note?: string } {
  const cut = result.truncated ? 'the start of its output scrolled out of the session: what is left is printed; ' : '';
  if (result.timedOut)
    return { exitCode: ExitCode.TimedOut, note: `${cut}timed out after ${timeoutMs} ms; the command goes on` };
  if (result.shellExited) return { exitCode: result.exitCode ?? ExitCode.Failed, note: `${cut}the shell exited` };
  if (result.exitCode === null) return { exitCode: ExitCode.Failed, note: `${cut}the shell reported no exit code` };
  return { exitCode: result.exitCode, ...(cut ? { note: cut.replace(/; $/, '') } : {}) };
}
