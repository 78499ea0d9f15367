// Argument parsing on node:util parseArgs: option tables per command, typed value helpers.
import { parseArgs } from 'node:util';
import { usageError } from './errors';

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  /** Placeholder shown in help, e.g. N, DIR. */
  value?: string;
  help: string;
}

export type OptionSpecs = Record<string, OptionSpec>;

/** Options every command takes. */
export const GLOBAL_OPTIONS: OptionSpecs = {
  json: { type: 'boolean', help: 'print exactly one JSON document on stdout (errors too)' },
  socket: {
    type: 'string',
    value: 'PATH',
    help: 'daemon socket (default: $HOLDFAST_SOCKET, else $XDG_RUNTIME_DIR/holdfast/holdfast.sock; see docs/cli.md)',
  },
  host: {
    type: 'string',
    value: 'TARGET',
    help:
      'the daemon on this SSH host (a hosts entry of config.json or any ssh target; default: $HOLDFAST_HOST; ' +
      '"local": this machine)',
  },
  help: { type: 'boolean', short: 'h', help: 'show help for this command' },
};

type Value = string | boolean | (string | boolean)[] | undefined;

export interface ParsedArgs {
  values: Record<string, Value>;
  /** Positionals before `--`. */
  positionals: string[];
  /** Everything after `--`, untouched (the command line of `holdfast new`). */
  rest: string[];
}

export function parseCommandArgs(argv: string[], options: OptionSpecs): ParsedArgs {
  const all = { ...GLOBAL_OPTIONS, ...options };
  const config: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {};
  for (const [name, spec] of Object.entries(all)) {
    config[name] = { type: spec.type };
    if (spec.short) config[name].short = spec.short;
    if (spec.multiple) config[name].multiple = true;
  }
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: config, allowPositionals: true, strict: true, tokens: true });
  } catch (err) {
    if (!String((err as NodeJS.ErrnoException).code).startsWith('ERR_PARSE_ARGS')) throw err;
    throw usageError(cleanParseError(err as Error));
  }
  const terminator = parsed.tokens.find((t) => t.kind === 'option-terminator');
  const positionals: string[] = [];
  const rest: string[] = [];
  for (const token of parsed.tokens) {
    if (token.kind !== 'positional') continue;
    if (terminator && token.index > terminator.index) rest.push(token.value);
    else positionals.push(token.value);
  }
  return { values: parsed.values, positionals, rest };
}

/** parseArgs explains itself at length; keep its first sentence and our own hint. */
function cleanParseError(err: Error): string {
  const code = (err as NodeJS.ErrnoException).code;
  const first = err.message.split(/(?<=\.)\s/)[0].replace(/\.$/, '');
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && /ambiguous/.test(err.message)) {
    const name = /'(--?[\w-]+)/.exec(err.message)?.[1] ?? '--option';
    return `${first}: for a value starting with "-" write ${name}=VALUE`;
  }
  return first;
}

export function stringOpt(args: ParsedArgs, name: string): string | undefined {
  const value = args.values[name];
  return typeof value === 'string' ? value : undefined;
}

export function boolOpt(args: ParsedArgs, name: string): boolean {
  return args.values[name] === true;
}

export function listOpt(args: ParsedArgs, name: string): string[] {
  const value = args.values[name];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return typeof value === 'string' ? [value] : [];
}

/** An integer option within [min, max]; anything else is a usage error naming the option. */
export function intOpt(args: ParsedArgs, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const raw = stringOpt(args, name);
  if (raw === undefined) return undefined;
  return parseIntArg(raw, `--${name}`, min, max);
}

export function parseIntArg(raw: string, label: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(raw.trim())) throw usageError(`${label} must be a whole number, not "${raw}"`);
  const n = Number(raw.trim());
  if (n < min || n > max) throw usageError(`${label} must be between ${min} and ${max}, not ${n}`);
  return n;
}

/** `--env K=V` pairs; the key must be a valid variable name. */
export function parseEnvPairs(pairs: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    if (eq < 0 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw usageError(`--env takes KEY=VALUE, not "${pair}"`);
    env[key] = pair.slice(eq + 1);
  }
  return env;
}

/** Checks the positional count; `names` is how help spells them, e.g. "ID". */
export function expectPositionals(args: ParsedArgs, min: number, max: number, names: string): void {
  const n = args.positionals.length;
  if (n < min) throw usageError(`missing ${names}`);
  if (n > max) throw usageError(`unexpected argument "${args.positionals[max]}"`);
}
