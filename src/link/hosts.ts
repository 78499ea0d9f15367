// The hosts a client reaches over SSH: the one schema of a host entry, the list in the user's config file
// ($XDG_CONFIG_HOME/holdfast/config.json, "hosts"; the daemon ignores the key), and what `--host X` names.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { InputError } from '../base/inputError';
import { configFilePath, ensurePrivateDir } from '../host/paths';

/** The name of this machine in `--host` and in the HOST column: never an SSH target. */
export const LOCAL_HOST = 'local';

/** How long connecting and the handshake may take over SSH, unless an entry says otherwise. */
export const DEFAULT_HOST_TIMEOUT_MS = 20_000;

const NO_CONTROL = /^[^\x00-\x1f\x7f-\x9f]*$/;

/**
 * What ssh takes as its destination: an alias of ~/.ssh/config, host, user@host or ssh://user@host:port.
 * Never an option (a leading "-" would be one: -oProxyCommand=...), no whitespace or control characters.
 */
export const sshTargetSchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^-\s]\S*$/, 'an SSH target is one word that does not start with "-"')
  .regex(NO_CONTROL, 'an SSH target has no control characters')
  .refine((target) => target !== LOCAL_HOST, `"${LOCAL_HOST}" names this machine, not an SSH target`);

export const hostEntrySchema = z.object({
  /** As you would give it to ssh (jump hosts, ports, keys and users come from ~/.ssh/config). */
  target: sshTargetSchema,
  /** What the HOST column and `--host` call it; default: the target. */
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/, 'a host name is letters, digits and . _ @ - (at most 64)')
    .refine((name) => name !== LOCAL_HOST, `"${LOCAL_HOST}" is this machine's name`)
    .optional(),
  /** The remote's `holdfast`: a command line for the remote user's shell; default `holdfast` (on its PATH). */
  command: z.string().min(1).max(1024).regex(NO_CONTROL, 'the command has no control characters').optional(),
  /** The remote daemon's socket; default: the remote's own default. */
  socket: z.string().min(1).max(1024).regex(NO_CONTROL, 'the socket has no control characters').optional(),
  /** Connecting and the handshake, in ms (default 20,000). */
  timeoutMs: z.number().int().min(500).max(600_000).optional(),
});

export type HostEntry = z.infer<typeof hostEntrySchema>;

/** The config file's part that is ours; its other keys are the daemon's. */
/** At most this many hosts, in the config file or the setting. */
const MAX_HOSTS = 64;

const hostsFileSchema = z.object({
  hosts: z
    .array(hostEntrySchema)
    .max(MAX_HOSTS)
    .refine((hosts) => new Set(hosts.map(hostName)).size === hosts.length, 'two hosts have the same name')
    .optional(),
});

/** One entry of the `holdfast.hosts` setting: a bare SSH target, or an entry as in the config file. */
function hostSettingEntry(entry: unknown) {
  return typeof entry === 'string'
    ? sshTargetSchema.transform((target): HostEntry => ({ target })).safeParse(entry)
    : hostEntrySchema.strict().safeParse(entry);
}

/**
 * The hosts of the `holdfast.hosts` setting, each checked as the config file's entries are; an entry that is not
 * one, or that repeats a name, is left out with its one-line problem.
 */
export function parseHostSetting(raw: unknown): { hosts: HostEntry[]; problems: string[] } {
  const hosts: HostEntry[] = [];
  const problems: string[] = [];
  const entries = Array.isArray(raw) ? raw.slice(0, MAX_HOSTS) : [];
  if (raw !== undefined && !Array.isArray(raw)) problems.push('holdfast.hosts: a list of SSH targets is expected');
  if (Array.isArray(raw) && raw.length > MAX_HOSTS)
    problems.push(`holdfast.hosts: only the first ${MAX_HOSTS} are used`);
  entries.forEach((entry: unknown, i) => {
    const parsed = hostSettingEntry(entry);
    if (!parsed.success) return problems.push(`holdfast.hosts[${i}]: ${firstIssue(parsed.error, 'the entry')}`);
    const name = hostName(parsed.data);
    if (hosts.some((h) => hostName(h) === name))
      return problems.push(`holdfast.hosts[${i}]: another host is called ${JSON.stringify(name)}`);
    hosts.push(parsed.data);
  });
  return { hosts, problems };
}

/** What a host is called: its name, else its target. */
export function hostName(host: HostEntry): string {
  return host.name ?? host.target;
}

/** The problem of a zod error, on one line naming the field. */
function firstIssue(error: z.ZodError, whole = 'the file'): string {
  const issue = error.issues[0];
  return `${issue.path.join('.') || whole}: ${issue.message}`;
}

/** The hosts of the config file (none when it does not exist); an unusable file is an InputError naming the fix. */
export function readHosts(env: NodeJS.ProcessEnv = process.env): HostEntry[] {
  const file = configFilePath(env);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new InputError(`cannot read ${file}: ${(err as Error).message}`);
  }
  try {
    // A config planted in a directory someone else can write is not this user's config (as the daemon's check).
    ensurePrivateDir(path.dirname(file), false);
  } catch (err) {
    throw new InputError(`${file}: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new InputError(`${file}: not valid JSON: ${(err as Error).message}`);
  }
  const parsed = hostsFileSchema.safeParse(raw);
  if (!parsed.success) throw new InputError(`${file}: ${firstIssue(parsed.error)}`);
  return parsed.data.hosts ?? [];
}

/**
 * What `--host X` names: undefined for this machine ("local"), else the configured host named (or targeted) X, else X
 * as an SSH target of its own (an alias of ~/.ssh/config needs no entry here).
 */
export function resolveHost(ref: string, hosts: readonly HostEntry[]): HostEntry | undefined {
  if (ref === LOCAL_HOST) return undefined;
  const found = hosts.find((h) => hostName(h) === ref) ?? hosts.find((h) => h.target === ref);
  if (found) return found;
  const target = sshTargetSchema.safeParse(ref);
  if (!target.success) throw new InputError(`--host ${JSON.stringify(ref)}: ${target.error.issues[0].message}`);
  return { target: target.data };
}
