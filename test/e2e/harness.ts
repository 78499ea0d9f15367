// End-to-end harness: a real VS Code (code-server 4.139.1 = VS Code 1.139.1) driven
// through headless Debian Chromium with playwright-core, like a user would.
// Why this setup (no VS Code download is possible here; code-server is the same workbench and
// extension host): see the README. scripts/setup-e2e.sh installs it (linked from .vscode-test/).
//
//   const iso = new Isolation('reload');            // private XDG_RUNTIME_DIR, socket, state
//   const server = new CodeServer({ env: iso.env }); // fresh user-data-dir + extensions-dir
//   await server.start();
//   const wb = await Workbench.launch(server);       // persistent browser profile
//   await wb.open(workspace);
//   await wb.runCommand('Holdfast: New Terminal');
//   ...
//   await wb.close(); await server.dispose(); await iso.dispose();
//
// The scenarios import everything from here; each concern lives in its own module:
//   environment.ts      where code-server, Node 24 and Chromium are; the base settings
//   utilities.ts        trace, waitFor, sleep, free ports, temp dirs, executables
//   processes.ts        /proc: process trees, liveness, environments
//   isolation.ts        a test's private daemon socket and state; the CLI; daemon processes
//   codeServer.ts       the VS Code server: start, stop, extension hosts, logs
//   workbench.ts        a VS Code window in Chromium: open, reload, notifications, dialogs
//   quickInput.ts       the command palette, quick picks and input boxes
//   terminals.ts        terminal tabs, the visible terminal's text and keys, the Output view
//   artifacts.ts        screenshots and logs when a test fails
//   holdfastE2E.ts      what every scenario file sets up
//   sessionsWebview.ts  Holdfast's sidebar and wall of screens
export {
  ARTIFACTS_DIR,
  BASE_SETTINGS,
  CHROMIUM,
  CHROMIUM_ARGS,
  CODE_SERVER_ENTRY,
  CODE_SERVER_NODE,
  REPO_ROOT,
} from './environment';
export { freePort, makeTempDir, sleep, trace, waitFor, writeExecutable } from './utilities';
export type { WaitOptions } from './utilities';
export { allProcs, isAlive, processTree, readEnviron, readProc } from './processes';
export type { ProcInfo } from './processes';
export { CLI, daemonPids, Isolation } from './isolation';
export type { CliResult, SessionView } from './isolation';
export { CodeServer } from './codeServer';
export type { CodeServerOptions } from './codeServer';
export { Workbench } from './workbench';
export type { TerminalTab } from './terminals';
export { withArtifacts } from './artifacts';
export { busyUntilTheEnd } from './busyLoad';
export { E2E_SETTINGS, HoldfastE2E, NO_OTHER_TABS, otherTabs, PROMPT_RE, scenarioHooks } from './holdfastE2E';
export type { HoldfastE2EOptions, ScenarioOptions } from './holdfastE2E';
export { openSidebar, SessionsWebview } from './sessionsWebview';
