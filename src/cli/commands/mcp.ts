// `holdfast mcp`: an MCP server on stdin/stdout through which an AI agent lists, reads, waits for,
// types into, starts and kills Holdfast sessions, within the rights given on its command line.
// The server is src/mcp (dist/mcp.js): this side parses the command line and loads it.
import { loadMcpServer, WORKSPACE_KEYWORD } from '../../host/bundles';
import { expectPositionals, boolOpt, stringOpt } from '../args';
import type { Command, Context } from '../command';
import { configFilePath } from '../../host/paths';
import { SCOPED_NO_HOST, scopedEnv } from '../../link/hostFanout';
import { type HostEntry, hostName, readHosts } from '../../link/hosts';
import { parseKey } from '../../link/sessionKey';
import { usageError } from '../errors';

/** "a, b,,c" → ["a", "b", "c"]; an empty list is a mistake, not "every session". */
export function parseSessionList(raw: string): string[] {
  const entries = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length === 0) throw usageError(`--sessions needs ids, names or "${WORKSPACE_KEYWORD}"`);
  return entries;
}

/**
 * The hosts of config.json whose sessions the server spans too ("@HOST/ID"): none with --host (the server is that
 * host's) or with a scoped HOLDFAST_TOKEN (it reaches no host); a --sessions entry naming a host that is not one of
 * them is refused.
 */
function spannedHosts(ctx: Context, sessions: readonly string[]): HostEntry[] {
  const hosts = ctx.link.host || scopedEnv(ctx.env) ? [] : readHosts(ctx.env);
  for (const entry of sessions) {
    const { host, id } = parseKey(entry);
    if (host === undefined) continue;
    if (ctx.link.host) throw usageError(`--sessions ${entry}: with --host the server reaches ${ctx.link.name} alone`);
    if (scopedEnv(ctx.env)) throw usageError(`--sessions ${entry}: ${SCOPED_NO_HOST}`);
    if (!id || !hosts.some((h) => hostName(h) === host))
      throw usageError(
        `--sessions ${entry}: no host "${host}" in ${configFilePath(ctx.env)} ("@HOST/ID" or "@HOST/NAME")`,
      );
  }
  return hosts;
}

export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'serve the Model Context Protocol on stdin/stdout, for AI agents (Claude Code, Codex, VS Code)',
  usage: 'mcp [--read-only] [--sessions ID,NAME,workspace,...]',
  options: {
    'read-only': { type: 'boolean', help: 'offer only the reading tools (list, read, history, search, wait)' },
    sessions: {
      type: 'string',
      value: 'LIST',
      help:
        `only these sessions (ids or names, comma-separated; "${WORKSPACE_KEYWORD}": those whose directory ` +
        'is under the current one; "@HOST/ID" or "@HOST/NAME": a session of a host of config.json), ' +
        'plus those the agent starts',
    },
  },
  details: [
    'Tools: list_sessions, read_screen, read_history, search_history, wait; ' +
      'without --read-only also send, start_session, kill_session.',
    'The daemon enforces --sessions and --read-only: requests carry a credential of those rights, and a ' +
      'session start_session starts gets it as HOLDFAST_TOKEN, so `holdfast` run there has the same scope ' +
      '(a program that reads your token file instead runs with your full rights).',
    'Without --host the tools span the hosts of config.json too: list_sessions and search_history ask each (within ' +
      'its timeoutMs; one that fails is listed in unreachable), their sessions are "@HOST/ID", and the other tools ' +
      "take such ids. On a host the server asks the host's daemon for a credential of the scope there, as here.",
    'Only start_session starts a daemon (as `holdfast new` does). ' +
      'Example: claude mcp add holdfast -- holdfast mcp --sessions workspace',
  ],
  async run(ctx) {
    expectPositionals(ctx.args, 0, 0, '');
    const list = stringOpt(ctx.args, 'sessions');
    const sessions = list === undefined ? undefined : parseSessionList(list);
    await loadMcpServer().serve({
      socket: ctx.socket,
      env: ctx.env,
      cwd: process.cwd(),
      readOnly: boolOpt(ctx.args, 'read-only'),
      sessions,
      self: ctx.env.HOLDFAST_SESSION,
      host: ctx.link.host,
      hosts: spannedHosts(ctx, sessions ?? []),
    });
    // stdout belonged to the protocol: nothing more is printed.
    return { data: undefined };
  },
};
