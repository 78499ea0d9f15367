// Hostile program output and checkpoint files: what programs and checkpoint files get to do through Holdfast's
// output and resume. Names, titles, directories and metadata with ESC/BEL/C1/bidi reach the CLI's
// stdout only as visible escapes; OSC 7 from another host, or with control characters, moves no
// session; a crafted checkpoint's resume command is never run; titles stay out of checkpoints
// unless screen text is on. Real daemons, real PTYs, the real CLI.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { checkpointJson } from './helpers/checkpoint';
import { type CliRun, runCli } from './helpers/cli';
import { isolatedEnv, startPersistentDaemon, stopDaemonPid, tempDir } from './helpers/daemon';
import { record } from './helpers/reliability';

/** What a terminal would act on: C0 controls but newline, DEL, C1, bidi overrides and isolates. */
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
/** A clipboard write (OSC 52), a bell, a screen clear, a one-byte CSI, a right-to-left override. */
const HOSTILE = 'evil\x1b]52;c;cHduZWQ=\x07\x1b[2J\x9b31m\u202eexe.txt';
/**
 * HOSTILE as a restored session's name: its control characters made "?" (the bidi override is
 * printable-escaped on output).
 */
const RESTORED_NAME = 'evil?]52;c;cHduZWQ=??[2J?31m\u202eexe.txt';

interface Home {
  dir: string;
  env: NodeJS.ProcessEnv;
  recovery: string;
  marker: string;
  cli(args: string[]): Promise<CliRun>;
  start(): Promise<number>;
  stop(pid: number): Promise<void>;
}

/** A private home whose daemons find a `claude` stand-in on PATH (it says how it was started). */
function home(): Home {
  const dir = tempDir('hf-output-');
  const env = isolatedEnv(dir);
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  // Like Claude Code: the daemon's --settings (its state hooks) first, then the command line asked for.
  const claude = '#!/bin/sh\n[ "$1" = --settings ] && shift 2\necho "claude stand-in: $*"\nexec sleep 1000\n';
  fs.writeFileSync(path.join(bin, 'claude'), claude, { mode: 0o755 });
  env.PATH = `${bin}:${process.env.PATH}`;
  return {
    dir,
    env,
    recovery: path.join(env.XDG_STATE_HOME!, 'holdfast', 'recovery'),
    marker: path.join(dir, 'pwned'),
    cli: (args) => runCli(env, args),
    start: () => startPersistentDaemon(env),
    stop: stopDaemonPid,
  };
}

/** A checkpoint as an attacker who can write the recovery directory would leave it. */
function craftCheckpoint(h: Home, id: string, sessions: Record<string, unknown>[]): void {
  fs.mkdirSync(h.recovery, { recursive: true, mode: 0o700 });
  const file = checkpointJson(id, sessions, () => ({ cwd: h.dir }));
  fs.writeFileSync(path.join(h.recovery, `checkpoint-${id}.json`), file, { mode: 0o600 });
}

function assertPrintable(out: string, what: string): void {
  const raw = RAW_CONTROL.exec(out);
  assert.equal(
    raw,
    null,
    `${what} printed a raw U+${raw?.[0].codePointAt(0)!.toString(16).padStart(4, '0')}: ${JSON.stringify(out)}`,
  );
}

const TOUCH = (marker: string) => ['sh', '-c', `touch ${marker}`];

test(
  'inspect (no daemon), restore, list, show, relaunch, resume: ' +
    'names, titles, cwds and metadata with ESC/BEL/C1/bidi print as visible escapes; --json keeps the values',
  async () => {
    const h = home();
    craftCheckpoint(h, 'crafted-1', [
      {
        name: HOSTILE,
        title: `title\x07${HOSTILE}`,
        metadata: { note: HOSTILE, agent: { profile: 'claude', sessionId: 'conv-1', resumeArgv: TOUCH(h.marker) } },
      },
      {
        name: `ended${HOSTILE}`,
        cwd: `/tmp/\x1b[2J\x9b`,
        running: false,
        exit: { code: 0, signal: null, at: 1 },
        argv: ['echo', HOSTILE],
      },
    ]);
    const inspect = await h.cli(['recovery', 'inspect', 'crafted-1']);
    assert.equal(inspect.code, 0, inspect.stderr);
    assertPrintable(inspect.stdout, 'recovery inspect');
    assert.ok(
      inspect.stdout.includes('evil\\u{1b}]52;c;cHduZWQ=\\u{7}\\u{1b}[2J\\u{9b}31m\\u{202e}exe.txt'),
      inspect.stdout,
    );
    const inspectJson = await h.cli(['recovery', 'inspect', 'crafted-1', '--json']);
    assertPrintable(inspectJson.stdout.trimEnd(), 'recovery inspect --json');
    assert.equal(JSON.parse(inspectJson.stdout).sessions[0].name, HOSTILE, 'the JSON value is unchanged');

    const pid = await h.start();
    try {
      const restore = await h.cli(['recovery', 'restore', 'crafted-1']);
      assert.equal(restore.code, 0, restore.stderr);
      assertPrintable(restore.stdout + restore.stderr, 'recovery restore');
      const sessions = JSON.parse((await h.cli(['list', '--json'])).stdout).sessions as { id: string; name: string }[];
      // A restored name keeps the rule for a client's (no control characters: they would reach the log).
      assert.deepEqual(
        sessions.map((s) => s.name),
        [RESTORED_NAME, `ended${RESTORED_NAME}`],
      );
      const [agent, ended] = sessions;
      const list = await h.cli(['list']);
      assertPrintable(list.stdout, 'list');
      assert.equal(
        list.stdout.trimEnd().split('\n').length,
        3,
        'a header and one row per session: no row was faked or cleared',
      );
      const listJson = await h.cli(['list', '--json']);
      assertPrintable(listJson.stdout.trimEnd(), 'list --json');
      const show = await h.cli(['show', agent.id]);
      assertPrintable(show.stdout, 'show');
      assert.match(show.stdout, /metadata: .*evil\\u001b\]52/, 'metadata as JSON, escaped');

      const relaunch = await h.cli(['relaunch', ended.id, '--', 'sh', '-c', 'echo relaunched; exec sleep 1000']);
      assert.equal(relaunch.code, 0, relaunch.stderr);
      assertPrintable(relaunch.stdout, 'relaunch');
      assert.ok(
        relaunch.stdout.includes(`\nin ${os.homedir()}\n`),
        `the directory it runs in (the saved one is no directory): ${relaunch.stdout}`,
      );

      const resume = await h.cli(['resume', agent.id]);
      assert.equal(resume.code, 0, resume.stderr);
      assertPrintable(resume.stdout, 'resume');
      assert.ok(resume.stdout.includes(`\nin ${h.dir}\n`), `resume names its directory: ${resume.stdout}`);
      assert.match(resume.stdout, /\nclaude --resume conv-1\n$/);
      const newAgent = JSON.parse((await h.cli(['show', RESTORED_NAME, '--json'])).stdout) as {
        id: string;
        argv: string[];
      };
      assert.deepEqual(newAgent.argv, ['claude', '--resume', 'conv-1']);
      assert.equal(
        (await h.cli(['wait', newAgent.id, '--for', 'text:claude stand-in: --resume conv-1', '--timeout-ms', '10000']))
          .code,
        0,
      );
      assert.ok(!fs.existsSync(h.marker), "the checkpoint's resumeArgv did not run");
      record({
        item: 'hostile',
        name: 'name/title/cwd with OSC 52 + BEL + ED + C1 CSI + RLO, in inspect/restore/list/show/relaunch/resume',
        value: 'printed as \\u{1b} \\u{7} \\u{9b} \\u{202e} (0 raw control bytes)',
      });
    } finally {
      await h.stop(pid);
    }
  },
);

test(
  'resume of a crafted checkpoint: its resumeArgv is never run; ' +
    'an unknown profile or a bad conversation id is refused; inspect prints the exact command and directory',
  async () => {
    const h = home();
    const crafted = (profile: string, sessionId: string) => ({
      agent: { profile, sessionId, resumeArgv: TOUCH(h.marker) },
    });
    craftCheckpoint(h, 'crafted-2', [
      { name: 'known', metadata: crafted('claude', '0b4f2a52-7c9e-4d8f-9a3e-5b6c7d8e9f01') },
      { name: 'unknown', metadata: crafted(`evilbot${HOSTILE}`, 'conv-2') },
      { name: 'badid', metadata: crafted('claude', 'x; touch pwned') },
      { name: 'option', metadata: crafted('claude', '--dangerously-skip-permissions') },
    ]);
    const inspect = await h.cli(['recovery', 'inspect', 'crafted-2']);
    assert.equal(inspect.code, 0, inspect.stderr);
    assertPrintable(inspect.stdout, 'inspect');
    assert.ok(
      inspect.stdout.includes(
        `resume 00000000 (known): claude --resume 0b4f2a52-7c9e-4d8f-9a3e-5b6c7d8e9f01\n  in ${h.dir}\n`,
      ),
      inspect.stdout,
    );
    assert.match(inspect.stdout, /resume 00000002 \(badid\): its agent session id has characters other than/);
    assert.ok(!inspect.stdout.includes('touch'), 'the crafted command is not offered');
    const json = JSON.parse((await h.cli(['recovery', 'inspect', 'crafted-2', '--json'])).stdout) as {
      sessions: { name: string; resumable: boolean; resumeCommand?: string[] }[];
    };
    assert.deepEqual(
      json.sessions.map((s) => [s.name, s.resumable]),
      [
        ['known', true],
        ['unknown', true],
        ['badid', false],
        ['option', false],
      ],
    );
    assert.deepEqual(json.sessions[0].resumeCommand, ['claude', '--resume', '0b4f2a52-7c9e-4d8f-9a3e-5b6c7d8e9f01']);

    const pid = await h.start();
    try {
      const restored = JSON.parse((await h.cli(['recovery', 'restore', 'crafted-2', '--json'])).stdout).sessions as {
        id: string;
        name: string;
      }[];
      const byName = (name: string) => restored.find((s) => s.name === name)!.id;
      const unknown = await h.cli(['resume', byName('unknown')]);
      assert.equal(unknown.code, 2);
      assertPrintable(unknown.stderr, 'the refusal');
      assert.match(
        unknown.stderr,
        new RegExp(
          String.raw`is not built-in .*the checkpoint's command is not trusted: ` +
            String.raw`give the resume command \(holdfast resume ID -- CMD`,
        ),
      );
      const badId = await h.cli(['resume', byName('badid')]);
      assert.equal(badId.code, 2);
      assert.match(badId.stderr, /agent session id has characters other than letters, digits/);
      const option = await h.cli(['resume', byName('option')]);
      assert.equal(option.code, 2);
      assert.match(option.stderr, /starts with "-"/);
      const known = await h.cli(['resume', byName('known'), '--json']);
      assert.equal(known.code, 0, known.stderr);
      const { session, argv } = JSON.parse(known.stdout) as { session: { id: string }; argv: string[] };
      assert.deepEqual(
        argv,
        ['claude', '--resume', '0b4f2a52-7c9e-4d8f-9a3e-5b6c7d8e9f01'],
        "the built-in profile's command",
      );
      assert.equal(
        (await h.cli(['wait', session.id, '--for', 'text:claude stand-in: --resume', '--timeout-ms', '10000'])).code,
        0,
      );
      // A custom profile's command comes from the client, "{id}" filled with the checked id.
      const custom = await h.cli(['resume', byName('unknown'), '--json', '--', 'claude', '--custom', '{id}']);
      assert.equal(custom.code, 0, custom.stderr);
      assert.deepEqual(JSON.parse(custom.stdout).argv, ['claude', '--custom', 'conv-2']);
      assert.ok(!fs.existsSync(h.marker), 'no crafted resumeArgv ran');
      record({
        item: 'hostile',
        name: 'crafted checkpoint resumeArgv ["sh","-c","touch …"] on holdfast resume',
        value: "not run: built-in profile's command (claude --resume ID); unknown profile refused",
      });
      record({
        item: 'hostile',
        name: 'conversation id "x; touch pwned" / "--dangerously-skip-permissions"',
        value: 'refused (exit 2), named in the message',
      });
    } finally {
      await h.stop(pid);
    }
  },
);

test(
  'OSC 7 from another host, with ESC/BEL inside (percent-encoded), or relative, moves no session; ' +
    "this host's does",
  async () => {
    const h = home();
    const elsewhere = fs.mkdtempSync(path.join(h.dir, 'elsewhere-'));
    const pid = await h.start();
    try {
      const bad = [
        `file://attacker.example${elsewhere}`,
        `file:///tmp/%1b]52;c;cHduZWQ=%07%1b[2J`,
        `file://${os.hostname()}/tmp/%C2%9B31m`,
        'file://localhost',
        `file:///${'a'.repeat(5000)}`,
      ];
      const script = bad.map((u) => `printf '\\033]7;%s\\007' '${u}'`).join('; ') + '; echo BAD-SENT; exec sleep 1000';
      const { stdout } = await h.cli(['new', '--name', 'bad', '--cwd', h.dir, '--', 'sh', '-c', script]);
      const id = stdout.trim();
      assert.equal((await h.cli(['wait', id, '--for', 'text:BAD-SENT', '--timeout-ms', '10000'])).code, 0);
      const shown = JSON.parse((await h.cli(['show', id, '--json'])).stdout) as { cwd: string };
      assert.equal(shown.cwd, h.dir, 'no OSC 7 was taken');
      assertPrintable((await h.cli(['show', id])).stdout, 'show');

      for (const host of ['', 'localhost', os.hostname().toUpperCase()]) {
        const target = encodeURI(elsewhere);
        const good = await h.cli([
          'new',
          '--cwd',
          h.dir,
          '--',
          'sh',
          '-c',
          `printf '\\033]7;file://${host}${target}\\007'; echo GOOD-SENT; exec sleep 1000`,
        ]);
        const goodId = good.stdout.trim();
        assert.equal((await h.cli(['wait', goodId, '--for', 'text:GOOD-SENT', '--timeout-ms', '10000'])).code, 0);
        assert.equal(
          JSON.parse((await h.cli(['show', goodId, '--json'])).stdout).cwd,
          elsewhere,
          `file://${host}/… is this machine`,
        );
      }
      record({
        item: 'hostile',
        name: 'OSC 7 path with percent-encoded ESC/BEL (OSC 52, ED)',
        value: 'ignored: the session keeps its directory',
      });
      record({
        item: 'hostile',
        name: 'OSC 7 from another host (file://attacker.example/…)',
        value: 'ignored: only empty, localhost or this hostname',
      });
    } finally {
      await h.stop(pid);
    }
  },
);

test('a title (shells put the running command there) is saved in checkpoints only with screen text on', async () => {
  const h = home();
  const pid = await h.start();
  try {
    const { stdout } = await h.cli([
      'new',
      '--name',
      'titled',
      '--cwd',
      h.dir,
      '--',
      'sh',
      '-c',
      `printf '\\033]2;%s\\007' 'mysql -pS3CRET-PASSWORD'; echo TITLED; exec sleep 1000`,
    ]);
    const id = stdout.trim();
    assert.equal((await h.cli(['wait', id, '--for', 'text:TITLED', '--timeout-ms', '10000'])).code, 0);
    assert.equal(JSON.parse((await h.cli(['show', id, '--json'])).stdout).title, 'mysql -pS3CRET-PASSWORD');
    const written = JSON.parse((await h.cli(['recovery', 'checkpoint', '--json'])).stdout).checkpoint.file as string;
    const text = fs.readFileSync(written, 'utf8');
    assert.ok(!text.includes('S3CRET'), 'the title is not in the checkpoint');
    assert.equal('title' in JSON.parse(text).sessions[0], false);

    assert.equal((await h.cli(['config', 'set', 'recovery.screenText', 'true'])).code, 0);
    const withScreens = JSON.parse((await h.cli(['recovery', 'checkpoint', '--json'])).stdout).checkpoint
      .file as string;
    assert.equal(
      JSON.parse(fs.readFileSync(withScreens, 'utf8')).sessions[0].title,
      'mysql -pS3CRET-PASSWORD',
      'saved with screen text on',
    );
    record({
      item: 'hostile',
      name: 'title "mysql -pS3CRET…" with recovery.screenText off',
      value: 'not in the checkpoint (saved only with screen text on)',
    });
  } finally {
    await h.stop(pid);
  }
});
