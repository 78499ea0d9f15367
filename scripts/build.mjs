// Bundles the daemon, the CLI and the extension with esbuild. node-pty stays external (native).
import * as esbuild from 'esbuild';
import { existsSync } from 'node:fs';

const entries = {
  daemon: 'src/daemon/main.ts',
  cli: 'src/cli/main.ts',
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
  .map(([name, file]) => esbuild.build({ ...common, entryPoints: [file], outfile: `dist/${name}.js` }));
await Promise.all(builds);
if (watch) console.log('watch mode is not supported; rerun npm run build');
