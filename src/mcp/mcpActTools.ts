// The acting tools of `holdfast mcp` (none with --read-only): type into a session, start one, kill one.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { agentLaunch, findExecutable } from '../agents/agentLaunch';
import { BUILTIN_AGENTS, builtinAgent } from '../agents/agents';
import { SizeLimit, TextLimit } from '../protocol/limits';
import type { CreateParams } from '../protocol/messages';
import { parseSignal } from '../host/signals';
import { KEY_NAMES_HELP, sendPayload } from '../text/keys';
import { keyOf, placeOf } from './mcpHosts';
import {
  checked,
  defineTool,
  resolveSession,
  sessionRef,
  summarize,
  summaryLine,
  summarySchema,
  type ToolDef,
  withDaemon,
  withScoped,
} from './mcpTool';

export const sendTool = defineTool({
  name: 'send',
  title: 'Type into a session',
  description:
    'Types text, then keys by name, then Enter (if enter is true) into the session, as a user at its terminal would. ' +
    `Keys: ${KEY_NAMES_HELP}.`,
  readOnly: false,
  input: {
    session: sessionRef,
    text: z.string().max(65536).optional().describe('text typed as is'),
    keys: z.array(z.string().min(1).max(32)).max(256).optional().describe('key names, sent in order after the text'),
    enter: z.boolean().optional().describe('press Enter last'),
  },
  output: { session: z.string(), bytes: z.number() },
  async run({ session, text, keys, enter }, tool) {
    const data = sendPayload(text, keys ?? [], enter ?? false);
    if (data.length === 0) throw new Error('nothing to send: give text, keys or enter');
    const { place, ref } = placeOf(tool, session);
    const { ctx } = place;
    const id = await withDaemon(ctx, async (client) => {
      const info = await resolveSession(ctx, client, ref);
      ctx.rights.assertMayAct(info);
      await client.request('send', { session: info.id, data });
      return keyOf(place, info.id);
    });
    const bytes = Buffer.byteLength(data, 'utf8');
    return { data: { session: id, bytes }, text: `sent ${bytes} bytes to ${id}` };
  },
});

const AGENT_IDS = BUILTIN_AGENTS.map((p) => p.id) as [string, ...string[]];

/** The command line and metadata of a new session: a command, an agent profile, or the login shell. */
function launchOf(
  command: string[] | undefined,
  agentId: string | undefined,
  cwd: string,
  searchPath: string | undefined,
): Partial<CreateParams> {
  if (command && agentId) throw new Error('give command or agent, not both');
  if (command) return { argv: command };
  if (!agentId) return {};
  const profile = builtinAgent(agentId)!;
  const launch = agentLaunch(profile);
  // A missing binary would give a session that dies at once: say so instead.
  if (!findExecutable(launch.argv[0], searchPath, cwd))
    throw new Error(`${profile.name} is not installed here: "${launch.argv[0]}" is not on PATH`);
  return { argv: launch.argv, metadata: { agent: launch.agent } };
}

export const startTool = defineTool({
  name: 'start_session',
  title: 'Start a session',
  description:
    'Starts a terminal session running a command (default: the login shell) or a built-in agent profile ' +
    `(${AGENT_IDS.join(', ')}: started so that Holdfast can resume its conversation later), and starts the ` +
    'Holdfast daemon if none is running. The new session is yours to use from then on. ' +
    'Its program runs as the user who started this server; through `holdfast` it reaches only the sessions ' +
    'this server may use.',
  readOnly: false,
  input: {
    name: z.string().min(1).max(TextLimit.Name).optional(),
    command: z.array(z.string()).min(1).optional().describe('program and arguments, e.g. ["make", "test"]'),
    agent: z.enum(AGENT_IDS).optional().describe('start this agent instead of a command'),
    cwd: z.string().min(1).optional().describe("working directory (default: the server's)"),
    cols: z.number().int().min(1).max(SizeLimit.MaxCols).optional(),
    rows: z.number().int().min(1).max(SizeLimit.MaxRows).optional(),
    // An object of strings (not z.record, whose propertyNames a single-type dialect refuses).
    env: z.object({}).catchall(z.string()).optional().describe('variables added to the environment'),
  },
  output: summarySchema.shape,
  async run(args, ctx) {
    const cwd = path.resolve(ctx.cwd, args.cwd ?? '.');
    // A host's directories are its own: its daemon refuses one that is not there.
    if (!ctx.link.host && !fs.statSync(cwd, { throwIfNoEntry: false })?.isDirectory())
      throw new Error(`no such directory: ${cwd}`);
    const params: CreateParams = {
      name: args.name,
      cwd,
      cols: args.cols,
      rows: args.rows,
      env: args.env,
      ...launchOf(args.command, args.agent, cwd, ctx.env.PATH),
    };
    // Like `holdfast new`: the one tool that starts a daemon when none is listening.
    const base = await ctx.link.connect({ start: true });
    const { session } = await withScoped(ctx, base, (client) => client.request('create', params), true);
    ctx.rights.addStarted(session.id);
    const summary = summarize(session);
    return { data: summary, text: `started ${summaryLine(summary)}` };
  },
});

export const killTool = defineTool({
  name: 'kill_session',
  title: 'Kill a session',
  description:
    "Signals the session's process group (default SIGHUP, then SIGKILL after 2 s) and answers once it is gone; " +
    'with remove, the session is removed as well.',
  readOnly: false,
  destructive: true,
  input: {
    session: sessionRef,
    signal: z.string().min(1).max(16).optional().describe('signal name or number, e.g. TERM, INT, 9'),
    remove: z.boolean().optional(),
  },
  output: { removed: z.boolean(), session: summarySchema },
  async run({ session, signal, remove }, tool) {
    const sig = signal === undefined ? undefined : parseSignal(signal);
    const { place, ref } = placeOf(tool, session);
    const { ctx } = place;
    const info = await withDaemon(ctx, async (client) => {
      const info = await resolveSession(ctx, client, ref);
      ctx.rights.assertMayAct(info);
      const id = info.id;
      return (await client.request('kill', { session: id, signal: sig, remove: remove || undefined })).session;
    });
    const summary = summarize(checked(ctx, info), undefined, place.host);
    const text = `${remove ? 'killed and removed' : 'killed'} ${summaryLine(summary)}`;
    return { data: { removed: remove ?? false, session: summary }, text };
  },
});

export const ACT_TOOLS: ToolDef[] = [sendTool, startTool, killTool];
