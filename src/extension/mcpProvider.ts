// Offers `holdfast mcp` to VS Code's agent mode (VS Code 1.101+: vscode.lm.registerMcpServerDefinitionProvider),
// run with VS Code's own Node and this window's daemon socket, limited to this workspace's sessions (mcpArgs.ts).
// @types/vscode is 1.95, so the API is declared here and looked up at run time; older VS Code gets nothing.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { DisposableStore } from '../base/disposable';
import { mcpServerArgs } from './mcpArgs';

/** The id in package.json's contributes.mcpServerDefinitionProviders. */
export const MCP_PROVIDER_ID = 'holdfast.mcp';

interface McpStdioServerDefinition {
  cwd?: vscode.Uri;
}

interface McpServerDefinitionProvider {
  readonly onDidChangeMcpServerDefinitions?: vscode.Event<void>;
  provideMcpServerDefinitions(token: vscode.CancellationToken): McpStdioServerDefinition[];
}

/** The part of the 1.101 API this file uses. */
interface McpApi {
  lm?: {
    registerMcpServerDefinitionProvider?(id: string, provider: McpServerDefinitionProvider): vscode.Disposable;
  };
  McpStdioServerDefinition?: new (
    label: string,
    command: string,
    args?: string[],
    env?: Record<string, string | number | null>,
    version?: string,
  ) => McpStdioServerDefinition;
}

export function registerMcpProvider(
  context: vscode.ExtensionContext,
  socket: string,
  log: vscode.LogOutputChannel,
): vscode.Disposable {
  const api = vscode as unknown as McpApi;
  const Definition = api.McpStdioServerDefinition;
  if (typeof api.lm?.registerMcpServerDefinitionProvider !== 'function' || typeof Definition !== 'function')
    return { dispose: () => undefined }; // VS Code before 1.101: no agent-mode MCP
  const store = new DisposableStore();
  const changed = store.add(new vscode.EventEmitter<void>());
  store.add(vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()));
  store.add(vscode.workspace.onDidGrantWorkspaceTrust(() => changed.fire()));
  const cliScript = path.join(context.extensionPath, 'dist', 'cli.js');
  const version = (context.extension.packageJSON as { version?: string }).version ?? '0.0.0';
  const provider: McpServerDefinitionProvider = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () => {
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
      const local = folder?.scheme === 'file' ? folder : undefined;
      const args = mcpServerArgs(cliScript, local?.fsPath, vscode.workspace.isTrusted);
      // VS Code's Electron runs the CLI as Node; the socket is this window's, whatever the setting says.
      const env = { ELECTRON_RUN_AS_NODE: '1', HOLDFAST_SOCKET: socket };
      const server = new Definition('Holdfast', process.execPath, args, env, version);
      if (local) server.cwd = local;
      return [server];
    },
  };
  try {
    store.add(api.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, provider));
    log.info('holdfast mcp is offered to agent mode');
  } catch (err) {
    // A newer API that changed shape must not stop the terminals from working.
    log.warn(`offering holdfast mcp to agent mode: ${(err as Error).message}`);
  }
  return store;
}
