// The bundles of dist/ lie side by side wherever they are installed (the package, the extension's copy of
// the daemon): a client starts or loads another by its file, never by importing its source. The daemon is
// started as its own process (`holdfast new`, `serve`, start_session); the MCP server runs in the CLI's.
import * as path from 'node:path';

/** The daemon's bundles: it starts its worker threads and loads the checkpoint reader from its own folder. */
export const DAEMON_BUNDLES = ['daemon.js', 'searchWorker.js', 'emulatorWorker.js', 'checkpointReader.js'];

/** What a copy of Holdfast holds to run its daemon and CLI (the extension's copy, a host's install). */
export const RUNTIME_BUNDLES = [...DAEMON_BUNDLES, 'cli.js', 'mcp.js'];

/** The folder of this process's bundles (dist/ of the package or of a copy). */
export function bundleDir(): string {
  return __dirname;
}

/** node-pty beside the bundles, as the package and every copy of it lay them out. */
export function nodePtyDir(): string {
  return path.join(__dirname, '..', 'node_modules', 'node-pty');
}

/** The bundled daemon sits next to the bundled CLI and MCP server (dist/daemon.js beside dist/cli.js). */
export function daemonScriptPath(): string {
  return path.join(__dirname, 'daemon.js');
}

/** The --sessions keyword of `holdfast mcp` for "sessions of the directory the server runs in". */
export const WORKSPACE_KEYWORD = 'workspace';

/** What `holdfast mcp` hands the MCP server: where the daemon is, and the rights its command line gives. */
export interface McpServerOptions {
  socket: string;
  env: NodeJS.ProcessEnv;
  /** The server's directory: where a session starts unless told otherwise, and the root of "workspace". */
  cwd: string;
  readOnly: boolean;
  /** undefined: every session; else the --sessions entries (ids, names, WORKSPACE_KEYWORD). */
  sessions: string[] | undefined;
  /** $HOLDFAST_SESSION: the session the agent itself runs in, if it runs in one. */
  self?: string;
  /** --host: the SSH host whose daemon the server serves (src/link/hosts.ts's HostEntry), instead of `socket`'s. */
  host?: McpHost;
  /** Without --host: the hosts of config.json, whose sessions the server lists and searches too ("@HOST/ID"). */
  hosts?: McpHost[];
}

/** A host as src/link/hosts.ts's HostEntry says it. */
export interface McpHost {
  target: string;
  name?: string;
  command?: string;
  socket?: string;
  timeoutMs?: number;
}

/** What dist/mcp.js exports (its entry is src/mcp/mcpServer.ts). */
export interface McpServerBundle {
  /** Serves MCP on stdin/stdout until the client closes stdin. */
  serve(options: McpServerOptions): Promise<void>;
}

/** dist/mcp.js, loaded only when `holdfast mcp` runs: the MCP SDK is most of it and no other command needs it. */
export function loadMcpServer(): McpServerBundle {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- another bundle, found beside this one
  return require(path.join(__dirname, 'mcp.js')) as McpServerBundle;
}
