// VS Code's shell integration in Holdfast's shells: the scripts of the VS Code this extension runs in
// (its appRoot), the user's `terminal.integrated.shellIntegration.enabled`, and each session's nonce.
// VS Code trusts a command line a shell reports only when it carries the nonce the tab was created
// with (shellIntegrationNonce), so a session's tab is made with the nonce its shell was started with:
// kept in globalState, a reload, a restart or another window reopens its tabs with it.
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { VSCODE_SCRIPTS_FOLDER } from '../host/shellIntegration';
import type { ShellIntegrationParams } from '../protocol/shell';

const NONCES_KEY = 'holdfast.shellNonces';
/** Sessions whose nonce is kept (the oldest go first): far more than a user has tabs. */
const MAX_NONCES = 500;

export class ShellIntegration {
  /** VS Code's scripts folder, when this VS Code has one where VS Code keeps it. */
  readonly scripts: string | undefined;

  constructor(
    private readonly state: vscode.Memento,
    appRoot: string = vscode.env.appRoot,
  ) {
    const dir = path.join(appRoot, VSCODE_SCRIPTS_FOLDER);
    this.scripts = fs.existsSync(path.join(dir, 'shellIntegration-bash.sh')) ? dir : undefined;
  }

  /** The user's VS Code setting, as VS Code's own terminals follow it. */
  get enabled(): boolean {
    return (
      vscode.workspace.getConfiguration('terminal.integrated').get<boolean>('shellIntegration.enabled', true) !== false
    );
  }

  /** What `create` and `relaunch` ask for a shell whose tab has `nonce` (nothing when the setting is off). */
  params(nonce: string | undefined): { shellIntegration?: ShellIntegrationParams } {
    if (!this.enabled || !nonce) return {};
    return { shellIntegration: { ...(this.scripts ? { scripts: this.scripts } : {}), nonce } };
  }

  /** The nonce a tab of session `id` is made with: its shell's, else a new one (a relaunch there gets it). */
  nonceFor(id?: string): string {
    return (id && this.nonces()[id]) || randomUUID();
  }

  /** Session `id`'s shell was started with `nonce`. */
  remember(id: string, nonce: string | undefined): void {
    const nonces = this.nonces();
    if (!nonce || nonces[id] === nonce) return;
    const entries = Object.entries(nonces).filter(([key]) => key !== id);
    entries.push([id, nonce]);
    void this.state.update(NONCES_KEY, Object.fromEntries(entries.slice(-MAX_NONCES)));
  }

  private nonces(): Record<string, string> {
    const value = this.state.get<unknown>(NONCES_KEY);
    return value && typeof value === 'object' ? (value as Record<string, string>) : {};
  }
}
