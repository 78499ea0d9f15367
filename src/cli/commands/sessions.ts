// Session lifecycle: new, list, show, resize, kill, rm.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseSignal } from '../../host/signals';
import type { CreateParams } from '../../protocol/messages';
import { createWorktree, removeWorktree, WorktreeError, type WorktreeInfo } from '../../agents/worktree';
import { expectPositionals, intOpt, listOpt, parseEnvPairs, stringOpt, boolOpt } from '../args';
import type { Command } from '../command';
import { withClient } from '../connect';
import { CliError, ExitCode, usageError } from '../errors';
import { formatState, sessionDetails, sessionTable } from '../output';
import { listAllHosts } from '../allHosts';

const MAX_DIMENSION = 10000;

export const newCommand: Command = {
  name: 'new',
  summary: 'start a session (and an on-demand daemon if none is listening); prints its id',
  usage:
    'new [--name N] [--cwd DIR] [--worktree BRANCH [--worktree-folder DIR]] [--cols C] [--rows R] [--env K=V]... ' +
    '[--scrollback N] [-- CMD ARGS...]',
  options: {
    name: { type: 'string', value: 'N', help: 'a name to refer to the session by' },
    cwd: { type: 'string', value: 'DIR', help: 'working directory (default: the current one)' },
    worktree: {
      type: 'string',
      value: 'BRANCH',
      help: 'run in a new git worktree on a new branch, made from the repository of --cwd',
    },
    'worktree-folder': {
      type: 'string',
      value: 'DIR',
      help: "where --worktree's folders go (default: <repo parent>/<repo>.worktrees)",
    },
    cols: { type: 'string', value: 'C', help: 'columns (default 80)' },
    rows: { type: 'string', value: 'R', help: 'rows (default 24)' },
    env: { type: 'string', multiple: true, value: 'K=V', help: 'set a variable in the session (repeatable)' },
    scrollback: { type: 'string', value: 'N', help: 'scrollback lines kept (default 10000)' },
    'shell-integration': {
      type: 'string',
      value: 'DIR|off',
      help: "VS Code's shell integration scripts for bash, zsh, fish, pwsh (default: the daemon's; off: none)",
    },
  },
  details: [
    'Without a command the session runs your login shell. Put the command after `--` when it has ' +
      'options of its own: `holdfast new --name build -- make -j8`.',
    "The session's environment is the daemon's plus --env (TERM=xterm-256color, HOLDFAST_SOCKET and " +
      "HOLDFAST_SESSION are set), not this shell's.",
    'With --worktree the session runs in `git worktree add -b BRANCH <repo parent>/<repo>.worktrees/<branch>` ' +
      '(slashes in BRANCH become -; --worktree-folder DIR puts it in DIR instead), recorded in its metadata ' +
      'as `worktree`; if the session cannot start, the worktree and branch are removed again.',
    "A bash, zsh, fish or pwsh starts with VS Code's shell integration (what `holdfast run` needs) when the " +
      'daemon knows where VS Code keeps its scripts (a VS Code window with Holdfast told it) or --shell-integration ' +
      'names the folder (`code --locate-shell-integration-path bash` prints a script in it).',
    'This is the only command that starts a daemon. A daemon it starts exits when its last session is removed.',
  ],
  async run(ctx) {
    const { args } = ctx;
    const argv = [...args.positionals, ...args.rest];
    const remote = ctx.link.host !== undefined;
    const params: CreateParams = {
      name: stringOpt(args, 'name'),
      cwd: remote ? hostCwd(stringOpt(args, 'cwd')) : path.resolve(stringOpt(args, 'cwd') ?? process.cwd()),
      cols: intOpt(args, 'cols', 1, MAX_DIMENSION),
      rows: intOpt(args, 'rows', 1, MAX_DIMENSION),
      scrollback: intOpt(args, 'scrollback', 0),
      argv: argv.length > 0 ? argv : undefined,
      ...shellIntegrationOpt(stringOpt(args, 'shell-integration')),
    };
    // Checked here too, so a typo does not start a daemon only to be refused by it (a host's directories are its own).
    if (!remote && !fs.statSync(params.cwd!, { throwIfNoEntry: false })?.isDirectory())
      throw usageError(`no such directory: ${params.cwd}`);
    const env = parseEnvPairs(listOpt(args, 'env'));
    if (Object.keys(env).length > 0) params.env = env;
    const branch = stringOpt(args, 'worktree');
    const folder = stringOpt(args, 'worktree-folder');
    if (folder !== undefined && branch === undefined) throw usageError('--worktree-folder needs --worktree BRANCH');
    if (branch !== undefined && remote)
      throw usageError(
        `--worktree runs git on this machine; on ${ctx.link.name}: ` +
          `ssh ${ctx.link.host!.target} holdfast new --worktree`,
      );
    const worktree = branch === undefined ? undefined : await newWorktree(params, branch, folder);
    try {
      const client = await ctx.link.connect({ start: true });
      try {
        const { session } = await client.request('create', params);
        return { data: session, text: session.id };
      } finally {
        client.close();
      }
    } catch (err) {
      // Nothing half made: a worktree without its session goes again (it has no work in it yet).
      if (worktree)
        await removeWorktree(worktree, { force: true }).catch((cleanup: Error) => {
          throw new Error(`${(err as Error).message} (and the worktree ${worktree.path} stays: ${cleanup.message})`);
        });
      throw err;
    }
  },
};

/** A host's directory as given (its own home when none): only an absolute path means the same there. */
function hostCwd(cwd: string | undefined): string | undefined {
  if (cwd !== undefined && !path.isAbsolute(cwd))
    throw usageError(`--cwd on a host must be an absolute path there, not "${cwd}"`);
  return cwd;
}

/** Makes the worktree and points the session there (cwd, metadata.worktree, name). */
async function newWorktree(params: CreateParams, branch: string, folder?: string): Promise<WorktreeInfo> {
  let worktree: WorktreeInfo;
  try {
    // Relative to where the command runs, as any CLI path is (the setting is relative to the repo's parent).
    worktree = await createWorktree(params.cwd!, branch, folder === undefined ? undefined : path.resolve(folder));
  } catch (err) {
    if (err instanceof WorktreeError) throw new CliError(ExitCode.Failed, 'worktree', err.message);
    throw err;
  }
  params.cwd = worktree.path;
  params.metadata = { worktree };
  params.name ??= branch;
  return worktree;
}

export const listCommand: Command = {
  name: 'list',
  summary: 'list sessions',
  usage: 'list [--all-hosts]',
  options: {
    'all-hosts': { type: 'boolean', help: 'this machine and every host of config.json, with a HOST column' },
  },
  details: [
    '--json prints {"sessions": [SessionInfo...]}; with --all-hosts {"hosts": [{host, sessions, error?}]}.',
    'With --all-hosts a host that fails (ssh, no answer in its timeout) is listed with its error, and the exit is 1.',
  ],
  async run(ctx) {
    expectPositionals(ctx.args, 0, 0, '');
    if (boolOpt(ctx.args, 'all-hosts')) {
      if (stringOpt(ctx.args, 'host') !== undefined) throw usageError('--all-hosts lists every host: leave out --host');
      return listAllHosts(ctx);
    }
    const { sessions } = await withClient(ctx, (client) => client.request('list', {}));
    return { data: { sessions }, text: sessionTable(sessions) };
  },
};

export const showCommand: Command = {
  name: 'show',
  summary: 'show one session: id, name, pid, state, exit, cwd, size, title, clients, created',
  usage: 'show ID',
  options: {},
  details: ['--json prints the SessionInfo object.'],
  async run(ctx) {
    expectPositionals(ctx.args, 1, 1, 'session ID or name');
    const { session } = await withClient(ctx, (client) => client.request('show', { session: ctx.args.positionals[0] }));
    return { data: session, text: sessionDetails(session) };
  },
};

export const resizeCommand: Command = {
  name: 'resize',
  summary: "set a session's size",
  usage: 'resize ID --cols C --rows R',
  options: {
    cols: { type: 'string', value: 'C', help: 'columns' },
    rows: { type: 'string', value: 'R', help: 'rows' },
  },
  async run(ctx) {
    expectPositionals(ctx.args, 1, 1, 'session ID or name');
    const cols = intOpt(ctx.args, 'cols', 1, MAX_DIMENSION);
    const rows = intOpt(ctx.args, 'rows', 1, MAX_DIMENSION);
    if (cols === undefined || rows === undefined) throw usageError('resize needs both --cols and --rows');
    const { session } = await withClient(ctx, (client) =>
      client.request('resize', { session: ctx.args.positionals[0], cols, rows }),
    );
    return { data: session };
  },
};

export const killCommand: Command = {
  name: 'kill',
  summary: "signal a session's process group (SIGHUP, then SIGKILL after the grace period); answers once it is reaped",
  usage: 'kill ID [--signal S] [--grace-ms N] [--remove]',
  options: {
    signal: { type: 'string', value: 'S', help: 'signal name or number (default SIGHUP)' },
    'grace-ms': { type: 'string', value: 'N', help: 'milliseconds before SIGKILL (default 2000)' },
    remove: { type: 'boolean', help: 'remove the session afterwards' },
  },
  details: ["Prints the session's final state; --json prints its SessionInfo."],
  async run(ctx) {
    expectPositionals(ctx.args, 1, 1, 'session ID or name');
    const raw = stringOpt(ctx.args, 'signal');
    const signal = raw === undefined ? undefined : parseSignal(raw);
    const graceMs = intOpt(ctx.args, 'grace-ms', 0);
    const remove = boolOpt(ctx.args, 'remove') || undefined;
    const { session } = await withClient(ctx, (client) =>
      client.request('kill', { session: ctx.args.positionals[0], signal, graceMs, remove }),
    );
    return { data: session, text: `${session.id} ${formatState(session)}${remove ? ', removed' : ''}` };
  },
};

export const rmCommand: Command = {
  name: 'rm',
  summary: 'remove a session (killing it first if it still runs)',
  usage: 'rm ID',
  options: {},
  details: ['An on-demand daemon exits once its last session is removed.'],
  async run(ctx) {
    expectPositionals(ctx.args, 1, 1, 'session ID or name');
    const id = await withClient(ctx, async (client) => {
      // Resolve a name to its id first, so the output names what was removed.
      const { session } = await client.request('show', { session: ctx.args.positionals[0] });
      await client.request('remove', { session: session.id });
      return session.id;
    });
    return { data: { removed: id } };
  },
};

/** --shell-integration DIR|off as create's parameter (nothing for off). */
export function shellIntegrationOpt(value: string | undefined): Pick<CreateParams, 'shellIntegration'> {
  if (value === 'off') return {};
  if (value === undefined) return { shellIntegration: {} };
  return { shellIntegration: { scripts: path.resolve(value) } };
}
