// `holdfast mcp`: an MCP server on stdin/stdout through which an AI agent lists, reads, waits for,
// types into, starts and kills Holdfast sessions, within the rights given on its command line.
// The server is src/mcp (dist/mcp.js): this side parses the command line and loads it.
import { loadMcpServer, WORKSPACE_KEYWORD } from '../../host/bundles';
import { expectPositionals, boolOpt, stringOpt } from '../args';
import type { Command } from '../command';
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
        'is under the current one), plus those the agent starts',
    },
  },
  details: [
    'Tools: list_sessions, read_screen, read_history, search_history, wait; ' +
      'without --read-only also send, start_session, kill_session.',
    'The daemon enforces --sessions and --read-only: requests carry a credential of those rights, and a ' +
      'session start_session starts gets it as HOLDFAST_TOKEN, so `holdfast` run there has the same scope ' +
      '(a program that reads your token file instead runs with your full rights).',
    'Only start_session starts a daemon (as `holdfast new` does). ' +
      'Example: claude mcp add holdfast -- holdfast mcp --sessions workspace',
  ],
  async run(ctx) {
    expectPositionals(ctx.args, 0, 0, '');
    const list = stringOpt(ctx.args, 'sessions');
    await loadMcpServer().serve({
      socket: ctx.socket,
      env: ctx.env,
      cwd: process.cwd(),
      readOnly: boolOpt(ctx.args, 'read-only'),
      sessions: list === undefined ? undefined : parseSessionList(list),
      self: ctx.env.HOLDFAST_SESSION,
      host: ctx.link.host,
    });
    // stdout belonged to the protocol: nothing more is printed.
    return { data: undefined };
  },
};
