// Where a new session starts (the workspace folder), the environment it gets (sessionEnv.ts) and how
// its shell starts (VS Code's shell integration, shellIntegration.ts).
import * as os from 'node:os';
import * as vscode from 'vscode';
import type { ShellIntegrationParams } from '../protocol/shell';
import { buildSessionEnv } from './sessionEnv';

export interface SessionStart {
  cwd: string;
  env: Record<string, string>;
  shellIntegration?: ShellIntegrationParams;
}

export function sessionStart(
  pathPrepend: string[],
  shell: { shellIntegration?: ShellIntegrationParams },
  cliHook?: string,
): SessionStart {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  return {
    cwd: folder?.scheme === 'file' ? folder.fsPath : os.homedir(),
    env: buildSessionEnv(process.env, { pathPrepend, cliHook, termProgramVersion: vscode.version }),
    ...shell,
  };
}
