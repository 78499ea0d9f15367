// Agent profiles as the extension offers them: the holdfast.agents setting over the built-in ones,
// what to say when an agent is not installed, and the resume command a client gives the daemon.
// Pure (no vscode import), unit-tested.
//
// The built-in profiles and the resume rule are in agents/agents.ts, shared with the daemon and the CLI;
// how a new run starts, in agents/agentLaunch.ts, shared with the CLI.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import * as path from 'node:path';
import { type AgentProfile, BUILTIN_AGENTS, findProfile } from '../agents/agents';
import { AGENT_ID_PLACEHOLDER } from '../protocol/recovery';

export type { AgentProfile };
export { BUILTIN_AGENTS, findProfile };

/** The `holdfast.agents` setting: custom profiles, or built-ins overridden by id (e.g. another `claude` path). */
export function readAgentProfiles(setting: unknown): { profiles: AgentProfile[]; errors: string[] } {
  const profiles = BUILTIN_AGENTS.map((p) => ({ ...p, argv: [...p.argv], resumeArgv: [...p.resumeArgv] }));
  const errors: string[] = [];
  if (setting === undefined || setting === null) return { profiles, errors };
  if (!Array.isArray(setting)) return { profiles, errors: ['holdfast.agents must be a list of agent profiles'] };
  setting.forEach((raw, index) => {
    const problem = (why: string) => errors.push(`holdfast.agents[${index}]: ${why}`);
    if (!raw || typeof raw !== 'object') return problem('must be an object');
    // Own keys only: a setting's "constructor" or "__proto__" is no profile field.
    const entry = ownFields(raw as Record<string, unknown>);
    const name = typeof entry.name === 'string' ? entry.name.trim() : '';
    if (!name) return problem('needs a "name"');
    const id = typeof entry.id === 'string' && entry.id.trim() ? entry.id.trim() : slug(name);
    const base = findProfile(profiles, id);
    const argv = entry.argv === undefined ? base?.argv : stringList(entry.argv);
    if (!argv || argv.length === 0)
      return problem(`"${name}" needs "argv", a non-empty list of strings such as ["my-agent", "--flag"]`);
    const resumeArgv = entry.resumeArgv === undefined ? (base?.resumeArgv ?? []) : stringList(entry.resumeArgv);
    if (!resumeArgv) return problem(`"${name}": "resumeArgv" must be a list of strings`);
    const sessionId =
      entry.sessionId === 'generate' || entry.sessionId === 'none'
        ? entry.sessionId
        : (base?.sessionId ??
          ([...argv, ...resumeArgv].some((a) => a.includes(AGENT_ID_PLACEHOLDER)) ? 'generate' : 'none'));
    if (sessionId === 'none' && resumeArgv.some((a) => a.includes(AGENT_ID_PLACEHOLDER)))
      return problem(`"${name}": "resumeArgv" uses {id} but "sessionId" is "none", so no id would be known`);
    const profile: AgentProfile = {
      id,
      name,
      icon: typeof entry.icon === 'string' && entry.icon.trim() ? entry.icon.trim() : (base?.icon ?? 'terminal'),
      argv,
      resumeArgv,
      sessionId,
    };
    if (base) profiles[profiles.indexOf(base)] = profile;
    else profiles.push(profile);
  });
  return { profiles, errors };
}

/** One line naming the binary and the setting, for an agent whose command is not installed. */
export function missingAgentMessage(profile: AgentProfile): string {
  const example =
    `{"id": "${profile.id}", "name": "${profile.name}", ` +
    `"argv": ["/path/to/${path.basename(profile.argv[0])}"${profile.argv.length > 1 ? ', …' : ''}]}`;
  return (
    `Holdfast: ${profile.name} needs \`${profile.argv[0]}\`, which is not on PATH. ` +
    `Install it, or set its command in the setting holdfast.agents (e.g. ${example}).`
  );
}

function ownFields(
  raw: Record<string, unknown>,
): Partial<Record<'id' | 'name' | 'icon' | 'argv' | 'resumeArgv' | 'sessionId', unknown>> {
  const own = (key: string) => (Object.prototype.hasOwnProperty.call(raw, key) ? raw[key] : undefined);
  return {
    id: own('id'),
    name: own('name'),
    icon: own('icon'),
    argv: own('argv'),
    resumeArgv: own('resumeArgv'),
    sessionId: own('sessionId'),
  };
}

/** The resume command a client gives the daemon for `profileId` (the daemon trusts no checkpoint's). */
export function resumeTemplate(profiles: readonly AgentProfile[], profileId: unknown): string[] | undefined {
  const profile = findProfile(profiles, profileId);
  return profile && profile.resumeArgv.length > 0 ? [...profile.resumeArgv] : undefined;
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((a) => typeof a === 'string') ? [...value] : undefined;
}

function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'agent'
  );
}
