// How a new run of an agent profile starts: its command line, with a fresh conversation id when the
// profile makes one, and the metadata that lets `resume` continue it later; and whether its command
// is installed. Shared by the extension's New Agent commands and `holdfast mcp`'s start_session.
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentProfile } from './agents';
import { AGENT_ID_PLACEHOLDER, type AgentMetadata } from '../protocol/recovery';

export interface AgentLaunch {
  argv: string[];
  /** Goes into the session's metadata as `agent`. */
  agent: AgentMetadata & { name: string; icon: string };
}

/** The command line and metadata of a new run of `profile`. */
export function agentLaunch(profile: AgentProfile, newId: () => string = randomUUID): AgentLaunch {
  const sessionId = profile.sessionId === 'generate' ? newId() : undefined;
  const argv = profile.argv.map((a) => (sessionId === undefined ? a : a.split(AGENT_ID_PLACEHOLDER).join(sessionId)));
  const agent: AgentLaunch['agent'] = {
    profile: profile.id,
    name: profile.name,
    icon: profile.icon,
    resumeArgv: [...profile.resumeArgv],
  };
  if (sessionId !== undefined) agent.sessionId = sessionId;
  return { argv, agent };
}

/** Where `command` would be found on `searchPath`, or undefined. A command with a slash is checked as it is. */
export function findExecutable(command: string, searchPath: string | undefined, cwd: string): string | undefined {
  const candidates = command.includes('/')
    ? [path.resolve(cwd, command)]
    : (searchPath ?? '')
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, command));
  for (const candidate of candidates) {
    try {
      const stat = fs.statSync(candidate);
      if (stat.isFile()) {
        fs.accessSync(candidate, fs.constants.X_OK);
        return candidate;
      }
    } catch {
      // not in this folder: the next one on PATH
    }
  }
  return undefined;
}
