// What a workspace (a cloned repository's .vscode/settings.json) and the window it is open in may
// change: the daemon-wide recovery settings count only from the user's own settings, and the MCP
// server the extension offers to agent mode never carries full rights without a trusted folder.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { mcpServerArgs } from '../src/extension/mcpArgs';
import { record } from './helpers/reliability';

const ROOT = path.join(__dirname, '..', '..');

interface Setting {
  scope?: string;
}

test("regression: a workspace's holdfast.recovery.* settings changed the daemon's config for every session", () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const properties = manifest.contributes.configuration.properties as Record<string, Setting>;
  const recovery = Object.keys(properties).filter((key) => key.startsWith('holdfast.recovery.'));
  assert.deepEqual(recovery.sort(), [
    'holdfast.recovery.enabled',
    'holdfast.recovery.intervalSeconds',
    'holdfast.recovery.keep',
    'holdfast.recovery.screenText',
  ]);
  // Machine scope: VS Code ignores a workspace's (or folder's) value, trusted or not.
  for (const key of recovery) assert.equal(properties[key].scope, 'machine', key);
  // And the mirror reads only the user's own value.
  const mirror = fs.readFileSync(path.join(ROOT, 'src', 'extension', 'recoverySettings.ts'), 'utf8');
  assert.match(mirror, /settings\.inspect<unknown>\(key\)\?\.globalValue/);
  assert.doesNotMatch(mirror, /settings\.get\(/);
  record({
    item: 'hostile',
    name: "a cloned repository's .vscode/settings.json with holdfast.recovery.screenText: true and enabled: false",
    value: "ignored: machine-scoped, only the user's own value is applied to the daemon (was: written to config.json)",
  });
});

test('regression: the MCP server offered to agent mode acted with full rights in a window without a folder', () => {
  const cli = '/ext/dist/cli.js';
  assert.deepEqual(mcpServerArgs(cli, '/home/me/project', true), [cli, 'mcp', '--sessions', 'workspace']);
  assert.deepEqual(mcpServerArgs(cli, '/home/me/project', false), [
    cli,
    'mcp',
    '--sessions',
    'workspace',
    '--read-only',
  ]);
  // No folder: nothing to scope to, so it reads every session and acts on none, trusted or not.
  assert.deepEqual(mcpServerArgs(cli, undefined, true), [cli, 'mcp', '--read-only']);
  assert.deepEqual(mcpServerArgs(cli, undefined, false), [cli, 'mcp', '--read-only']);
  record({
    item: 'hostile',
    name: "the MCP server VS Code's agent mode gets: a trusted folder, an untrusted one, a window without a folder",
    value: "--sessions workspace; and --read-only; --read-only (was: every session's acting tools, full rights)",
  });
});
