// Where New Terminal / New Agent start a session when holdfast.hosts lists hosts: the pick of this machine or a
// host, then of a folder on that host (its home, the folders used there lately, or a path typed), and the record
// of those folders per host, kept in the extension's global state (a host's folders are the same from any window).
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import * as path from 'node:path';
import { z } from 'zod';
import { ui, type UiText, uiText } from '../text/uiText';
import type { Memento } from './remoteTabRecord';

export const HOST_FOLDERS_KEY = 'holdfast.hostFolders';
/** Recent folders offered per host, newest first. */
export const MAX_HOST_FOLDERS = 10;
/** Hosts remembered; past that the ones used longest ago are forgotten. */
export const MAX_FOLDER_HOSTS = 50;
/** A longer path is not one a user typed (Linux's PATH_MAX). */
const MAX_FOLDER_CHARS = 4096;

export interface HostChoice {
  label: UiText;
  description?: UiText;
  /** undefined: this machine. */
  host: string | undefined;
}

/** How a host's connection is, as its section says it. */
export interface HostStatus {
  name: string;
  state: 'connected' | 'connecting' | 'failed';
  error?: string;
}

/** This machine first, then each host with how its connection is; none at all when no host is listed. */
export function hostChoices(hosts: readonly HostStatus[]): HostChoice[] {
  if (hosts.length === 0) return [];
  return [
    { label: ui`$(device-desktop) This machine`, host: undefined },
    ...hosts.map((h) => ({
      label: ui`$(remote) ${uiText(h.name)}`,
      description:
        h.state === 'connected'
          ? ui`connected`
          : h.state === 'failed'
            ? uiText(h.error ?? 'not connected')
            : ui`connecting…`,
      host: h.name,
    })),
  ];
}

export interface FolderChoice {
  label: UiText;
  description?: UiText;
  /** The folder's absolute path there; undefined: the host's home (its daemon's default). */
  folder: string | undefined;
  /** A path as typed, checked once chosen (checkHostFolder). */
  typed?: boolean;
  alwaysShow?: boolean;
}

/** What the folder pick lists for `typed` (the pick's text): that path first, the home, then the recent ones. */
export function folderChoices(host: string, recent: readonly string[], typed: string): FolderChoice[] {
  const value = typed.trim();
  const choices: FolderChoice[] = [];
  if (value && !recent.includes(value))
    choices.push({
      label: uiText(value),
      description: ui`the folder typed`,
      folder: value,
      typed: true,
      alwaysShow: true,
    });
  choices.push({ label: ui`$(home) Home folder`, description: ui`your home on ${uiText(host)}`, folder: undefined });
  for (const folder of recent) choices.push({ label: uiText(folder), description: ui`recent`, folder });
  return choices;
}

/** A folder typed for a host: an absolute path there (this machine cannot look), or the one line saying why not. */
export function checkHostFolder(host: string, typed: string): { folder: string } | { error: string } {
  const folder = typed.trim();
  if (!path.posix.isAbsolute(folder))
    return { error: `a folder on ${host} must be an absolute path there, not "${folder}"` };
  if (folder.length > MAX_FOLDER_CHARS || folder.includes('\0'))
    return { error: `"${folder.slice(0, 80)}…" is no folder path` };
  return { folder: path.posix.normalize(folder) };
}

/** The stored record, whatever is there: per host a list of paths; anything else is dropped. */
const recordSchema = z
  .record(z.string(), z.array(z.unknown()).catch([]))
  .catch({})
  .transform((record) =>
    Object.entries(record)
      .map(([host, folders]): [string, string[]] => [
        host,
        [...new Set(folders.filter((f): f is string => typeof f === 'string' && isRecordable(f)))].slice(
          0,
          MAX_HOST_FOLDERS,
        ),
      ])
      .filter(([, folders]) => folders.length > 0)
      .slice(-MAX_FOLDER_HOSTS),
  );

function isRecordable(folder: string): boolean {
  return folder.length <= MAX_FOLDER_CHARS && path.posix.isAbsolute(folder) && !folder.includes('\0');
}

/** The folders used on each host, newest first; the host used last is last in the record. */
export class HostFolders {
  private hosts: Map<string, string[]>;

  constructor(private readonly state: Memento) {
    this.hosts = new Map(recordSchema.parse(state.get(HOST_FOLDERS_KEY)));
  }

  of(host: string): string[] {
    return [...(this.hosts.get(host) ?? [])];
  }

  /** A session started in `folder` on `host`: it leads that host's list. */
  add(host: string, folder: string): void {
    if (!isRecordable(folder)) return;
    const folders = [folder, ...this.of(host).filter((f) => f !== folder)].slice(0, MAX_HOST_FOLDERS);
    this.hosts.delete(host);
    this.hosts.set(host, folders);
    while (this.hosts.size > MAX_FOLDER_HOSTS) this.hosts.delete(this.hosts.keys().next().value!);
    // A failed write loses only what the next pick offers.
    Promise.resolve(this.state.update(HOST_FOLDERS_KEY, Object.fromEntries(this.hosts))).catch(() => undefined);
  }
}
