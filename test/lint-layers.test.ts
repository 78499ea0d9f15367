// The layering of src/ (scripts/layers.mjs, spread into eslint.config.mjs) fails the lint on a
// wrong-way import: each snippet below is linted at a path inside the folder it would live in.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Case, lint } from './helpers/lint';

const importOf = (specifier: string): string => `import { x } from '${specifier}';\nexport const y = x;\n`;

const WRONG_WAY: Case[] = [
  { file: 'src/daemon/wrongWay.ts', code: importOf('../extension/x') },
  { file: 'src/daemon/wrongWay.ts', code: importOf('../cli/x') },
  { file: 'src/protocol/wrongWay.ts', code: importOf('../daemon/x') },
  { file: 'src/protocol/wrongWay.ts', code: importOf('../agents/agents') },
  { file: 'src/protocol/wrongWay.ts', code: importOf('../host/endpointTrust') },
  { file: 'src/host/wrongWay.ts', code: importOf('../client/client') },
  { file: 'src/client/wrongWay.ts', code: importOf('../link/daemonLink') },
  { file: 'src/base/wrongWay.ts', code: importOf('../text/printable') },
  { file: 'src/agents/prompts/wrongWay.ts', code: importOf('../../mcp/mcpTool') },
  { file: 'src/extension/wrongWay.ts', code: importOf('../mcp/mcpRights') },
  { file: 'src/cli/commands/wrongWay.ts', code: importOf('../../mcp/mcpTool') },
  { file: 'src/mcp/wrongWay.ts', code: importOf('../cli/output') },
  { file: 'src/mcp/wrongWay.ts', code: importOf('../cli/connect') },
  { file: 'src/mcp/wrongWay.ts', code: importOf('../cli/commands/io') },
  { file: 'src/mcp/wrongWay.ts', code: importOf('../cli/command') },
  { file: 'src/cli/commands/wrongWay.ts', code: importOf('../../mcp/mcpServer') },
  { file: 'src/cli/wrongWay.ts', code: importOf('../daemon/main') },
  { file: 'src/host/wrongWay.ts', code: importOf('vscode') },
  { file: 'src/extension/tabState.ts', code: importOf('vscode') },
  { file: 'src/extension/webview/wrongWay.ts', code: importOf('vscode') },
];

const RIGHT_WAY: Case[] = [
  { file: 'src/daemon/rightWay.ts', code: importOf('../protocol/messages') },
  { file: 'src/agents/prompts/rightWay.ts', code: importOf('../../text/printable') },
  { file: 'src/client/rightWay.ts', code: importOf('../host/endpointTrust') },
  { file: 'src/link/rightWay.ts', code: importOf('../client/client') },
  { file: 'src/cli/commands/rightWay.ts', code: importOf('./daemon') },
  { file: 'src/cli/commands/rightWay.ts', code: importOf('../../host/bundles') },
  { file: 'src/mcp/rightWay.ts', code: importOf('../client/clientOptions') },
  { file: 'src/mcp/rightWay.ts', code: importOf('../text/keys') },
  { file: 'src/host/rightWay.ts', code: importOf('../base/inputError') },
  { file: 'src/extension/tabs.ts', code: importOf('vscode') },
];

test('a wrong-way import between the folders of src/ is a lint error', async () => {
  const reports = await lint(WRONG_WAY);
  WRONG_WAY.forEach((c, i) => {
    assert.equal(reports[i].length, 1, `${c.file}: ${c.code.split('\n')[0]} gave ${JSON.stringify(reports[i])}`);
    assert.match(reports[i][0], /^no-restricted-imports: /);
  });
});

test('the imports the layering allows pass', async () => {
  const reports = await lint(RIGHT_WAY);
  RIGHT_WAY.forEach((c, i) => assert.deepEqual(reports[i], [], `${c.file}: ${c.code.split('\n')[0]}`));
});

const typeOf = (specifier: string): string => `import type { X } from '${specifier}';\nexport type Y = X;\n`;

/** Inside src/daemon: the main thread loads no worker's code, a worker none of the main thread's. */
const THREAD_WRONG_WAY: Case[] = [
  { file: 'src/daemon/sessions/wrongWay.ts', code: importOf('../emulator/emulator') },
  { file: 'src/daemon/clients/wrongWay.ts', code: importOf('../emulator/snapshot') },
  { file: 'src/daemon/wrongWay.ts', code: importOf('./search/textJobs') },
  { file: 'src/daemon/emulator/wrongWay.ts', code: importOf('../sessions/session') },
  { file: 'src/daemon/search/wrongWay.ts', code: importOf('../daemonError') },
  { file: 'src/daemon/common/wrongWay.ts', code: importOf('../emulator/xtermInternals') },
];

const THREAD_RIGHT_WAY: Case[] = [
  { file: 'src/daemon/sessions/rightWay.ts', code: typeOf('../emulator/emulator') },
  { file: 'src/daemon/sessions/rightWay.ts', code: importOf('../common/emulatorProtocol') },
  { file: 'src/daemon/emulator/rightWay.ts', code: importOf('../common/historyStore') },
  { file: 'src/daemon/emulator/rightWay.ts', code: typeOf('../sessions/session') },
  { file: 'src/daemon/emulatorWorker.ts', code: importOf('./emulator/emulatorHost') },
  { file: 'src/daemon/pty/rightWay.ts', code: importOf('../clients/channel') },
];

test("inside src/daemon, a thread's folder loads no other thread's code; types cross", async () => {
  const wrong = await lint(THREAD_WRONG_WAY);
  THREAD_WRONG_WAY.forEach((c, i) => {
    assert.equal(wrong[i].length, 1, `${c.file}: ${c.code.split('\n')[0]} gave ${JSON.stringify(wrong[i])}`);
    assert.match(wrong[i][0], /^@typescript-eslint\/no-restricted-imports: /);
  });
  const right = await lint(THREAD_RIGHT_WAY);
  THREAD_RIGHT_WAY.forEach((c, i) => assert.deepEqual(right[i], [], `${c.file}: ${c.code.split('\n')[0]}`));
});
