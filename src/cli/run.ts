// Dispatch: find the command, parse its arguments, run it, print its result or its error,
// and turn the outcome into an exit code.
import { resolveSocketPath } from '../host/paths';
import { parseCommandArgs } from './args';
import type { Command, Context, Io } from './command';
import { findCommand } from './commands/index';
import { CliError, ExitCode, toCliError, usageError } from './errors';
import { commandHelp, overviewHelp } from './help';
import { safeJson } from '../text/printable';
import { writeError, writeResult } from './output';
import { linkFor } from './where';

export const processIo: Io = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

/**
 * Global options may come before the command (`holdfast --socket S list`): move them after it,
 * before its first `--`, so they never join the command line of `new -- PROGRAM ARGS`.
 */
export function hoistGlobals(argv: string[]): { name: string | undefined; args: string[] } {
  const leading: string[] = [];
  let i = 0;
  while (i < argv.length && argv[i].startsWith('-') && argv[i] !== '--') {
    const arg = argv[i];
    if (arg === '--socket' || arg === '--host') {
      leading.push(arg, argv[i + 1] ?? '');
      i += 2;
    } else {
      leading.push(arg);
      i += 1;
    }
  }
  if (i < argv.length && argv[i] === '--') i += 1;
  const args = argv.slice(i + 1);
  const end = args.indexOf('--');
  if (end < 0) return { name: argv[i], args: [...args, ...leading] };
  return { name: argv[i], args: [...args.slice(0, end), ...leading, ...args.slice(end)] };
}

/** Flags looked at before parsing, so even a usage error honours --json and --help. */
function beforeTerminator(args: string[]): string[] {
  const end = args.indexOf('--');
  return end < 0 ? args : args.slice(0, end);
}

export async function runCli(
  argv: string[],
  io: Io = processIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ExitCode> {
  let { name, args } = hoistGlobals(argv);
  const flags = beforeTerminator(args);
  const json = flags.includes('--json');
  const wantsHelp = flags.includes('--help') || flags.includes('-h');

  if (name === undefined && (flags.includes('--version') || flags.includes('-V'))) {
    name = 'version';
    args = args.filter((a) => a !== '--version' && a !== '-V');
  }
  if (name === undefined || name === 'help') {
    const topic = name === 'help' ? args.find((a) => !a.startsWith('-')) : undefined;
    const command = topic ? findCommand(topic) : undefined;
    if (topic && !command) return fail(io, json, usageError(`unknown command "${topic}" (see \`holdfast help\`)`));
    if (name === undefined && !wantsHelp) return fail(io, json, usageError('missing command (see `holdfast help`)'));
    return printHelp(io, json, command ? commandHelp(command) : overviewHelp());
  }

  const command = findCommand(name);
  if (!command) return fail(io, json, usageError(`unknown command "${name}" (see \`holdfast help\`)`));
  if (wantsHelp) return printHelp(io, json, commandHelp(command));
  return runCommand(command, args, io, env, json);
}

async function runCommand(
  command: Command,
  argv: string[],
  io: Io,
  env: NodeJS.ProcessEnv,
  json: boolean,
): Promise<ExitCode> {
  let ctx: Context;
  try {
    const args = parseCommandArgs(argv, command.options);
    const socket = resolveSocketPath(typeof args.values.socket === 'string' ? args.values.socket : undefined, env);
    ctx = { args, json, socket, link: linkFor(command, args, env), env, io };
  } catch (err) {
    return fail(io, json, withHelpHint(toCliError(err), command));
  }
  try {
    const result = await command.run(ctx);
    writeResult(io, json, result);
    return result.exitCode ?? ExitCode.Ok;
  } catch (err) {
    return fail(io, json, withHelpHint(toCliError(err), command));
  }
}

function withHelpHint(err: CliError, command: Command): CliError {
  if (err.exitCode !== ExitCode.Usage || err.code !== 'usage') return err;
  return new CliError(err.exitCode, err.code, `${err.message} (see \`holdfast ${command.name} --help\`)`);
}

function fail(io: Io, json: boolean, err: CliError): ExitCode {
  writeError(io, json, err);
  return err.exitCode;
}

function printHelp(io: Io, json: boolean, text: string): ExitCode {
  io.stdout(json ? safeJson({ help: text }) + '\n' : text);
  return ExitCode.Ok;
}
