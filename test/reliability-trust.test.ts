// Security: a client sends nothing to a socket path it cannot prove is this user's own daemon.
// Another user is played by uid 65534: the tests run as root, and root's clients must still refuse.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { HoldfastClient, NoDaemonError, type RequestError } from '../src/client/client';
import { checkEndpoint, UntrustedEndpointError } from '../src/host/endpointTrust';
import { cliSandbox } from './helpers/cli';
import { checkpointJson } from './helpers/checkpoint';
import { startTestDaemon } from './helpers/daemon';
import { record } from './helpers/reliability';

const OTHER_UID = 65534;

/** A fake daemon in `dir`: accepts connections and records every byte a client sends it. */
async function fakeDaemon(dir: string): Promise<{ socket: string; received: () => number; close(): Promise<void> }> {
  const socket = path.join(dir, 'holdfast.sock');
  let bytes = 0;
  const connections = new Set<net.Socket>();
  const server = net.createServer((c) => {
    connections.add(c);
    c.on('data', (d) => (bytes += d.length));
    c.on('error', () => undefined); // the client may hang up at any time; only the byte count matters
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  fs.writeFileSync(`${socket}.token`, 'fake-token\n', { mode: 0o600 });
  return {
    socket,
    received: () => bytes,
    close: () => {
      for (const c of connections) c.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

interface Attack {
  name: string;
  /** Turns a private fake daemon into the attack; the expected words of the refusal. */
  plant(dir: string, socket: string): string;
}

const ATTACKS: Attack[] = [
  {
    name: 'socket directory owned by another user',
    plant: (dir) => {
      fs.chownSync(dir, OTHER_UID, OTHER_UID);
      return `owned by uid ${OTHER_UID}`;
    },
  },
  {
    name: 'socket directory mode 0777',
    plant: (dir) => {
      fs.chmodSync(dir, 0o777);
      return `chmod 700 ${dir}`;
    },
  },
  {
    name: 'socket owned by another user',
    plant: (_dir, socket) => {
      fs.lchownSync(socket, OTHER_UID, OTHER_UID);
      return `${socket} is owned by uid ${OTHER_UID}`;
    },
  },
  {
    name: 'token file owned by another user',
    plant: (_dir, socket) => {
      fs.chownSync(`${socket}.token`, OTHER_UID, OTHER_UID);
      return `${socket}.token is owned by uid ${OTHER_UID}`;
    },
  },
  {
    name: 'token file mode 0644',
    plant: (_dir, socket) => {
      fs.chmodSync(`${socket}.token`, 0o644);
      return `chmod 600 ${socket}.token`;
    },
  },
  {
    name: 'token file a symlink',
    plant: (dir, socket) => {
      const elsewhere = path.join(path.dirname(dir), 'planted-token');
      fs.writeFileSync(elsewhere, 'fake-token\n', { mode: 0o600 });
      fs.rmSync(`${socket}.token`);
      fs.symlinkSync(elsewhere, `${socket}.token`);
      return 'is a symlink';
    },
  },
];

for (const attack of ATTACKS) {
  test(`regression: clients sent everything to a fake daemon: ${attack.name}`, async () => {
    const sandbox = cliSandbox();
    const dir = path.join(sandbox.dir, 'holdfast');
    fs.mkdirSync(dir, { mode: 0o700 });
    const fake = await fakeDaemon(dir);
    try {
      const expected = attack.plant(dir, fake.socket);
      const env = { ...sandbox.env, HOLDFAST_SOCKET: fake.socket };
      for (const args of [
        ['list'],
        ['new', '--env', 'GITHUB_TOKEN=secret', '--', 'true'],
        ['send', 'x', '--text', 'mysql -p hunter2'],
        ['attach', 'x', '--watch'],
      ]) {
        const run = await sandbox.run(args, { env });
        assert.equal(run.code, 1, `holdfast ${args[0]}: ${run.stderr}`);
        assert.match(run.stderr, /refusing to use/);
        assert.ok(run.stderr.includes(expected), `holdfast ${args[0]} names the problem: ${run.stderr}`);
        assert.match(run.stderr, /fix: /);
      }
      // The extension connects through the same client.
      await assert.rejects(
        HoldfastClient.connect({ socket: fake.socket, client: 'extension', version: 'test' }),
        UntrustedEndpointError,
      );
      assert.ok(
        checkEndpoint(fake.socket).some((c) => c.state === 'unsafe'),
        'the doctors see it too',
      );
      assert.equal(fake.received(), 0, 'not one byte reached the fake daemon');
      record({
        item: 'hostile',
        name: `fake daemon, ${attack.name}: list, new --env, send, attach --watch, the extension's connect`,
        value: 'refused with the fix named; 0 bytes sent',
      });
    } finally {
      await fake.close();
      fs.rmSync(sandbox.dir, { recursive: true, force: true });
    }
  });
}

test('a private socket directory with no daemon is "no daemon" (exit 6), not an attack', async () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'hf-trust-'));
  try {
    const socket = path.join(base, 'holdfast', 'holdfast.sock');
    await assert.rejects(HoldfastClient.connect({ socket, client: 'test', version: 'test' }), NoDaemonError);
    fs.mkdirSync(path.dirname(socket), { mode: 0o700 });
    await assert.rejects(HoldfastClient.connect({ socket, client: 'test', version: 'test' }), NoDaemonError);
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
});

test("regression: the config file's temp name was predictable and followed a planted symlink", async () => {
  const { ConfigStore } = await import('../src/daemon/config');
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'hf-config-'));
  try {
    const file = path.join(base, 'holdfast', 'config.json');
    fs.mkdirSync(path.dirname(file), { mode: 0o700 });
    const victim = path.join(base, 'victim');
    fs.writeFileSync(victim, 'precious\n');
    fs.symlinkSync(victim, `${file}.${process.pid}.tmp`); // the name the old code wrote through
    const store = new ConfigStore(file, () => undefined);
    store.set('recovery.screenText', true);
    assert.equal(fs.readFileSync(victim, 'utf8'), 'precious\n', 'the symlink target is untouched');
    assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).recovery.screenText, true);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(
      fs.readdirSync(path.dirname(file)).filter((f) => f.endsWith('.tmp') && !f.includes(String(process.pid))),
      [],
      'no temp file left',
    );
    record({
      item: 'hostile',
      name: 'symlink planted at the config temp file name',
      value: 'not followed (random exclusive temp names); target untouched',
    });

    assert.throws(() => store.set('recovery.hasOwnProperty', true), /unknown config key "recovery.hasOwnProperty"/);
    assert.throws(() => store.set('recovery.constructor', true), /unknown config key/);
    record({
      item: 'hostile',
      name: 'config.set recovery.hasOwnProperty (a prototype key)',
      value: 'refused: unknown config key',
    });

    fs.chownSync(path.dirname(file), OTHER_UID, OTHER_UID);
    assert.throws(() => store.set('recovery.screenText', false), /owned by uid 65534, not by you/);
    assert.throws(() => store.reload(), /owned by uid 65534, not by you/);
    record({
      item: 'hostile',
      name: 'config directory owned by another user',
      value: 'refused (set and reload), the fix named',
    });
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
});

test("regression: with no daemon, recovery list and inspect read another user's checkpoint directory", async () => {
  const sandbox = cliSandbox();
  try {
    // A shared XDG_STATE_HOME: the other user made holdfast/recovery and left a checkpoint there.
    const recovery = path.join(sandbox.env.XDG_STATE_HOME!, 'holdfast', 'recovery');
    fs.mkdirSync(recovery, { recursive: true, mode: 0o700 });
    const agent = { profile: 'claude', sessionId: 'planted-conversation' };
    const planted = checkpointJson('planted', [{ name: 'yours?', cwd: '/', metadata: { agent } }]);
    fs.writeFileSync(path.join(recovery, 'checkpoint-planted.json'), planted, { mode: 0o600 });
    fs.chownSync(path.join(recovery, 'checkpoint-planted.json'), OTHER_UID, OTHER_UID);
    fs.chownSync(recovery, OTHER_UID, OTHER_UID);
    for (const args of [
      ['recovery', 'list'],
      ['recovery', 'inspect', 'planted'],
    ]) {
      const run = await sandbox.run(args);
      assert.equal(run.code, 1, `holdfast ${args.join(' ')}: ${run.stdout}${run.stderr}`);
      assert.match(run.stderr, new RegExp(`refusing to read checkpoints: .*owned by uid ${OTHER_UID}.*fix: `));
      assert.doesNotMatch(run.stdout, /planted/);
    }
    // Group-readable is refused as the daemon refuses it, with the fix named.
    fs.chownSync(recovery, process.getuid!(), process.getgid!());
    fs.chmodSync(recovery, 0o750);
    const loose = await sandbox.run(['recovery', 'list']);
    assert.match(loose.stderr, /has mode 750.*fix: chmod 700/);
    record({
      item: 'hostile',
      name: "recovery list / inspect with no daemon, the recovery directory another user's (a shared XDG_STATE_HOME)",
      value: "refused, the fix named; its checkpoints not shown (was: listed and inspected as the user's own)",
    });
  } finally {
    fs.rmSync(sandbox.dir, { recursive: true, force: true });
  }
});

test('regression: handoff ran a successor script another user owns or can write, with every PTY master', async () => {
  const daemon = await startTestDaemon();
  try {
    const client = await daemon.connect();
    const { session } = await client.request('create', { name: 'kept', argv: ['sleep', '600'] });
    const planted = (name: string) => {
      const dir = path.join(daemon.dir, name);
      fs.mkdirSync(dir, { mode: 0o755 });
      const script = path.join(dir, 'daemon.js');
      fs.writeFileSync(script, `require('fs').writeFileSync(${JSON.stringify(path.join(dir, 'ran'))}, 'x');\n`, {
        mode: 0o644,
      });
      return { dir, script };
    };
    const cases: [string, string, RegExp][] = [];
    const owned = planted('owned');
    fs.chownSync(owned.script, OTHER_UID, OTHER_UID);
    cases.push(['a script owned by another user', owned.script, /belongs to another user \(uid 65534\)/]);
    const writable = planted('writable');
    fs.chmodSync(writable.script, 0o666);
    cases.push(['a script writable by others', writable.script, /writable by others \(fix: chmod go-w/]);
    const open = planted('open');
    fs.chmodSync(open.dir, 0o777);
    cases.push(['a script in a folder every user can write to', open.script, /above .* is writable by others/]);
    const theirs = planted('theirs');
    fs.chownSync(theirs.dir, OTHER_UID, OTHER_UID);
    cases.push(["a script in another user's folder", theirs.script, /above .* belongs to another user/]);
    const link = path.join(daemon.dir, 'link.js');
    fs.symlinkSync(owned.script, link);
    cases.push(["a symlink to another user's script", link, /belongs to another user/]);
    for (const [what, script, why] of cases) {
      await assert.rejects(client.request('handoff', { script }), (err: RequestError) => {
        assert.equal(err.code, 'bad-request', `${what}: ${err.message}`);
        assert.match(err.message, why, what);
        return true;
      });
      assert.ok(!fs.existsSync(path.join(path.dirname(fs.realpathSync(script)), 'ran')), `${what}: not run`);
    }
    const { session: still } = await client.request('show', { session: session.id });
    assert.equal(still.pid, session.pid, 'the session carries on in this daemon');
    assert.equal((await client.request('status', {})).pid, daemon.pid);
    record({
      item: 'hostile',
      name:
        "handoff's successor script owned by another user, writable by others, in a folder others can write or " +
        'own, or a symlink to one',
      value: 'refused (bad-request naming the file or folder and the fix); nothing run, the sessions stay (was: run)',
    });
  } finally {
    await daemon.stop();
  }
});

test("regression: another user's $TMPDIR/holdfast-UID blocked the fallback socket directory for good", async () => {
  const sandbox = cliSandbox();
  const tmp = path.join(sandbox.dir, 'tmp');
  fs.mkdirSync(tmp);
  fs.chmodSync(tmp, 0o1777); // shared and sticky, as /tmp is
  const planted = path.join(tmp, `holdfast-${process.getuid!()}`);
  fs.mkdirSync(planted, { mode: 0o700 });
  fs.chownSync(planted, OTHER_UID, OTHER_UID);
  // No XDG_RUNTIME_DIR and no /run/user/UID: the temp dir is where the socket goes.
  const env: NodeJS.ProcessEnv = { ...sandbox.env, TMPDIR: tmp, HOLDFAST_RUNTIME_ROOT: '/nonexistent-run-user' };
  delete env.XDG_RUNTIME_DIR;
  delete env.HOLDFAST_SOCKET;
  try {
    const started = await sandbox.run(['new', '--name', 'found', '--', 'sleep', '600'], { env });
    assert.equal(started.code, 0, started.stderr);
    // Another client of the user, with the same environment, finds the same daemon.
    const listed = await sandbox.run(['list', '--json'], { env });
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      (JSON.parse(listed.stdout) as { sessions: { name: string }[] }).sessions.map((s) => s.name),
      ['found'],
    );
    const chosen = fs.readdirSync(tmp).filter((name) => name !== path.basename(planted));
    assert.equal(chosen.length, 1, chosen.join(', '));
    assert.match(chosen[0], new RegExp(`^holdfast-${process.getuid!()}-[A-Za-z0-9]{6}$`));
    assert.ok(fs.lstatSync(path.join(tmp, chosen[0], 'holdfast.sock')).isSocket());
    assert.deepEqual(fs.readdirSync(planted), [], "nothing in the other user's directory");
    record({
      item: 'hostile',
      name: 'another user made $TMPDIR/holdfast-UID (0700, theirs) in a sticky temp dir, with no XDG_RUNTIME_DIR',
      value:
        'the daemon and every client of the user use $TMPDIR/holdfast-UID-XXXXXX, a name of their own written ' +
        'in the private state dir (was: refused for good; only root could remove the planted directory)',
    });
  } finally {
    await sandbox.run(['stop'], { env });
    fs.rmSync(sandbox.dir, { recursive: true, force: true });
  }
});
