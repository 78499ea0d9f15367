// Recovery: checkpoints (recovery list|inspect|restore|forget|checkpoint), the daemon's config
// (config get|set|reload), and a new run in an archived session's place (relaunch, resume).
import { inspectSaved } from '../../agents/agents';
import { readCheckpoints, recoveryDir } from '../../host/checkpointFiles';
import { type HoldfastClient, NoDaemonError } from '../../client/client';
import type { SessionInfo } from '../../protocol/messages';
import type { CheckpointSummary, InspectedSession } from '../../protocol/recovery';
import { expectPositionals } from '../args';
import type { Command, CommandResult, Context } from '../command';
import { withClient } from '../connect';
import { CliError, ExitCode, usageError } from '../errors';
import { printable } from '../../text/printable';
import { commandLine } from '../../text/shellQuote';
import { formatAge, formatState, formatTime, table, tildify } from '../output';
import { UnsafeDirectoryError } from '../../host/paths';

function verb(ctx: Context, verbs: string[]): string {
  const name = ctx.args.positionals[0];
  if (name === undefined) throw usageError(`missing subcommand (${verbs.join(', ')})`);
  if (!verbs.includes(name)) throw usageError(`unknown subcommand "${name}" (${verbs.join(', ')})`);
  return name;
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

function checkpointTable(checkpoints: CheckpointSummary[], now = Date.now()): string {
  if (checkpoints.length === 0) return '';
  const rows = checkpoints.map((c) => [
    c.id,
    `${formatTime(c.writtenAt)} (${formatAge(c.writtenAt, now)} ago)`,
    String(c.sessions),
    String(c.running),
    c.screens ? 'yes' : 'no',
    formatBytes(c.bytes),
    c.current ? 'current (this daemon)' : `daemon ${c.daemonPid}`,
  ]);
  return table(['ID', 'WRITTEN', 'SESSIONS', 'RUNNING', 'SCREENS', 'SIZE', 'FROM'], rows);
}

function inspectedTable(sessions: InspectedSession[]): string {
  const rows = sessions.map((s) => [
    printable(s.id),
    printable(s.name),
    s.running ? 'running' : formatState({ state: 'exited', exit: s.exit }),
    s.resumable ? 'resume' : 'relaunch',
    s.screenBytes ? formatBytes(s.screenBytes) : '-',
    printable(tildify(s.cwd)),
    s.argv ? commandLine(s.argv) : '',
  ]);
  return table(['ID', 'NAME', 'STATE', 'OFFER', 'SCREEN', 'CWD', 'COMMAND'], rows);
}

/** For each agent session: the exact command `resume` would run and where, or why there is none. */
function resumeLines(sessions: InspectedSession[]): string {
  return sessions
    .filter((s) => s.resumeCommand || s.resumeNote)
    .map((s) => {
      const head = `resume ${printable(s.id)} (${printable(s.name)}): `;
      return s.resumeCommand
        ? `${head}${commandLine(s.resumeCommand)}\n  in ${printable(s.cwd)}\n`
        : `${head}${printable(s.resumeNote!)}\n`;
    })
    .join('');
}

const NEW_RUN = 'a new run, not a continuation: the old process ended with its daemon';

function listResult(result: {
  checkpoints: CheckpointSummary[];
  skipped: { file: string; error: string }[];
}): CommandResult {
  const note =
    result.skipped.length > 0 ? result.skipped.map((s) => `skipped ${s.file}: ${s.error}`).join('; ') : undefined;
  return { data: result, text: checkpointTable(result.checkpoints), note };
}

function inspectResult(result: { checkpoint: CheckpointSummary; sessions: InspectedSession[] }): CommandResult {
  const c = result.checkpoint;
  const byWhom = `daemon ${c.daemonPid}${c.current ? ' (this daemon)' : ''}`;
  const head = `checkpoint ${c.id}, written ${formatTime(c.writtenAt)} by ${byWhom}, ${c.sessions} sessions\n`;
  return { data: result, text: head + inspectedTable(result.sessions) + resumeLines(result.sessions) };
}

/**
 * list and inspect work without a daemon (after a reboot): they read the files themselves, from a
 * directory checked as the daemon checks it.
 */
function withoutDaemon(ctx: Context, name: string, id: string | undefined): CommandResult {
  const dir = recoveryDir(ctx.env);
  let read: ReturnType<typeof readCheckpoints>;
  try {
    read = readCheckpoints(dir, '');
  } catch (err) {
    if (!(err instanceof UnsafeDirectoryError)) throw err;
    const fix = err.message.includes('(fix:') ? '' : ' (fix: set XDG_STATE_HOME to a directory of yours)';
    throw new CliError(ExitCode.Failed, 'unsafe', `refusing to read checkpoints: ${err.message}${fix}`);
  }
  const { checkpoints, skipped } = read;
  if (name === 'list') return listResult({ checkpoints: checkpoints.map((c) => c.summary), skipped });
  const found = checkpoints.find((c) => c.summary.id === id);
  if (!found)
    throw new CliError(ExitCode.NoSession, 'no-session', `no checkpoint "${id}" (see holdfast recovery list)`);
  return inspectResult({ checkpoint: found.summary, sessions: found.data.sessions.map(inspectSaved) });
}

export const recoveryCommand: Command = {
  name: 'recovery',
  summary: "checkpoints of the daemon's sessions: list, inspect ID, restore ID, forget ID, checkpoint",
  usage: 'recovery list | inspect ID | restore ID | forget ID | checkpoint',
  options: {},
  details: [
    'The daemon writes a checkpoint of its sessions (names, directories, sizes, exit statuses, ' +
      'metadata such as tab layout and agent session ids; screen text only with recovery.screenText, ' +
      'command lines only with recovery.argv) to $XDG_STATE_HOME/holdfast/recovery/, one file per ' +
      'daemon run, kept for the last 3 runs and at most a week.',
    "`restore` brings a checkpoint's sessions back as archived sessions: exited, with fresh ids, " +
      'showing the saved screen if there is one. Nothing runs until you `relaunch` or `resume` one.',
    '--json prints {"checkpoints", "skipped"} (list), {"checkpoint", "sessions"} (inspect), ' +
      '{"sessions"} (restore), {"forgotten"} (forget), {"checkpoint"} (checkpoint).',
  ],
  async run(ctx) {
    const name = verb(ctx, ['list', 'inspect', 'restore', 'forget', 'checkpoint']);
    const needsId = name === 'inspect' || name === 'restore' || name === 'forget';
    expectPositionals(ctx.args, needsId ? 2 : 1, needsId ? 2 : 1, needsId ? 'checkpoint ID' : '');
    const id = ctx.args.positionals[1];
    let client: HoldfastClient;
    try {
      // Restore creates sessions, so like `new` it starts an on-demand daemon when none listens.
      client = await ctx.link.connect({ start: name === 'restore' });
    } catch (err) {
      // The files are read here only for this machine's daemon: a host's are the host's.
      const here = ctx.link.host === undefined;
      if (here && err instanceof NoDaemonError && (name === 'list' || name === 'inspect'))
        return withoutDaemon(ctx, name, id);
      throw err;
    }
    return withClosed(client, async () => {
      switch (name) {
        case 'list':
          return listResult(await client.request('recovery.list', {}));
        case 'inspect':
          return inspectResult(await client.request('recovery.inspect', { id }));
        case 'restore': {
          const result = await client.request('recovery.restore', { id });
          const text = result.sessions.map((s) => `${s.id} ${printable(s.name)} (archived)`).join('\n');
          return {
            data: result,
            text,
            note:
              `${result.sessions.length} archived sessions; start one again with \`holdfast relaunch ID\` or, ` +
              'for an agent, `holdfast resume ID`',
          };
        }
        case 'forget': {
          const result = await client.request('recovery.forget', { id });
          return { data: result, text: `forgot ${result.forgotten}` };
        }
        default: {
          const result = await client.request('recovery.checkpoint', {});
          const c = result.checkpoint;
          return { data: result, text: `${c.id} ${c.file} (${formatBytes(c.bytes)}, ${c.sessions} sessions)` };
        }
      }
    });
  },
};

async function withClosed<T>(client: HoldfastClient, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } finally {
    client.close();
  }
}

/** true, false, numbers and JSON as such; anything else as a string. */
export function parseConfigValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw; // not JSON: the text itself
  }
}

function flatten(config: object, prefix = ''): [string, unknown][] {
  return Object.entries(config).flatMap(([k, v]) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? flatten(v as object, `${prefix}${k}.`)
      : [[`${prefix}${k}`, v] as [string, unknown]],
  );
}

export const configCommand: Command = {
  name: 'config',
  summary: "the daemon's config ($XDG_CONFIG_HOME/holdfast/config.json): get [KEY], set KEY VALUE, reload",
  usage: 'config get [KEY] | set KEY VALUE | reload',
  options: {},
  details: [
    'Keys: recovery.enabled (true), recovery.intervalSeconds (30), recovery.screenText (false: a ' +
      'screen can hold secrets), recovery.argv (false: so can a command line), recovery.keep (3), ' +
      'recovery.maxBytes (16 MiB, the most), search.budgetMs (2000: the time a search or a text wait check ' +
      'may take in its worker thread before it answers `limit`, 100 to 60000).',
    '`set` checks the value, writes the file and applies it; `reload` re-reads a file you edited (an ' +
      'invalid one is refused and the current config kept).',
  ],
  async run(ctx) {
    const name = verb(ctx, ['get', 'set', 'reload']);
    if (name === 'get') expectPositionals(ctx.args, 1, 2, '');
    if (name === 'set') expectPositionals(ctx.args, 3, 3, 'KEY and VALUE');
    if (name === 'reload') expectPositionals(ctx.args, 1, 1, '');
    const [, key, raw] = ctx.args.positionals;
    return withClient(ctx, async (client) => {
      if (name === 'get') {
        const result = await client.request('config.get', key === undefined ? {} : { key });
        if (key !== undefined)
          return { data: { key, value: result.value, file: result.file }, text: JSON.stringify(result.value) };
        return {
          data: result,
          text: flatten(result.config)
            .map(([k, v]) => `${k.padEnd(26)}${JSON.stringify(v)}`)
            .join('\n'),
        };
      }
      const result =
        name === 'set'
          ? await client.request('config.set', { key, value: parseConfigValue(raw) })
          : await client.request('config.reload', {});
      return {
        data: result,
        text:
          name === 'set'
            ? `${key} = ${JSON.stringify(parseConfigValue(raw))} (${result.file})`
            : `reloaded ${result.file}`,
      };
    });
  },
};

function started(session: SessionInfo, replaced: string): string {
  const name = printable(session.name);
  return `${session.id} ${name}: started in ${replaced}'s place (${NEW_RUN})\nin ${printable(session.cwd)}`;
}

export const relaunchCommand: Command = {
  name: 'relaunch',
  summary: "start a new process in an exited or archived session's place (same name, cwd, size, metadata, position)",
  usage: 'relaunch ID [-- CMD ARGS...]',
  options: {},
  details: [
    'Without a command it runs the recorded one when the checkpoint kept it (recovery.argv), else ' +
      'your login shell. The session gets a new id; the archive is replaced.',
    '--json prints {"session": SessionInfo, "replaced": OLD_ID}.',
  ],
  async run(ctx) {
    expectPositionals(ctx.args, 1, 1, 'session ID or name');
    const argv = ctx.args.rest.length > 0 ? ctx.args.rest : undefined;
    const result = await withClient(ctx, (client) =>
      client.request('relaunch', { session: ctx.args.positionals[0], argv }),
    );
    return { data: result, text: `${started(result.session, result.replaced)}\n${commandLine(result.session.argv)}` };
  },
};

export const resumeCommand: Command = {
  name: 'resume',
  summary: 'resume an archived agent session: its resume command with the recorded agent session id, in its place',
  usage: 'resume ID [-- CMD ARGS...]',
  options: {},
  details: [
    "The command is the built-in agent profile's (claude, codex, gemini; named by the session's " +
      'metadata.agent.profile) with the recorded conversation id, e.g. `claude --resume ID`; the ' +
      'command saved in the checkpoint is never run. For a custom profile give its resume command ' +
      'after `--`, "{id}" where the id goes: `holdfast resume bot -- my-agent --continue {id}`. The id ' +
      'must be letters, digits, ".", "_" and "-".',
    'Only sessions that were running when the checkpoint was written are resumed; one that had ' +
      'exited before is not (use relaunch). `holdfast recovery inspect` shows the exact command and ' +
      'directory first.',
    '--json prints {"session": SessionInfo, "replaced": OLD_ID, "argv": [...]}.',
  ],
  async run(ctx) {
    expectPositionals(ctx.args, 1, 1, 'session ID or name');
    const resumeArgv = ctx.args.rest.length > 0 ? ctx.args.rest : undefined;
    const result = await withClient(ctx, (client) =>
      client.request('resume', { session: ctx.args.positionals[0], ...(resumeArgv ? { resumeArgv } : {}) }),
    );
    return { data: result, text: `${started(result.session, result.replaced)}\n${commandLine(result.argv)}` };
  },
};
