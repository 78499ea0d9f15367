// The daemon's config: $XDG_CONFIG_HOME/holdfast/config.json, e.g. {"recovery": {"screenText": true}},
// {"search": {"budgetMs": 5000}}.
// Read at start (a bad file is logged and the defaults used), changed by `config.set` (which writes
// the file), re-read by `config.reload` (a bad file is refused and the current config kept).
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type IDisposable, toDisposable } from '../base/disposable';
import { ErrorCode } from '../protocol/messages';
import { ensurePrivateDir } from '../host/paths';
import type { DaemonConfig, RecoveryConfig, SearchConfig } from '../protocol/recovery';
import { DaemonError } from './daemonError';

export const MAX_CHECKPOINT_BYTES = 16 * 1024 * 1024;

export const DEFAULT_CONFIG: DaemonConfig = {
  recovery: {
    enabled: true,
    intervalSeconds: 30,
    screenText: false,
    argv: false,
    keep: 3,
    maxBytes: MAX_CHECKPOINT_BYTES,
  },
  search: { budgetMs: 2000 },
};

type Check = (value: unknown) => string | undefined;
const bool: Check = (v) => (typeof v === 'boolean' ? undefined : 'must be true or false');
const number =
  (min: number, max: number, integer: boolean): Check =>
  (v) =>
    typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max && (!integer || Number.isInteger(v))
      ? undefined
      : `must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`;

const RECOVERY_KEYS: Record<keyof RecoveryConfig, Check> = {
  enabled: bool,
  // Fractions of a second are for tests.
  intervalSeconds: number(0.01, 86_400, false),
  screenText: bool,
  argv: bool,
  keep: number(1, 100, true),
  maxBytes: number(4096, MAX_CHECKPOINT_BYTES, true),
};

const SEARCH_KEYS: Record<keyof SearchConfig, Check> = {
  budgetMs: number(100, 60_000, true),
};

/** Each section of the file and the checks of its keys. */
const SECTIONS: { [S in keyof DaemonConfig]: Record<keyof DaemonConfig[S], Check> } = {
  recovery: RECOVERY_KEYS,
  search: SEARCH_KEYS,
};

type Section = keyof DaemonConfig;

export const CONFIG_KEYS = Object.entries(SECTIONS).flatMap(([section, keys]) =>
  Object.keys(keys).map((k) => `${section}.${k}`),
);

function splitKey(key: unknown): [Section, string] {
  const match = typeof key === 'string' ? /^(\w+)\.(\w+)$/.exec(key) : null;
  if (!match || !Object.hasOwn(SECTIONS, match[1]) || !Object.hasOwn(SECTIONS[match[1] as Section], match[2]))
    throw new DaemonError(
      ErrorCode.BadRequest,
      `unknown config key "${String(key)}" (keys: ${CONFIG_KEYS.join(', ')})`,
    );
  return [match[1] as Section, match[2]];
}

function checkOf(section: Section, key: string): Check {
  return (SECTIONS[section] as Record<string, Check>)[key];
}

/** The file's values over the defaults; throws on anything invalid. Unknown keys are kept in the file and ignored. */
function parse(text: string, file: string): DaemonConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new DaemonError(ErrorCode.BadRequest, `${file}: not valid JSON: ${(err as Error).message}`);
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    throw new DaemonError(ErrorCode.BadRequest, `${file}: must hold a JSON object`);
  const config = { recovery: { ...DEFAULT_CONFIG.recovery }, search: { ...DEFAULT_CONFIG.search } };
  for (const name of Object.keys(SECTIONS) as Section[]) {
    const section = (raw as Record<string, unknown>)[name];
    if (section === undefined) continue;
    if (!section || typeof section !== 'object' || Array.isArray(section))
      throw new DaemonError(ErrorCode.BadRequest, `${file}: "${name}" must be an object`);
    for (const [key, value] of Object.entries(section)) {
      if (!Object.hasOwn(SECTIONS[name], key)) continue;
      const problem = checkOf(name, key)(value);
      if (problem) throw new DaemonError(ErrorCode.BadRequest, `${file}: ${name}.${key} ${problem}`);
      (config[name] as Record<string, unknown>)[key] = value;
    }
  }
  return config;
}

export class ConfigStore {
  private current: DaemonConfig = DEFAULT_CONFIG;
  private readonly listeners: ((config: DaemonConfig) => void)[] = [];

  constructor(
    readonly file: string,
    log: (line: string) => void,
  ) {
    try {
      this.current = this.read();
    } catch (err) {
      log(`config: ${(err as Error).message}; using the defaults`);
    }
  }

  get config(): DaemonConfig {
    return this.current;
  }

  onChange(listener: (config: DaemonConfig) => void): IDisposable {
    this.listeners.push(listener);
    return toDisposable(() => {
      const index = this.listeners.indexOf(listener);
      if (index >= 0) this.listeners.splice(index, 1);
    });
  }

  get(key?: string): unknown {
    if (key === undefined) return this.current;
    const [section, name] = splitKey(key);
    return (this.current[section] as unknown as Record<string, unknown>)[name];
  }

  /** Validates, writes the file (keeping whatever else it holds), applies. */
  set(key: string, value: unknown): void {
    const [sectionName, name] = splitKey(key);
    const problem = checkOf(sectionName, name)(value);
    if (problem) throw new DaemonError(ErrorCode.BadRequest, `${key} ${problem}`);
    let raw: Record<string, unknown> = {};
    const text = this.readText();
    if (text !== undefined) {
      parse(text, this.file);
      raw = JSON.parse(text) as Record<string, unknown>;
    }
    const old = raw[sectionName];
    const section = (old && typeof old === 'object' ? old : {}) as Record<string, unknown>;
    raw[sectionName] = { ...section, [name]: value };
    const next = parse(JSON.stringify(raw), this.file);
    this.ensureDir();
    // Exclusive and unguessable: a planted symlink at the temp name is never written through.
    const temp = `${this.file}.${randomBytes(6).toString('hex')}.tmp`;
    fs.writeFileSync(temp, JSON.stringify(raw, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
    try {
      fs.renameSync(temp, this.file);
    } catch (err) {
      fs.rmSync(temp, { force: true });
      throw err;
    }
    this.apply(next);
  }

  /** Re-reads the file; an invalid one is refused and the current config stays. */
  reload(): void {
    this.apply(this.read());
  }

  /** The config directory: made 0700, and refused unless it is the user's and nobody else can write it. */
  private ensureDir(): void {
    try {
      ensurePrivateDir(path.dirname(this.file), false);
    } catch (err) {
      throw new DaemonError(ErrorCode.BadRequest, `config: ${(err as Error).message}`);
    }
  }

  private readText(): string | undefined {
    if (!fs.existsSync(this.file)) return undefined;
    this.ensureDir(); // a config planted in someone else's directory is not this user's config
    try {
      return fs.readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new DaemonError(ErrorCode.BadRequest, `cannot read ${this.file}: ${(err as Error).message}`);
    }
  }

  private read(): DaemonConfig {
    const text = this.readText();
    return text === undefined ? DEFAULT_CONFIG : parse(text, this.file);
  }

  private apply(next: DaemonConfig): void {
    this.current = next;
    for (const listener of this.listeners) listener(next);
  }
}
