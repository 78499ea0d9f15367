// The command line of the `holdfast mcp` server the extension offers to VS Code's agent mode. Pure Node
// (no vscode import), unit-tested: what an agent in this window may reach is decided here.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).

/**
 * The workspace's sessions (`--sessions workspace`), read-only while the workspace is not trusted. A
 * window without a (local) folder has no workspace to scope to: every session, read-only, so acting
 * tools never carry the user's full rights.
 */
export function mcpServerArgs(cliScript: string, folder: string | undefined, trusted: boolean): string[] {
  return [
    cliScript,
    'mcp',
    ...(folder ? ['--sessions', 'workspace'] : []),
    ...(trusted && folder ? [] : ['--read-only']),
  ];
}
