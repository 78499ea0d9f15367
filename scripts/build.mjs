// Bundles the daemon, the CLI and the extension with esbuild. node-pty stays external (native).
// The CLI holds no daemon code: `holdfast serve` and `holdfast new` start dist/daemon.js. Nor the MCP
// SDK: `holdfast mcp` loads dist/mcp.js (the server, most of it the SDK) only when it runs.
// The sessions webview (sidebar, wall of screens) is browser code: its own bundle and styles in dist/webview.
import * as esbuild from 'esbuild';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { forbiddenInputs } from './bundleRules.mjs';

const entries = {
  daemon: 'src/daemon/main.ts',
  // The daemon's worker thread for search and text waits (src/daemon/textWorkers.ts starts it).
  searchWorker: 'src/daemon/searchWorker.ts',
  // The daemon's worker threads that own the sessions' emulators (src/daemon/emulatorWorkers.ts starts them).
  emulatorWorker: 'src/daemon/emulatorWorker.ts',
  // The text workers' checkpoint reader, loaded on the first checkpoints job (src/daemon/search/textJobs.ts).
  checkpointReader: 'src/daemon/search/checkpointReader.ts',
  cli: 'src/cli/main.ts',
  mcp: 'src/mcp/mcpServer.ts',
  extension: 'src/extension/extension.ts',
  bench: 'bench/bench.ts',
};

const watch = process.argv.includes('--watch');
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  external: ['node-pty', 'vscode'],
  logLevel: 'warning',
  define: { HOLDFAST_VERSION: JSON.stringify(process.env.npm_package_version ?? '0.0.0') },
};

const builds = Object.entries(entries)
  .filter(([, file]) => existsSync(file))
  .map(([name, file]) =>
    esbuild.build({ ...common, entryPoints: [file], outfile: `dist/${name}.js`, metafile: true }).then((result) => {
      const problem = forbiddenInputs(name, result.metafile);
      if (problem) throw new Error(problem);
    }),
  );
builds.push(
  esbuild.build({
    bundle: true,
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
    sourcemap: true,
    logLevel: 'warning',
    entryPoints: ['src/extension/webview/main.ts'],
    outfile: 'dist/webview/sessions.js',
  }),
);
mkdirSync('dist/webview', { recursive: true });
copyFileSync('node_modules/@xterm/xterm/css/xterm.css', 'dist/webview/xterm.css');
copyFileSync('src/extension/webview/sessions.css', 'dist/webview/sessions.css');
await Promise.all(builds);
if (watch) console.log('watch mode is not supported; rerun npm run build');
