// The bundles of dist/ lie side by side wherever they are installed (the package, the extension's copy of
// the daemon): a client starts another by its file, never by importing its source. The daemon is
// started as its own process (`holdfast new`, `serve`, start_session).
import * as path from 'node:path';

/** The bundled daemon sits next to the bundled CLI and MCP server (dist/daemon.js beside dist/cli.js). */
export function daemonScriptPath(): string {
  return path.join(__dirname, 'daemon.js');
}
