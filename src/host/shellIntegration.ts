// How a shell starts with VS Code's own shell integration scripts, as VS Code's terminal starts it
// (its getShellIntegrationInjection, Linux and macOS): bash, zsh, fish and pwsh, plain or login, get
// the script that reports prompts, commands, exit codes and the directory through OSC 633; the
// script loads the user's own rc files itself and prints nothing. Any other shell or arguments: none.
import * as path from 'node:path';

/** The scripts' folder inside an installed VS Code (vscode.env.appRoot; code-server: lib/vscode). */
export const VSCODE_SCRIPTS_FOLDER = path.join('out', 'vs', 'workbench', 'contrib', 'terminal', 'common', 'scripts');

/** The script each shell needs in the folder (zsh needs four, linked into a ZDOTDIR of their own). */
export const SCRIPT_FILES = {
  bash: ['shellIntegration-bash.sh'],
  fish: ['shellIntegration.fish'],
  pwsh: ['shellIntegration.ps1'],
  zsh: [
    'shellIntegration-rc.zsh',
    'shellIntegration-profile.zsh',
    'shellIntegration-env.zsh',
    'shellIntegration-login.zsh',
  ],
} as const;

export type IntegratedShell = keyof typeof SCRIPT_FILES;

/** The zsh startup file each of VS Code's zsh scripts stands in for. */
const ZSH_DOTFILES: Record<string, string> = {
  'shellIntegration-rc.zsh': '.zshrc',
  'shellIntegration-profile.zsh': '.zprofile',
  'shellIntegration-env.zsh': '.zshenv',
  'shellIntegration-login.zsh': '.zlogin',
};

export interface InjectionInput {
  argv: string[];
  /** The session's environment (ZDOTDIR is read from it). */
  env: Record<string, string>;
  /** VS Code's scripts folder. */
  scripts: string;
  /** VSCODE_NONCE: the shell puts it on the command lines it reports, which makes them trusted. */
  nonce: string;
  home: string;
  /** Where zsh's startup files are linked (a private folder per scripts folder). */
  zdotdir: string;
}

export interface Injection {
  shell: IntegratedShell;
  /** What is started instead of argv (argv stays what the session shows). */
  argv: string[];
  /** Set on top of the session's environment. */
  env: Record<string, string>;
  /** zsh: links to make before the shell starts (dest -> source). */
  links: { source: string; dest: string }[];
}

const LOGIN_ARGS = ['--login', '-l'];
const INTERACTIVE_ARGS = ['-i', '--interactive'];
const PWSH_LOGIN_ARGS = ['-login', '-l'];
const PWSH_IMPLIED_ARGS = ['-nol', '-nologo'];

/** `-l` or `--login`, with or without `-i` (VS Code's areZshBashFishLoginArgs). */
function isLogin(args: string[]): boolean {
  const rest = args.filter((a) => !INTERACTIVE_ARGS.includes(a.toLowerCase()));
  return rest.length === 1 && LOGIN_ARGS.includes(rest[0].toLowerCase());
}

function pwshArgs(args: string[]): 'plain' | 'login' | undefined {
  const lower = args.map((a) => a.toLowerCase());
  if (lower.length === 0 || (lower.length === 1 && PWSH_IMPLIED_ARGS.includes(lower[0]))) return 'plain';
  if (lower.length === 1 && PWSH_LOGIN_ARGS.includes(lower[0])) return 'login';
  if (
    lower.length === 2 &&
    lower.some((a) => PWSH_LOGIN_ARGS.includes(a)) &&
    lower.some((a) => PWSH_IMPLIED_ARGS.includes(a))
  )
    return 'login';
  return undefined;
}

/** The shell VS Code's scripts serve, by the program's name (`bash`, `/usr/bin/zsh`, `pwsh`). */
export function integratedShellOf(program: string): IntegratedShell | undefined {
  const name = path.basename(program);
  return name === 'bash' || name === 'zsh' || name === 'fish' || name === 'pwsh' ? name : undefined;
}

/** The shell's start with integration, or undefined: a shell or arguments VS Code does not inject into. */
export function shellInjection(input: InjectionInput): Injection | undefined {
  const [program, ...args] = input.argv;
  const shell = program === undefined ? undefined : integratedShellOf(program);
  if (!shell) return undefined;
  const scripts = input.scripts;
  const env: Record<string, string> = { VSCODE_INJECTION: '1', VSCODE_NONCE: input.nonce };
  const start = (newArgs: string[], links: Injection['links'] = []): Injection => ({
    shell,
    argv: [program, ...newArgs],
    env,
    links,
  });
  switch (shell) {
    case 'bash': {
      if (args.length > 0 && !isLogin(args)) return undefined;
      if (args.length > 0) env.VSCODE_SHELL_LOGIN = '1';
      env.VSCODE_STABLE = '1';
      return start(['--init-file', path.join(scripts, 'shellIntegration-bash.sh')]);
    }
    case 'fish': {
      if (args.length > 0 && !isLogin(args)) return undefined;
      // VS Code's fish script runs only in a terminal that says it is VS Code's.
      env.TERM_PROGRAM = 'vscode';
      const source = ['--init-command', `source "${path.join(scripts, 'shellIntegration.fish')}"`];
      return start(args.length > 0 ? ['-l', ...source] : source);
    }
    case 'pwsh': {
      const kind = pwshArgs(args);
      if (!kind) return undefined;
      env.VSCODE_STABLE = '1';
      const command = ['-noexit', '-command', `. "${path.join(scripts, 'shellIntegration.ps1')}"`];
      return start(kind === 'login' ? ['-l', ...command] : command);
    }
    case 'zsh': {
      if (args.length > 0 && !isLogin(args)) return undefined;
      env.ZDOTDIR = input.zdotdir;
      env.USER_ZDOTDIR = input.env.ZDOTDIR || input.home;
      const links = SCRIPT_FILES.zsh.map((file) => ({
        source: path.join(scripts, file),
        dest: path.join(input.zdotdir, ZSH_DOTFILES[file]),
      }));
      return start(args.length > 0 ? ['-il'] : ['-i'], links);
    }
  }
}
