// Hostile program and client output (issue 12, items 4, 5, 6 and 9), on real daemons, PTYs and the
// real CLI: OSC 7 directories from another host or with control characters are refused; every name,
// title, directory and command a program or a checkpoint chose reaches the terminal made printable;
// resume never runs a checkpoint's command and refuses bad conversation ids; titles are saved only
// with screen text.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { HoldfastClient } from '../src/protocol/client';
import { startDaemon } from '../src/protocol/launch';
import { CHECKPOINT_VERSION, CheckpointFile, SavedSession } from '../src/protocol/recovery';
import { CLI_SCRIPT, DAEMON_SCRIPT, isAlive, isolatedEnv, tempDir, waitFor } from './helpers/daemon';
import { record } from './helpers/reliability';

/** What a terminal acts on: ESC, BEL, the one-character CSI (U+009B) and a bidi override. */
const RAW = /[\x1b\x07\x9b\u202e]/;
/** A name that would clear the screen, write the clipboard, start a CSI and reverse the line. */
const EVIL = 'ev\x1b]52;c;cHduZWQ=\x07il\x1b[2J\u009b31m\u202e';

interface Home {
  dir: string;
  env: NodeJS.ProcessEnv;
  recovery: string;
  start(): Promise<{ pid: number; client: HoldfastClient }>;
  stop(d: { pid: number; client: HoldfastClient }): Promise<void>;
  cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
}

/** An isolated home whose PATH has a stand-in `claude` that prints its arguments. */
function home(config?: object): Home {
  const dir = tempDir('hf-output-');
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'claude'), '#!/bin/sh\necho "claude argv: $*"\nexec sleep 1000\n', { mode: 0o755 });
  const env = { ...isolatedEnv(dir), PATH: `${bin}:${process.env.PATH}` };
  if (config) {
    fs.mkdirSync(path.join(env.XDG_CONFIG_HOME!, 'holdfast'), { recursive: true });
    fs.writeFileSync(path.join(env.XDG_CONFIG_HOME!, 'holdfast', 'config.json'), JSON.stringify(config));
  }
  const socket = env.HOLDFAST_SOCKET!;
  return {
    dir,
    env,
    recovery: path.join(env.XDG_STATE_HOME!, 'holdfast', 'recovery'),
    async start() {
      const ready = await startDaemon({ socket, daemonScript: DAEMON_SCRIPT, env, args: ['--persistent'] });
      if (!('ready' in ready)) throw new Error(`daemon did not start: ${JSON.stringify(ready)}`);
      return { pid: ready.pid, client: await HoldfastClient.connect({ socket, client: 'test', version: 'test' }) };
    },
    async stop(d) {
      d.client.close();
      if (!isAlive(d.pid)) return;
      process.kill(d.pid, 'SIGTERM');
      await waitFor(() => !isAlive(d.pid), 10_000, 'the daemon to stop');
    },
    cli(args) {
      return new Promise((resolve) => {
        execFile(process.execPath, [CLI_SCRIPT, ...args], { env, timeout: 30_000 }, (err, stdout, stderr) => {
          const code = err ? (typeof (err as NodeJS.ErrnoException).code === 'number' ? Number((err as NodeJS.ErrnoException).code) : -1) : 0;
          resolve({ code, stdout, stderr });
        });
      });
    },
  };
}

/** A checkpoint file as an attacker (or a corrupt disk) could leave it, of a daemon long gone. */
function craftCheckpoint(h: Home, id: string, sessions: Partial<SavedSession>[]): void {
  fs.mkdirSync(h.recovery, { recursive: true, mode: 0o700 });
  const file: CheckpointFile = {
    version: CHECKPOINT_VERSION,
    id,
    writtenAt: Date.now(),
    daemonPid: 999_999_999,
    daemonStartedAt: Date.now() - 60_000,
    socket: h.env.HOLDFAST_SOCKET!,
    sessions: sessions.map((s, i) => ({ id: `old${i}`, name: `s${i}`, cwd: h.dir, cols: 80, rows: 24, createdAt: 1, running: true, exit: null, metadata: {}, ...s })),
  };
  fs.writeFileSync(path.join(h.recovery, `checkpoint-${id}.json`), JSON.stringify(file), { mode: 0o600 });
}

function assertPrintable(what: string, run: { stdout: string; stderr: string }): void {
  assert.doesNotMatch(run.stdout, RAW, `${what}: raw control characters on stdout: ${JSON.stringify(run.stdout)}`);
  assert.doesNotMatch(run.stderr, RAW, `${what}: raw control characters on stderr: ${JSON.stringify(run.stderr)}`);
}

test('OSC 7: a directory from another host, with ESC/BEL inside, or relative is refused; this host\'s is taken', async () => {
  const h = home();
  const d = await h.start();
  try {
    const start = fs.mkdtempSync(path.join(h.dir, 'start-'));
    // A shell in the session prints the OSC 7 reports; a marker after each says it was parsed.
    const { session: sh } = await d.client.request('create', { name: 'osc7-sh', argv: ['sh'], cwd: start });
    const say = async (payload: string, marker: string) => {
      await d.client.request('send', { session: sh.id, data: `printf '\\033]7;%s\\007%s\\n' '${payload}' '${marker}'\n` });
      await d.client.request('wait', { session: sh.id, condition: { kind: 'text', pattern: `^${marker}$` }, timeoutMs: 10_000 });
      return (await d.client.request('list', {})).sessions.find((s) => s.id === sh.id)!.cwd;
    };
    const hostile = [
      ['another host', 'file://attacker.example/etc'],
      ['ESC and BEL percent-encoded', `file://localhost/tmp/x%1b]52;c;cHduZWQ=%07y`],
      ['a C1 CSI percent-encoded', 'file:///tmp/a%C2%9B2J'],
      ['a newline percent-encoded', 'file:///tmp/a%0Ab'],
      ['not absolute', 'file://localhostetc'],
      ['over 4 KiB', `file:///${'a'.repeat(5000)}`],
    ];
    for (const [i, [what, payload]] of hostile.entries()) {
      const cwd = await say(payload, `HOSTILE-${i}-DONE`);
      assert.equal(cwd, start, `${what}: the directory must not change`);
      record({ item: 'hostile', name: `OSC 7 ${what}`, value: `ignored (cwd stays ${path.basename(cwd)})` });
    }
    const mine = fs.mkdtempSync(path.join(h.dir, 'next dir-'));
    const encoded = mine.split('/').map(encodeURIComponent).join('/');
    assert.equal(await say(`file://${os.hostname().toUpperCase()}${encoded}`, 'MINE-DONE'), mine, "this host's name, any case");
    assert.equal(await say(`file://localhost${start}`, 'LOCAL-DONE'), start);
    assert.equal(await say(`file://${mine}`, 'EMPTY-DONE'), mine, 'an empty host');
  } finally {
    await h.stop(d);
  }
});

test('names, titles, directories and commands from a checkpoint print made visible in every CLI output; --json escapes C1 and bidi', async () => {
  const h = home({ recovery: { screenText: true } });
  const evilDir = path.join(h.dir, `dir${EVIL}`);
  fs.mkdirSync(evilDir);
  // The saved screen sets a title with a C1 CSI and a bidi override in it (ESC or BEL would end the OSC).
  const screen = `\x1b]2;title\u009b2J\u202eend\x07saved screen\r\n`;
  craftCheckpoint(h, 'crafted-names', [
    { name: `shell${EVIL}`, cwd: evilDir, argv: ['sh', '-c', `echo started${EVIL}; exec sleep 1000`], screen, title: `title${EVIL}` },
    { name: `agent${EVIL}`, cwd: evilDir, metadata: { agent: { profile: 'claude', sessionId: 'conv-1' }, note: EVIL } },
  ]);
  const runs: [string, { code: number; stdout: string; stderr: string }][] = [];
  const cli = async (what: string, args: string[]) => {
    const run = await h.cli(args);
    runs.push([what, run]);
    assertPrintable(what, run);
    return run;
  };
  const offline = await cli('recovery inspect (no daemon)', ['recovery', 'inspect', 'crafted-names']);
  assert.equal(offline.code, 0, offline.stderr);
  assert.match(offline.stdout, /shell ?ev\\u\{1b\}\]52;c;cHduZWQ=\\u\{7\}il\\u\{1b\}\[2J\\u\{9b\}31m\\u\{202e\}/, 'one visible notation');
  await cli('recovery list (no daemon)', ['recovery', 'list']);

  const d = await h.start();
  try {
    assert.equal((await cli('recovery inspect', ['recovery', 'inspect', 'crafted-names'])).code, 0);
    const restored = await cli('recovery restore', ['recovery', 'restore', 'crafted-names']);
    assert.equal(restored.code, 0, restored.stderr);
    const [shell, agent] = (await d.client.request('list', {})).sessions;
    assert.equal(shell.name, `shell${EVIL}`, 'the daemon keeps the name as given; only output escapes it');
    await waitFor(async () => (await d.client.request('list', {})).sessions[0].title.includes('\u009b'), 10_000, 'the saved title to be replayed');

    const list = await cli('list', ['list']);
    assert.match(list.stdout, /title\\u\{9b\}2J\\u\{202e\}end/, 'the title, made visible');
    await cli('show', ['show', shell.id]);
    await cli('read', ['read', shell.id]);
    for (const args of [['list', '--json'], ['show', shell.id, '--json'], ['recovery', 'inspect', 'crafted-names', '--json']]) {
      const json = await cli(args.join(' '), args);
      assert.equal(json.code, 0, json.stderr);
      assert.doesNotMatch(json.stdout, /[\x7f-\x9f\u202a-\u202e\u2066-\u2069]/, `${args.join(' ')}: no raw C1 or bidi`);
      assert.ok(JSON.stringify(JSON.parse(json.stdout)).includes('\u009b'), 'still the same JSON value');
    }
    const relaunched = await cli('relaunch', ['relaunch', shell.id]);
    assert.equal(relaunched.code, 0, relaunched.stderr);
    assert.match(relaunched.stdout, /\\u\{1b\}/);
    const resumed = await cli('resume', ['resume', agent.id]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.ok(resumed.stdout.includes(`in ${evilDir.slice(0, evilDir.indexOf('\x1b'))}`), `resume says where it runs: ${resumed.stdout}`);
    // An error quoting a hostile name.
    await cli('an error', ['send', `nope${EVIL}`, '--text', 'x']);
    record({ item: 'hostile', name: 'control characters in names/titles/cwd (CLI output)', value: `${runs.length} outputs, 0 raw ESC/BEL/C1/bidi` });
  } finally {
    await h.stop(d);
  }
});

test("resume runs the built-in profile's command, never the checkpoint's; bad conversation ids are refused; inspect prints the exact command", async () => {
  const h = home();
  const pwned = path.join(h.dir, 'pwned');
  const evilArgv = ['sh', '-c', `touch ${pwned}`];
  craftCheckpoint(h, 'crafted-resume', [
    { name: 'claude-evil', metadata: { agent: { profile: 'claude', sessionId: 'conv-1', resumeArgv: evilArgv } } },
    { name: 'custom-evil', metadata: { agent: { profile: 'my-agent', sessionId: 'conv-2', resumeArgv: evilArgv } } },
    { name: 'no-profile', metadata: { agent: { sessionId: 'conv-3', resumeArgv: evilArgv } } },
    { name: 'bad-id', metadata: { agent: { profile: 'claude', sessionId: 'x;touch${IFS}' + pwned, resumeArgv: evilArgv } } },
    { name: 'option-id', metadata: { agent: { profile: 'claude', sessionId: '--dangerously-skip-permissions' } } },
    { name: 'proto', metadata: { agent: { profile: 'constructor', sessionId: 'conv-4' } } },
  ]);
  const inspect = await h.cli(['recovery', 'inspect', 'crafted-resume']);
  assert.equal(inspect.code, 0, inspect.stderr);
  assert.match(inspect.stdout, new RegExp(`^resume old0 \\(claude-evil\\): claude --resume conv-1\\n  in ${h.dir}$`, 'm'), inspect.stdout);
  assert.match(inspect.stdout, /^resume old1 \(custom-evil\): a custom agent profile/m);
  assert.match(inspect.stdout, /^resume old3 \(bad-id\): its agent session id has characters other than/m);
  assert.doesNotMatch(inspect.stdout, /touch/, 'the checkpoint\'s command is not offered');

  const d = await h.start();
  try {
    assert.equal((await h.cli(['recovery', 'restore', 'crafted-resume'])).code, 0);
    const archived = (await d.client.request('list', {})).sessions;
    const id = (name: string) => archived.find((s) => s.name === name)!.id;

    const resumed = await h.cli(['resume', id('claude-evil'), '--json']);
    assert.equal(resumed.code, 0, resumed.stderr);
    const { session, argv } = JSON.parse(resumed.stdout);
    assert.deepEqual(argv, ['claude', '--resume', 'conv-1']);
    await d.client.request('wait', { session: session.id, condition: { kind: 'text', pattern: 'claude argv: --resume conv-1' }, timeoutMs: 10_000 });

    for (const [name, why] of [
      ['custom-evil', /agent profile "my-agent" is not built-in/],
      ['no-profile', /agent profile \(none recorded\) is not built-in/],
      ['bad-id', /agent session id has characters other than/],
      ['option-id', /agent session id starts with "-"/],
      ['proto', /agent profile "constructor" is not built-in/],
    ] as const) {
      const refused = await h.cli(['resume', id(name)]);
      assert.equal(refused.code, 2, `${name}: ${refused.stdout}`);
      assert.match(refused.stderr, why, name);
    }
    // A custom profile's command comes from the client, its id still checked.
    const custom = await h.cli(['resume', id('custom-evil'), '--json', '--', 'claude', '--custom', '{id}']);
    assert.equal(custom.code, 0, custom.stderr);
    assert.deepEqual(JSON.parse(custom.stdout).argv, ['claude', '--custom', 'conv-2']);
    const badWithTemplate = await h.cli(['resume', id('bad-id'), '--', 'claude', '{id}']);
    assert.equal(badWithTemplate.code, 2);
    assert.equal(fs.existsSync(pwned), false, "the checkpoint's resumeArgv ran");
    record({ item: 'hostile', name: 'crafted checkpoint resumeArgv ["sh","-c","touch …"]', value: 'not run: built-in profile command used' });
    record({ item: 'hostile', name: 'conversation id with shell characters / leading "-"', value: 'refused (exit 2)' });
  } finally {
    await h.stop(d);
  }
});

test('a title is saved to checkpoints only with screen text on', async () => {
  const h = home();
  const d = await h.start();
  try {
    const { session } = await d.client.request('create', { name: 'titled', argv: ['sh', '-c', "printf '\\033]0;%s\\007' 'mysql -psecret-pw'; exec sleep 1000"], cwd: h.dir });
    await waitFor(async () => (await d.client.request('list', {})).sessions[0].title === 'mysql -psecret-pw', 10_000, 'the title');
    const savedTitle = async () => {
      const { checkpoint } = await d.client.request('recovery.checkpoint', {});
      const file = JSON.parse(fs.readFileSync(checkpoint.file, 'utf8')) as CheckpointFile;
      const saved = file.sessions.find((s) => s.id === session.id)!;
      return { saved, text: fs.readFileSync(checkpoint.file, 'utf8') };
    };
    const off = await savedTitle();
    assert.equal(off.saved.title, undefined);
    assert.doesNotMatch(off.text, /secret-pw/, 'the title is not in the file');
    record({ item: 'hostile', name: 'secret in a title, screen text off', value: 'not in the checkpoint' });
    await d.client.request('config.set', { key: 'recovery.screenText', value: true });
    assert.equal((await savedTitle()).saved.title, 'mysql -psecret-pw');
  } finally {
    await h.stop(d);
  }
});
