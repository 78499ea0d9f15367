// Where the e2e finds what it runs (code-server and its Node, Chromium) and the settings every test VS Code
// starts with. scripts/setup-e2e.sh installs code-server and its Node (linked from .vscode-test/).
import * as path from 'node:path';

/** The repository (this file compiles to out/test/e2e/environment.js). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const ARTIFACTS_DIR = path.join(REPO_ROOT, 'test-artifacts');
const CACHE = path.join(REPO_ROOT, '.vscode-test');

/**
 * Which code-server the e2e drives: the newest (4.139.1 = VS Code 1.139.1) or, with HOLDFAST_E2E_OLDEST=1,
 * the oldest VS Code Holdfast supports (4.96.4 = VS Code 1.96.4, package.json's engines.vscode). Both are
 * installed by scripts/setup-e2e.sh; `npm test` runs a second pass of some files on the oldest.
 */
export const OLDEST = process.env.HOLDFAST_E2E_OLDEST === '1';
const INSTALL = OLDEST
  ? { node: 'node-oldest', codeServer: 'code-server-oldest' }
  : { node: 'node24', codeServer: 'code-server' };
/** The Node code-server runs on (each version refuses other majors: 24 for the newest, 20 for the oldest). */
export const CODE_SERVER_NODE =
  process.env.HOLDFAST_E2E_NODE || path.join(CACHE, INSTALL.node, 'package', 'bin', 'node');
/** code-server's entry script, run with CODE_SERVER_NODE. */
export const CODE_SERVER_ENTRY =
  process.env.HOLDFAST_E2E_CODE_SERVER_ENTRY ||
  path.join(CACHE, INSTALL.codeServer, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
/** The built-in extensions of that code-server's VS Code (git, emmet, the language features, the themes, ...). */
export const BUILTIN_EXTENSIONS_DIR = path.join(path.dirname(CODE_SERVER_ENTRY), '../../lib/vscode/extensions');
/**
 * The built-in extensions a test VS Code loads unless a file asks for all of them: the default themes. The others
 * (git and GitHub, which start at once and run git; emmet, merge-conflict, debug-auto-launch; npm and the JSON
 * language server, which the settings files wake) cost a third of a window load's CPU (docs/testing.md) and no
 * scenario needs them; worktree and mcp keep them all, a user's setup.
 */
export const E2E_BUILTIN_EXTENSIONS = ['theme-defaults', 'theme-seti'];
/**
 * Chromium's headless shell (Debian's chromium-headless-shell): the renderer a person's Chromium has, without the
 * desktop browser around it, whose browser process took 2.0-3.1 CPU-s a start against 1.5-1.6 (crash.test).
 */
export const CHROMIUM = process.env.HOLDFAST_E2E_CHROMIUM || '/usr/bin/chromium-headless-shell';
/**
 * Chromium features the e2e turns off: the address bar's WebUI popup, which a headless browser preloads in a renderer
 * of its own at every start (0.7-1.2 CPU-s), for an address bar no test has. Chromium reads only the last
 * --disable-features, so these join playwright's own list (workbench.ts).
 */
export const CHROMIUM_DISABLED_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'PreloadTopChromeWebUI'];
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The settings every test VS Code starts with (E2E.md), plus what makes the UI inspectable. */
export const BASE_SETTINGS: Record<string, unknown> = {
  'workbench.startupEditor': 'none',
  'security.workspace.trust.enabled': false,
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'update.mode': 'none',
  'telemetry.telemetryLevel': 'off',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'chat.disableAIFeatures': true,
  'chat.commandCenter.enabled': false,
  // Terminal tabs always listed, even for one terminal, so tests can read names and order.
  'terminal.integrated.tabs.enabled': true,
  'terminal.integrated.tabs.hideCondition': 'never',
  // DOM renderer: the terminal's text is in the page, readable by tests.
  'terminal.integrated.gpuAcceleration': 'off',
  'window.confirmBeforeClose': 'never',
  'window.restoreWindows': 'none',
};
