// The environment a new Holdfast session starts with: the editor's, minus what belongs to this
// editor process only, plus the stable `code` hook and our folders on PATH. Pure, unit-tested.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).

/** Variables of the extension host process that must not leak into a long-lived session. */
const PROCESS_ONLY = new RegExp(
  '^(VSCODE_|ELECTRON_|NODE_OPTIONS$|NODE_CHANNEL_FD$|NODE_UNIQUE_ID$|HOLDFAST_SESSION$|HOLDFAST_NOTIFY_TOKEN$|' +
    'APPLICATION_INSIGHTS_|CHROME_CRASHPAD_)',
);

export interface SessionEnvOptions {
  /** Folders put first on PATH (our `holdfast` launcher, the editor's `code`). */
  pathPrepend: string[];
  /** The session's stable VSCODE_IPC_HOOK_CLI path, when the editor has a CLI hook. */
  cliHook?: string;
  termProgramVersion?: string;
}

export function buildSessionEnv(base: NodeJS.ProcessEnv, options: SessionEnvOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value !== undefined && !PROCESS_ONLY.test(key)) env[key] = value;
  }
  env.PATH = prependPath(base.PATH ?? '/usr/local/bin:/usr/bin:/bin', options.pathPrepend);
  if (options.cliHook) env.VSCODE_IPC_HOOK_CLI = options.cliHook;
  env.TERM_PROGRAM = 'vscode';
  if (options.termProgramVersion) env.TERM_PROGRAM_VERSION = options.termProgramVersion;
  env.COLORTERM = 'truecolor';
  return env;
}

/** `dirs` first, in that order, each once; the rest of PATH keeps its order. */
export function prependPath(current: string, dirs: readonly string[]): string {
  const rest = current.split(':').filter((entry) => entry !== '' && !dirs.includes(entry));
  return [...new Set(dirs), ...rest].join(':');
}
