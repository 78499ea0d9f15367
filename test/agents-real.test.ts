// Each built-in agent profile's command lines, hooks included, against the real CLI's own option
// parsing (scripts/setup-agents.sh installs Claude Code, Codex CLI and Gemini CLI). Without
// credentials or network each stops right after parsing, with a message that proves it parsed:
// a bad option, id or hook setting gives another one, which the negative cases show.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { BUILTIN_AGENTS, resumeArgv, withAgentHooks } from '../src/agents/agents';

const BIN = path.resolve(__dirname, '..', '..', '.vscode-test', 'agents', 'node_modules', '.bin');
const NOTIFY = ['/usr/bin/env', 'ELECTRON_RUN_AS_NODE=1', process.execPath, '/opt/holdfast/dist/cli.js', 'notify'];
const UUID = '5f0c2b1e-8d3a-4c6b-9e7f-0a1b2c3d4e5f';
const NO_RELAUNCH = { GEMINI_CLI_NO_RELAUNCH: 'true' };
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hf-agents-'));
after(() => fs.rmSync(home, { recursive: true, force: true }));

/** Runs `argv` (its program from the installed CLIs) with stdin closed; its output, both streams. */
function run(argv: readonly string[]): Promise<string> {
  const program = path.join(BIN, argv[0]);
  assert.ok(fs.existsSync(program), `${program} is missing: run scripts/setup-agents.sh`);
  return new Promise((resolve) => {
    const child = execFile(
      program,
      argv.slice(1),
      // Gemini CLI would start itself again only to give Node a larger heap: the same parsing, twice the CPU.
      {
        cwd: home,
        env: { PATH: process.env.PATH, HOME: home, TERM: 'xterm-256color', ...NO_RELAUNCH },
        timeout: 60_000,
      },
      (_err, stdout, stderr) => resolve(stdout + stderr),
    );
    child.stdin?.end();
  });
}

function launchArgv(id: string): string[] {
  const profile = BUILTIN_AGENTS.find((p) => p.id === id)!;
  return withAgentHooks(
    profile.argv.map((a) => a.replace('{id}', UUID)),
    profile,
    NOTIFY,
  );
}

function resumeOf(id: string, sessionId?: string): string[] {
  const profile = BUILTIN_AGENTS.find((p) => p.id === id)!;
  const argv = resumeArgv({ agent: { profile: id, sessionId } });
  assert.ok(Array.isArray(argv), String(argv));
  return withAgentHooks(argv, profile, NOTIFY);
}

test('Claude Code: --settings hooks and --session-id start it; --resume takes the id', async () => {
  const started = await run([...launchArgv('claude'), '-p', 'hi']);
  assert.match(started, /Not logged in/);
  assert.doesNotMatch(started, /unknown option|Invalid|skipped|ignored|not found/i);
  const resumed = await run([...resumeOf('claude', UUID), '-p', 'hi']);
  // Past parsing, it looks for the conversation or, with hooks set, for a login first.
  assert.match(resumed, new RegExp(`Not logged in|No conversation found with session ID: ${UUID}`));
  assert.doesNotMatch(resumed, /unknown option|skipped|ignored/i);
  // The negative cases: a hook setting of the wrong shape, a bad id, an unknown option.
  const badHooks = await run(['claude', '--settings', '{"hooks":{"Stop":"x"}}', '-p', 'hi']);
  assert.match(badHooks, /skipped/);
  assert.match(await run(['claude', '--session-id', 'nope', '-p', 'hi']), /Invalid session ID/);
});

test('Codex CLI: -c notify=[...] is a valid config value; resume takes the reported thread id', async () => {
  const started = await run(launchArgv('codex'));
  assert.match(started, /stdin is not a terminal/);
  assert.doesNotMatch(started, /Error loading config/);
  const resumed = await run(resumeOf('codex', UUID));
  assert.deepEqual(resumeOf('codex', UUID).slice(-2), ['resume', UUID]);
  assert.match(resumed, /stdin is not a terminal/);
  assert.doesNotMatch(resumed, /Error loading config|error: unexpected argument/);
  assert.match(await run(['codex', '-c', 'notify="x"']), /Error loading config/);
  assert.match(await run(['codex', 'resume', '--bogus']), /unexpected argument/);
});

test('Gemini CLI: --session-id starts it with our id; --resume takes that id', async () => {
  const started = await run([...launchArgv('gemini'), '-p', 'hi']);
  assert.match(started, /Auth method/);
  assert.doesNotMatch(started, /Unknown argument/);
  const resumed = await run([...resumeOf('gemini', UUID), '-p', 'hi']);
  assert.match(resumed, /Error resuming session: No previous sessions found/);
  assert.match(await run(['gemini', '--bogus', '-p', 'hi']), /Unknown argument: bogus/);
});
