// Hosts over SSH with a real sshd on loopback: `--host`, `list --all-hosts` with a local, a remote and a failing
// host, the one-line states of a host key unknown and a port nobody answers, and a remote session driven from here.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { type CliSandbox, isOneErrorLine, runCli } from './helpers/cli';
import { record } from './helpers/reliability';
import { hostsSandbox, NOBODY_THERE, REMOTE, type SshServer, startSshServer, UNKNOWN_KEY } from './helpers/sshd';

let box: CliSandbox;
let sshd: SshServer;
before(async () => {
  sshd = await startSshServer();
  box = hostsSandbox(sshd, [
    { target: REMOTE, name: 'remote' },
    { target: NOBODY_THERE, timeoutMs: 15_000 },
    // Hostile or broken far ends, through the real sshd: one never answers, one sends a 4 GiB frame header.
    { target: REMOTE, name: 'mute', command: 'read x #', timeoutMs: 1500 },
    { target: REMOTE, name: 'huge', command: "printf '\\377\\377\\377\\377\\001'; read x #" },
  ]);
});
after(async () => {
  await box?.cleanup();
  await sshd?.stop();
});

const BASH = ['--', 'bash', '--norc', '--noprofile'];

test('a remote session is started, driven and read over ssh, in the remote daemon alone', async () => {
  const id = (await box.ok(['--host', 'remote', 'new', '--name', 'far', '--env', 'PS1=far$ ', ...BASH])).trim();
  await box.ok(['--host', 'remote', 'send', 'far', '--text', 'echo remote-$((6*7))', '--enter']);
  await box.ok(['--host', 'remote', 'wait', 'far', '--for', 'text:^remote-42$', '--timeout-ms', '20000']);
  // HOLDFAST_HOST names the host as --host does.
  const screen = await runCli({ ...box.env, HOLDFAST_HOST: 'remote' }, ['read', id]);
  assert.equal(screen.code, 0, screen.stderr);
  assert.match(screen.stdout, /^remote-42$/m);
  // reply types a line and Enter; grep searches the host's sessions.
  await box.ok(['--host', 'remote', 'reply', 'far', 'echo', 'replied-$((5*5))']);
  await box.ok(['--host', 'remote', 'wait', 'far', '--for', 'text:^replied-25$', '--timeout-ms', '20000']);
  const found = await box.run(['--host', 'remote', 'grep', 'replied-25', '--json']);
  assert.equal(found.code, 0, found.stderr);
  assert.match(found.stdout, /replied-25/);
  // The remote daemon is the remote user's own: this machine's has no such session, and its token is not ours.
  const here = await box.run(['show', id]);
  assert.notEqual(here.code, 0);
  const remoteSocket = path.join(sshd.remoteEnv.XDG_RUNTIME_DIR!, 'holdfast', 'holdfast.sock');
  assert.ok(fs.existsSync(remoteSocket), 'the remote daemon listens in the remote XDG_RUNTIME_DIR');
  const remoteShow = JSON.parse(
    await (async () => {
      const r = await runCli({ ...sshd.remoteEnv }, ['show', id, '--json']);
      assert.equal(r.code, 0, r.stderr);
      return r.stdout;
    })(),
  ) as { name: string };
  assert.equal(remoteShow.name, 'far');
});

test('list --all-hosts: a HOST column for this machine and the remote, the failing host with its error', async () => {
  await box.ok(['new', '--name', 'near', ...BASH]);
  const result = await box.run(['list', '--all-hosts']);
  assert.equal(result.code, 1, 'a failing host makes the exit 1');
  const lines = result.stdout.split('\n');
  assert.match(lines[0], /^HOST\s+ID\s+NAME/);
  assert.ok(
    lines.some((l) => /^local\s+\S+\s+near\b/.test(l)),
    result.stdout,
  );
  assert.ok(
    lines.some((l) => /^remote\s+\S+\s+far\b/.test(l)),
    result.stdout,
  );
  assert.match(result.stdout, new RegExp(`^${NOBODY_THERE}: ssh: ${NOBODY_THERE} refused the connection`, 'm'));
  const json = JSON.parse((await box.run(['list', '--all-hosts', '--json'])).stdout) as {
    hosts: { host: string; sessions: { name: string }[]; error?: string }[];
  };
  assert.deepEqual(
    json.hosts.map((h) => [h.host, h.sessions.map((s) => s.name), h.error === undefined]),
    [
      ['local', ['near'], true],
      ['remote', ['far'], true],
      [NOBODY_THERE, [], false],
      ['mute', [], false],
      ['huge', [], false],
    ],
  );
});

test('a host whose key is unknown: one line naming the fix, never a prompt', async () => {
  const started = Date.now();
  const result = await box.run(['--host', UNKNOWN_KEY, 'list'], { timeoutMs: 30_000 });
  assert.equal(result.code, 1);
  assert.ok(isOneErrorLine(result.stderr), result.stderr);
  assert.match(result.stderr, new RegExp(`ssh: host key unknown — run \`ssh ${UNKNOWN_KEY}\` once`));
  const ms = Date.now() - started;
  assert.ok(ms < 30_000, `${ms} ms`);
  record({
    item: 'hostile',
    name: 'a host whose key is not in known_hosts (ssh BatchMode: no prompt)',
    value: `one line naming the fix (ssh: host key unknown — run \`ssh TARGET\` once) after ${ms} ms`,
    bound: '< 30000 ms',
  });
});

test('commands that only run here refuse --host with why; a target that would be an option is refused', async () => {
  const doctor = await box.run(['--host', 'remote', 'doctor']);
  assert.equal(doctor.code, 2);
  assert.match(
    doctor.stderr,
    /doctor checks this machine's files and daemon; on remote: ssh hf-remote holdfast doctor/,
  );
  const bad = await box.run(['--host=-oProxyCommand=x', 'list']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /does not start with "-"/);
});

test('a hostile far end costs a bounded wait and one line: one never answers, one sends a 4 GiB frame', async () => {
  let started = Date.now();
  const mute = await box.run(['--host', 'mute', 'list'], { timeoutMs: 30_000 });
  const muteMs = Date.now() - started;
  assert.equal(mute.code, 1);
  assert.ok(isOneErrorLine(mute.stderr), mute.stderr);
  assert.match(mute.stderr, /did not answer the handshake within 1500 ms/);
  assert.ok(muteMs < 15_000, `${muteMs} ms`);
  record({
    item: 'hostile',
    name: 'a host whose far end never answers (over a real sshd), `--host H list`; in `list --all-hosts`',
    value: `one line (no answer to the handshake within its 1.5 s timeoutMs) after ${muteMs} ms; the others listed`,
    bound: '< 15000 ms',
  });
  started = Date.now();
  const huge = await box.run(['--host', 'huge', 'list'], { timeoutMs: 30_000 });
  const hugeMs = Date.now() - started;
  assert.equal(huge.code, 1);
  assert.ok(isOneErrorLine(huge.stderr), huge.stderr);
  assert.match(huge.stderr, /frame of 4294967295 bytes exceeds the \d+-byte limit/);
  assert.ok(hugeMs < 15_000, `${hugeMs} ms`);
  record({
    item: 'hostile',
    name: 'a far end that answers with a 4 GiB frame header',
    value: `refused by the 32 MiB frame limit, nothing buffered; one line after ${hugeMs} ms`,
    bound: '< 15000 ms',
  });
});
