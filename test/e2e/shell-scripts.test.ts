// VS Code's own shell integration scripts (from the code-server the e2e installs) in shells a daemon
// starts, without a window: bash, zsh and fish, plain and login, load the user's rc files, print
// nothing of their own, report their commands (command lines signed with the nonce where VS Code's
// script signs them) so that `run` works; a shell or arguments VS Code does not inject into start
// unchanged; `holdfast new` from any shell gets the scripts folder the daemon was last given.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { VSCODE_SCRIPTS_FOLDER } from '../../src/host/shellIntegration';
import type { HoldfastClient } from '../../src/client/client';
import { runCli } from '../helpers/cli';
import { startTestDaemon, type TestDaemon, tempDir, waitFor } from '../helpers/daemon';
import { atPrompt } from '../helpers/marks';
import { CODE_SERVER_ENTRY } from './environment';

/** The scripts folder of the VS Code inside code-server (lib/vscode is its appRoot). */
const SCRIPTS = path.join(path.dirname(CODE_SERVER_ENTRY), '..', '..', 'lib', 'vscode', VSCODE_SCRIPTS_FOLDER);

let daemon: TestDaemon;
let client: HoldfastClient;
before(async () => {
  assert.ok(fs.existsSync(path.join(SCRIPTS, 'shellIntegration-bash.sh')), `VS Code's scripts in ${SCRIPTS}`);
  daemon = await startTestDaemon();
  client = await daemon.connect();
});
after(async () => {
  await daemon.stop();
});

/** A HOME whose rc files (for `shell`) set a short prompt and FROM_RC. */
function home(shell: string, login: boolean): string {
  const dir = tempDir(`hf-scripts-${shell}-`);
  const files: Record<string, [string, string]> = {
    bash: [login ? '.profile' : '.bashrc', "PS1='\\$ '\nexport FROM_RC=yes\n"],
    zsh: [login ? '.zprofile' : '.zshrc', "PS1='%# '\nexport FROM_RC=yes\n"],
    fish: [
      '.config/fish/config.fish',
      "set fish_greeting\nfunction fish_prompt; echo -n '> '; end\nset -gx FROM_RC yes\n",
    ],
  };
  const [file, text] = files[shell];
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
  // A HOME fish has started in before: its first interactive start makes completions from every man page in a
  // python3 of its own (shell-integration.test.ts measured ~20 CPU-s).
  if (shell === 'fish') fs.mkdirSync(path.join(dir, '.local/share/fish/generated_completions'), { recursive: true });
  return dir;
}

/** What process `pid` runs, once it has left the daemon's image for its program's (a fork, then exec). */
async function commandLineOf(pid: number): Promise<string[]> {
  const read = () => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  // Empty while the kernel swaps in the new program (seen under load), the daemon's own before the exec.
  const execd = () => {
    const argv = read();
    return argv.length > 0 && !argv.some((arg) => arg.endsWith('daemon.js'));
  };
  await waitFor(execd, 5000, `process ${pid} to exec its program`);
  return read();
}

async function screen(id: string): Promise<string[]> {
  return (await client.request('read', { session: id })).lines.filter((l) => l.trim() !== '');
}

for (const shell of ['bash', 'zsh', 'fish'])
  for (const login of [false, true])
    test(`${shell}${login ? ' -l' : ''}: VS Code's script, the rc file, nothing printed, exit codes`, async () => {
      const dir = home(shell, login);
      const { session } = await client.request('create', {
        argv: [`/usr/bin/${shell}`, ...(login ? ['-l'] : [])],
        cwd: dir,
        env: { HOME: dir, XDG_CONFIG_HOME: path.join(dir, '.config') },
        shellIntegration: { scripts: SCRIPTS },
      });
      // run waits for the first prompt of a shell that was just started.
      const rc = await client.request('run', { session: session.id, command: 'echo "rc: $FROM_RC"' });
      assert.equal(rc.output, 'rc: yes\n');
      const lines = await screen(session.id);
      assert.match(
        lines[0],
        /^[#$%>] echo "rc: \$FROM_RC"$/,
        `nothing before the first prompt: ${JSON.stringify(lines)}`,
      );
      assert.equal((await client.request('run', { session: session.id, command: 'false' })).exitCode, 1);
      // A command running: its line as the shell reported it, when VS Code's script signs it with the nonce.
      const running = client.request('run', { session: session.id, command: 'sleep 2; echo slept', timeoutMs: 30_000 });
      await waitFor(
        async () => (await client.request('show', { session: session.id })).session.shell?.phase === 'running',
        10_000,
        'running',
      );
      const { shell: state } = (await client.request('show', { session: session.id })).session;
      // VS Code's fish script loses its nonce (a `set -l` inside an if block): its command lines are not trusted.
      assert.equal(state?.command, shell === 'fish' ? undefined : 'sleep 2; echo slept');
      assert.deepEqual([(await running).output, (await running).exitCode], ['slept\n', 0]);
      await client.request('remove', { session: session.id });
    });

test('other shells and arguments start unchanged; holdfast new gets the known scripts', async () => {
  const dir = tempDir('hf-scripts-');
  const plain = async (argv: string[]) => {
    const { session } = await client.request('create', { argv, cwd: dir, shellIntegration: { scripts: SCRIPTS } });
    const cmdline = await commandLineOf(session.pid);
    await client.request('remove', { session: session.id });
    return cmdline;
  };
  assert.deepEqual(await plain(['sh', '-c', 'sleep 5; true']), ['sh', '-c', 'sleep 5; true']);
  assert.deepEqual(await plain(['bash', '--norc', '-c', 'sleep 5; true']), ['bash', '--norc', '-c', 'sleep 5; true']);
  // The CLI names no folder: the daemon's, the last a client gave it.
  const made = await runCli(daemon.env, ['new', '--cwd', dir, '--env', `HOME=${home('bash', false)}`, '--', 'bash']);
  assert.equal(made.code, 0, made.stderr);
  const id = made.stdout.trim();
  await atPrompt(client, id);
  const ran = await runCli(daemon.env, ['run', id, '--', 'echo', 'from-cli']);
  assert.deepEqual([ran.code, ran.stdout], [0, 'from-cli\n']);
  const offHome = home('bash', false);
  const off = await runCli(daemon.env, [
    'new',
    '--cwd',
    dir,
    '--env',
    `HOME=${offHome}`,
    '--shell-integration',
    'off',
    '--',
    'bash',
  ]);
  const offId = off.stdout.trim();
  await client.request('wait', { session: offId, condition: { kind: 'text', pattern: '^[#$] *$' }, timeoutMs: 10_000 });
  const shown = JSON.parse((await runCli(daemon.env, ['show', offId, '--json'])).stdout);
  assert.equal(shown.shell, undefined, '--shell-integration off: no marks');
  assert.deepEqual(await commandLineOf(shown.pid), ['bash']);
  await client.request('remove', { session: id });
  await client.request('remove', { session: offId });
});
