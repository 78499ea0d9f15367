// Who may import whom in src/, as ESLint configs (eslint.config.mjs spreads them; test/lint-layers.test.ts
// lints wrong-way imports with them alone). The map in words: docs/architecture.md.
//
// Shared folders, lowest first; each imports only the ones before it. protocol is the wire (frames, messages,
// their schemas); host what every process shares of this machine (paths, trust, bundles); client connects,
// verifies, asks again and launches a daemon, over both; link reaches another host's daemon over ssh:
//   base <- text <- protocol <- host <- client <- link;  agents imports base, text, protocol and host
// Sides: daemon, cli, mcp and extension import the shared folders, never each other. A side starts or
// loads another by its bundle (src/host/bundles.ts): `holdfast mcp` is a CLI command that loads dist/mcp.js.
// Only src/extension imports vscode, and not its files headed `// Pure Node:` nor its webview.
import * as fs from 'node:fs';
import * as path from 'node:path';
import tseslint from 'typescript-eslint';

const SHARED = ['base', 'text', 'protocol', 'host', 'client', 'link', 'agents'];
const SIDES = ['daemon', 'cli', 'mcp', 'extension'];

/** What each folder of src/ may import besides itself. */
export const LAYERS = {
  base: [],
  text: ['base'],
  protocol: ['base', 'text'],
  host: ['base', 'text', 'protocol'],
  client: ['base', 'text', 'protocol', 'host'],
  link: ['base', 'text', 'protocol', 'host', 'client'],
  agents: ['base', 'text', 'protocol', 'host'],
  daemon: SHARED,
  cli: SHARED,
  mcp: SHARED,
  extension: SHARED,
};

const WHY = {
  base: 'src/base is the bottom layer: it imports no other folder of src',
  text: 'src/text imports only src/base',
  protocol: 'src/protocol (the wire) imports only src/base and src/text',
  host: 'src/host imports only src/base, src/text and src/protocol',
  agents: 'src/agents imports only the shared folders below it (base, text, protocol, host)',
  client: 'src/client imports only the shared folders below it (base, text, protocol, host)',
  link: 'src/link imports only the shared folders below it (base, text, protocol, host, client)',
};

/** A relative specifier that leaves the file's folder for src/FOLDER (`../x/y`, `../../x/y`). */
function into(folders) {
  return `^(\\.\\./)+(${folders.join('|')})(/|$)`;
}

function restrictionsFor(folder) {
  const forbidden = [...SHARED, ...SIDES].filter((f) => f !== folder && !LAYERS[folder].includes(f));
  const message = WHY[folder] ?? `src/${folder} imports the shared folders (${SHARED.join(', ')}), no other side`;
  // Never empty: every folder forbids at least the sides other than itself.
  const patterns = [{ regex: into(forbidden), message: `${message}; move what is shared down.` }];
  const paths = folder === 'extension' ? [] : [{ name: 'vscode', message: 'only src/extension imports vscode.' }];
  return { paths, patterns };
}

/** src/extension's files headed `// Pure Node:` (loaded by unit tests without VS Code). */
export function pureNodeFiles(root) {
  const dir = path.join(root, 'src', 'extension');
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.ts'))
    .filter((name) => /^\/\/ Pure Node:/m.test(fs.readFileSync(path.join(dir, name), 'utf8').slice(0, 2000)))
    .map((name) => `src/extension/${name}`);
}

function configs(root) {
  const folders = Object.keys(LAYERS).map((folder) => ({
    files: [`src/${folder}/**/*.ts`],
    rules: { 'no-restricted-imports': ['error', restrictionsFor(folder)] },
  }));
  const ext = restrictionsFor('extension');
  const noVscode = { name: 'vscode', message: 'a Pure Node file (or the webview) runs without VS Code.' };
  const pureNode = {
    files: [...pureNodeFiles(root), 'src/extension/webview/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [noVscode], patterns: ext.patterns }] },
  };
  return [...folders, pureNode];
}

// Inside src/daemon, folders by thread (docs/architecture.md, "Threads"): emulator/ runs only in the emulator
// workers and search/ only in the text workers (each loaded by its entry at the daemon's root: emulatorWorker.ts,
// searchWorker.ts); common/ in any thread. The main thread's code (the root, pty/, clients/, sessions/,
// succession/) takes from the workers' folders only types: their modules, and @xterm/headless with them, never
// load there (scripts/bundleRules.mjs checks the bundles too). The workers' and common code take nothing from the
// main thread's folders but types.
const DAEMON_MAIN = ['pty', 'clients', 'sessions', 'succession'];
const DAEMON_WORKERS = ['emulator', 'search'];
const WORKER_ENTRIES = ['src/daemon/emulatorWorker.ts', 'src/daemon/searchWorker.ts'];

function daemonRule(regex, message) {
  const pattern = { regex, message, allowTypeImports: true };
  return { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [pattern] }] };
}

const threadConfigs = [
  { files: ['src/daemon/**/*.ts'], plugins: { '@typescript-eslint': tseslint.plugin } },
  {
    files: ['src/daemon/*.ts', ...DAEMON_MAIN.map((f) => `src/daemon/${f}/**/*.ts`)],
    ignores: WORKER_ENTRIES,
    rules: daemonRule(
      `^(\\./|(\\.\\./)+)(${DAEMON_WORKERS.join('|')})/`,
      "the daemon's main thread loads no worker's code (daemon/emulator, daemon/search): import its types only.",
    ),
  },
  {
    files: [...DAEMON_WORKERS, 'common'].map((f) => `src/daemon/${f}/**/*.ts`),
    rules: daemonRule(
      `^\\.\\./(${DAEMON_MAIN.join('|')})/|^\\.\\./[^/]+$`,
      "a worker's code (and src/daemon/common) loads none of the main thread's: import its types only.",
    ),
  },
  {
    files: ['src/daemon/common/**/*.ts'],
    rules: daemonRule(
      `^\\.\\./(${[...DAEMON_MAIN, ...DAEMON_WORKERS].join('|')})/|^\\.\\./[^/]+$`,
      'src/daemon/common runs in every thread: it loads only itself and the shared folders.',
    ),
  },
];

export const layerConfigs = [
  ...configs(path.dirname(path.dirname(new URL(import.meta.url).pathname))),
  ...threadConfigs,
];
