// Starting a session's shell with VS Code's shell integration (how: src/host/shellIntegration.ts): the
// scripts folder this daemon knows (the last a client gave it, so that `holdfast new` from any shell
// gets what the editor's tabs get), the session's nonce, zsh's startup files linked into a private
// folder. Only stats and links here: no script is read on the daemon's thread (a FIFO would block it).
import { createHash, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { integratedShellOf, SCRIPT_FILES, shellInjection } from '../../host/shellIntegration';
import type { ShellIntegrationParams } from '../../protocol/shell';

export interface ShellLaunch {
  /** What is started instead of the session's argv. */
  argv: string[];
  /** The session's environment with the scripts' variables. */
  env: Record<string, string>;
  /** VSCODE_NONCE: what makes the command lines the shell reports trusted. */
  nonce: string;
}

/** Whether every file `shell` needs is a regular file in `scripts` (stat only: nothing is opened). */
function hasScripts(scripts: string, files: readonly string[]): boolean {
  return files.every((file) => fs.statSync(path.join(scripts, file), { throwIfNoEntry: false })?.isFile() === true);
}

/** `dest` is a link to `source` afterwards. */
function link(source: string, dest: string): void {
  let current: string | undefined;
  try {
    current = fs.readlinkSync(dest);
  } catch {
    current = undefined; // missing, or not a link: made below
  }
  if (current === source) return;
  fs.rmSync(dest, { force: true });
  fs.symlinkSync(source, dest);
}

export class ShellStarts {
  /** The scripts folder a client last gave (and that had the scripts): used when a request names none. */
  private known: string | undefined;

  constructor(
    /** A private folder (beside the socket) for zsh's startup files. */
    private readonly zdotRoot: string,
    private readonly log: (line: string) => void,
    known?: string,
  ) {
    this.known = known;
  }

  /** The scripts folder sessions get when a request names none (handed to a successor). */
  get scripts(): string | undefined {
    return this.known;
  }

  /**
   * How to start argv with shell integration, or undefined when it starts unchanged: not a shell
   * VS Code's scripts serve (or not with these arguments), or no scripts folder known.
   */
  launch(
    argv: string[],
    env: Record<string, string>,
    home: string,
    params: ShellIntegrationParams,
  ): ShellLaunch | undefined {
    const shell = integratedShellOf(argv[0] ?? '');
    if (!shell) return undefined;
    const given = params.scripts;
    if (given && given !== this.known) {
      if (hasScripts(given, SCRIPT_FILES.bash)) this.known = given;
      else this.log(`shell integration: no VS Code scripts in ${given}: kept ${this.known ?? 'none'}`);
    }
    const scripts = this.known;
    if (!scripts || !hasScripts(scripts, SCRIPT_FILES[shell])) return undefined;
    const nonce = params.nonce ?? randomUUID();
    const zdotdir = path.join(this.zdotRoot, createHash('sha256').update(scripts).digest('hex').slice(0, 16));
    const injection = shellInjection({ argv, env, scripts, nonce, home, zdotdir });
    if (!injection) return undefined;
    if (injection.links.length > 0) {
      fs.mkdirSync(zdotdir, { recursive: true, mode: 0o700 });
      for (const { source, dest } of injection.links) link(source, dest);
    }
    return { argv: injection.argv, env: { ...env, ...injection.env }, nonce };
  }
}
