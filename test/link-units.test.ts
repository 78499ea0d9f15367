// src/link without ssh: what `--host X` names, ssh's command line, ssh's failures in one line, and what the bridge
// puts into a client's hello (its own token, never over a credential the client brought).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withToken } from '../src/link/bridge';
import { hostEntrySchema, parseHostSetting, resolveHost } from '../src/link/hosts';
import { parseProbe, unameTarget } from '../src/link/hostInstall';
import { sshArgs } from '../src/link/sshStream';
import { SshFailure, sshFailure } from '../src/link/sshFailure';
import { HostConnection } from '../src/extension/hostConnection';
import { hostFix } from '../src/extension/hostFix';
import { compareVersions, ProtocolMismatchError } from '../src/protocol/version';
import { encodeJson, FrameDecoder, FrameKind } from '../src/protocol/frame';

test('--host names: local, a configured name or target, else an ssh target that can never be an option', () => {
  const hosts = [{ target: 'me@gpu.example', name: 'gpu' }];
  assert.equal(resolveHost('local', hosts), undefined);
  assert.deepEqual(resolveHost('gpu', hosts), hosts[0]);
  assert.deepEqual(resolveHost('me@gpu.example', hosts), hosts[0]);
  assert.deepEqual(resolveHost('dev-vm', hosts), { target: 'dev-vm' });
  assert.throws(() => resolveHost('-oProxyCommand=touch x', hosts), /does not start with "-"/);
  assert.throws(() => resolveHost('a\u001bb', hosts), /one word|control/);
  assert.equal(hostEntrySchema.safeParse({ target: 'local' }).success, false);
  assert.equal(hostEntrySchema.safeParse({ target: 'x', command: 'holdfast\nrm -rf ~' }).success, false);
});

test("the holdfast.hosts setting: targets or entries checked as the config file's; bad ones left out with why", () => {
  const { hosts, problems } = parseHostSetting([
    'gpu-box',
    { target: 'me@dev.example', name: 'dev', timeoutMs: 5000 },
    '-oProxyCommand=touch x',
    'local',
    { target: 'x', command: 'holdfast\nrm -rf ~' },
    { target: 'y', extra: 1 },
    42,
    { target: 'other', name: 'dev' },
  ]);
  assert.deepEqual(hosts, [{ target: 'gpu-box' }, { target: 'me@dev.example', name: 'dev', timeoutMs: 5000 }]);
  assert.equal(problems.length, 6, problems.join('\n'));
  assert.match(
    problems[0],
    /^holdfast\.hosts\[2\]: the entry: an SSH target is one word that does not start with "-"$/,
  );
  assert.match(problems[1], /^holdfast\.hosts\[3\]: .*names this machine/);
  assert.match(problems[2], /^holdfast\.hosts\[4\]: command: /);
  assert.match(problems[5], /^holdfast\.hosts\[7\]: another host is called "dev"$/);
  for (const line of problems) assert.doesNotMatch(line, /\n/);
  assert.deepEqual(parseHostSetting('gpu').hosts, []);
  assert.equal(parseHostSetting('gpu').problems.length, 1);
  assert.deepEqual(parseHostSetting(undefined), { hosts: [], problems: [] });
});

test("ssh's arguments: no prompt, no forwarding, no escape character, the target after --", () => {
  const args = sshArgs({ target: 'gpu', socket: '/run/x y.sock' }, { start: true });
  const dashes = args.indexOf('--');
  assert.deepEqual(args.slice(dashes, -1), ['--', 'gpu']);
  // The default command: holdfast on the PATH, else the newest install of ~/.holdfast, in a `sh -c` of one line.
  assert.match(args.at(-1)!, /^sh -c '[^'\n]*command -v holdfast[^'\n]*\.holdfast\/holdfast[^'\n]*' holdfast bridge/);
  assert.ok(args.at(-1)!.endsWith(" holdfast bridge --socket '/run/x y.sock' --start"), args.at(-1));
  const own = sshArgs({ target: 'gpu', command: '~/bin/holdfast', socket: '/run/x y.sock' });
  assert.equal(own.at(-1), "~/bin/holdfast bridge --socket '/run/x y.sock'");
  for (const option of ['BatchMode=yes', 'ClearAllForwardings=yes', 'PermitLocalCommand=no'])
    assert.ok(args.includes(option), option);
  for (const flag of ['-T', '-a', '-x']) assert.ok(args.slice(0, dashes).includes(flag), flag);
  assert.equal(args[args.indexOf('-e') + 1], 'none');
});

test("ssh's failures: one line naming the fix, and whether trying again can help", () => {
  const cases: [number | null, string, RegExp, string][] = [
    [255, 'Host key verification failed.\r\n', /^ssh: host key unknown — run `ssh h` once$/, 'permanent'],
    [
      255,
      'No ED25519 host key is known for [h]:22 and you have requested strict checking.',
      /host key unknown/,
      'permanent',
    ],
    [255, '@@@ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @@@', /host key of h has changed/, 'permanent'],
    [255, 'me@h: Permission denied (publickey,password).', /refused the login .*`ssh-copy-id h`/, 'permanent'],
    [255, 'ssh: connect to host h port 22: Connection refused', /^ssh: h refused the connection/, 'transient'],
    [255, 'ssh: Could not resolve hostname h: Name or service not known', /cannot resolve/, 'transient'],
    [127, 'sh: 1: holdfast: not found', /^holdfast is not installed on h/, 'permanent'],
    [3, '\u001b]52;c;aGk=\u0007evil', /exited with status 3: \\u\{1b\}\]52/, 'transient'],
  ];
  for (const [status, stderr, line, kind] of cases) {
    const failure = sshFailure('h', 'holdfast bridge', status, null, stderr);
    assert.match(failure.message, line, stderr);
    assert.equal(failure.kind, kind, stderr);
    assert.doesNotMatch(failure.message, /[\n\u001b\u0007]/);
  }
  assert.match(sshFailure('h', 'holdfast bridge', null, 'SIGKILL', '').message, /ended by SIGKILL/);
  // The default command, found nowhere: the install is offered; an old holdfast that cannot bridge says so.
  assert.match(sshFailure('h', undefined, 127, null, 'holdfast: not found').message, /`holdfast host install h`/);
  assert.match(
    sshFailure('h', undefined, 2, null, 'holdfast: unknown command "bridge" (see `holdfast help`)').message,
    /too old to bridge .*`holdfast host install h`/,
  );
});

test("the bridge puts its own token into a hello that has none, and leaves a client's credential alone", () => {
  const decode = (frame: Buffer) => {
    const [decoded] = new FrameDecoder().push(frame);
    return { kind: decoded.kind, body: JSON.parse(decoded.payload.toString()) as Record<string, unknown> };
  };
  const hello = (body: unknown) => new FrameDecoder().push(encodeJson(FrameKind.Hello, body))[0];
  const own = () => 'host-token';
  assert.deepEqual(decode(withToken(hello({ protocol: 1, client: 'cli' }), own)).body, {
    protocol: 1,
    client: 'cli',
    token: 'host-token',
  });
  assert.equal(decode(withToken(hello({ protocol: 1, token: 'granted' }), own)).body.token, 'granted');
  // Anything else goes on as it came, for the daemon to refuse with its own words.
  const request = new FrameDecoder().push(encodeJson(FrameKind.Request, { id: 1 }))[0];
  assert.equal(decode(withToken(request, own)).kind, FrameKind.Request);
  assert.equal(decode(withToken(request, own)).body.token, undefined);
});

test("the install's probe: the host's words checked, its platform named in Node's words or refused", () => {
  const probe = parseProbe('uname Linux aarch64\nnode v22.1.0 /opt/node/bin/node\ninstalled 0.1.0-abc\nend\n');
  assert.deepEqual(probe, {
    uname: 'Linux aarch64',
    node: { version: 'v22.1.0', path: '/opt/node/bin/node' },
    installed: ['0.1.0-abc'],
  });
  assert.equal(parseProbe('uname Linux x86_64\nnode none\nend\n')?.node, null);
  assert.equal(parseProbe('uname Linux x86_64\n'), undefined, 'a probe cut short is no answer');
  assert.equal(parseProbe('uname Linux x86_64\nnode none\ninstalled ../../x\nend\n'), undefined);
  assert.equal(unameTarget('Linux x86_64'), 'linux-x64');
  assert.equal(unameTarget('Darwin arm64'), 'darwin-arm64');
  assert.equal(unameTarget('FreeBSD amd64'), undefined);
  assert.equal(unameTarget('Linux armv7l'), undefined);
});

test("a host's fix: the install where holdfast is found nowhere, the upgrade where its daemon is too old", async () => {
  const failing = (error: Error) =>
    new HostConnection({ name: 'h', connect: () => Promise.reject(error), lossOf: () => undefined }, () => undefined);
  const cases: [Error, string | undefined][] = [
    [new SshFailure('holdfast is not installed on h', 'permanent', true), 'install'],
    [new SshFailure('~/bin/holdfast is not installed on h', 'permanent'), undefined], // its own command: no offer
    [new ProtocolMismatchError('daemon-too-old', 0, '0.0.1'), 'upgrade'],
    [new ProtocolMismatchError('daemon-too-new', 3, '9.0.0'), undefined],
    [new SshFailure('ssh: host key unknown', 'permanent'), undefined],
  ];
  for (const [error, fix] of cases) {
    const connection = failing(error);
    await new Promise<void>((resolve) => {
      if (connection.state.kind === 'failed') return resolve();
      connection.onDidChangeState((state) => state.kind === 'failed' && resolve());
    });
    assert.equal(hostFix(connection), fix, error.message);
    connection.dispose();
  }
  assert.equal(compareVersions('0.0.9', '0.1.0')! < 0, true);
  assert.equal(compareVersions('0.10.0', '0.9.1')! > 0, true);
  assert.equal(compareVersions('1.2.3', '1.2.3'), 0);
  assert.equal(compareVersions('dev', '0.1.0'), undefined, 'a dev build is never told to upgrade');
});
