// Unit tests of the CLI's pure parts: key names, argument parsing, wait conditions, output, terminal reset.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCommandArgs, parseEnvPairs, intOpt, listOpt } from '../src/cli/args';
import type { Io } from '../src/cli/command';
import { parseWaitCondition } from '../src/cli/commands/io';
import { parseSignal } from '../src/host/signals';
import { type CliError, ExitCode, toCliError } from '../src/cli/errors';
import { keyBytes, sendPayload } from '../src/text/keys';
import { formatAge, formatPhase, formatState, table } from '../src/cli/output';
import { commandLine, shellQuote } from '../src/text/shellQuote';
import { printable } from '../src/text/printable';
import { hoistGlobals, runCli } from '../src/cli/run';
import {
  AltScreenTracker,
  detachSequences,
  findDetach,
  restoreSequence,
  TERMINAL_RESET,
  withoutFullReset,
} from '../src/cli/terminal';

/** What the CLI makes of what `fn` throws (a shared parser throws an InputError): a usage error. */
function usage(fn: () => unknown): CliError {
  try {
    fn();
  } catch (thrown) {
    const err = toCliError(thrown);
    assert.equal(err.exitCode, ExitCode.Usage, `expected a usage error, got ${String(thrown)}`);
    return err;
  }
  assert.fail('expected a usage error');
}

test('key names map to the bytes a terminal sends', () => {
  assert.equal(keyBytes('enter'), '\r');
  assert.equal(keyBytes('Enter'), '\r');
  assert.equal(keyBytes('tab'), '\t');
  assert.equal(keyBytes('esc'), '\x1b');
  assert.equal(keyBytes('up'), '\x1b[A');
  assert.equal(keyBytes('down'), '\x1b[B');
  assert.equal(keyBytes('right'), '\x1b[C');
  assert.equal(keyBytes('left'), '\x1b[D');
  assert.equal(keyBytes('home'), '\x1b[H');
  assert.equal(keyBytes('end'), '\x1b[F');
  assert.equal(keyBytes('pageup'), '\x1b[5~');
  assert.equal(keyBytes('pagedown'), '\x1b[6~');
  assert.equal(keyBytes('backspace'), '\x7f');
  assert.equal(keyBytes('delete'), '\x1b[3~');
  assert.equal(keyBytes('space'), ' ');
  assert.equal(keyBytes('shift-tab'), '\x1b[Z');
  assert.equal(keyBytes('f1'), '\x1bOP');
  assert.equal(keyBytes('f5'), '\x1b[15~');
  assert.equal(keyBytes('f12'), '\x1b[24~');
  assert.equal(keyBytes('q'), 'q');
});

test('control keys: ctrl-a..ctrl-z, punctuation, and the other spellings', () => {
  assert.equal(keyBytes('ctrl-a'), '\x01');
  assert.equal(keyBytes('ctrl-c'), '\x03');
  assert.equal(keyBytes('ctrl-d'), '\x04');
  assert.equal(keyBytes('ctrl-z'), '\x1a');
  assert.equal(keyBytes('CTRL-C'), '\x03');
  assert.equal(keyBytes('ctrl+c'), '\x03');
  assert.equal(keyBytes('c-c'), '\x03');
  assert.equal(keyBytes('^c'), '\x03');
  assert.equal(keyBytes('ctrl-\\'), '\x1c');
  assert.equal(keyBytes('ctrl-]'), '\x1d');
  assert.equal(keyBytes('ctrl-['), '\x1b');
  assert.equal(keyBytes('ctrl-@'), '\x00');
  assert.equal(keyBytes('ctrl-_'), '\x1f');
  assert.equal(keyBytes('alt-x'), '\x1bx');
  assert.equal(keyBytes('alt-enter'), '\x1b\r');
  assert.throws(() => keyBytes('ctrl-'), /unknown key/);
  assert.throws(() => keyBytes('hyper-q'), /unknown key/);
  assert.throws(() => keyBytes('f13'), /unknown key/);
});

test('send concatenates text, then keys in order, then enter', () => {
  assert.equal(sendPayload('ls', ['tab', 'ctrl-c'], true), 'ls\t\x03\r');
  assert.equal(sendPayload(undefined, ['up', 'up'], false), '\x1b[A\x1b[A');
  assert.equal(sendPayload('', [], true), '\r');
  const err = usage(() => sendPayload('x', ['nope'], false));
  assert.match(err.message, /unknown key "nope"/);
});

test('wait conditions', () => {
  assert.deepEqual(parseWaitCondition('exit'), { kind: 'exit' });
  assert.deepEqual(parseWaitCondition('idle'), { kind: 'idle', ms: 2000 });
  assert.deepEqual(parseWaitCondition('idle:250'), { kind: 'idle', ms: 250 });
  assert.deepEqual(parseWaitCondition('text:\\$ $'), { kind: 'text', pattern: '\\$ $' });
  assert.deepEqual(parseWaitCondition('text:a:b'), { kind: 'text', pattern: 'a:b' });
  usage(() => parseWaitCondition('idle:soon'));
  usage(() => parseWaitCondition('idle:0'));
  usage(() => parseWaitCondition('text:'));
  usage(() => parseWaitCondition('text:(unclosed'));
  usage(() => parseWaitCondition('exited'));
});

test('signals by name, short name or number', () => {
  assert.equal(parseSignal('TERM'), 'SIGTERM');
  assert.equal(parseSignal('sigint'), 'SIGINT');
  assert.equal(parseSignal('SIGKILL'), 'SIGKILL');
  assert.equal(parseSignal('9'), 'SIGKILL');
  assert.equal(parseSignal('1'), 'SIGHUP');
  usage(() => parseSignal('SIGNOPE'));
  usage(() => parseSignal('999'));
});

test('argument parsing: options, repeats, positionals, the part after --', () => {
  const options = {
    name: { type: 'string' as const, help: '' },
    env: { type: 'string' as const, multiple: true, help: '' },
    cols: { type: 'string' as const, help: '' },
  };
  const args = parseCommandArgs(
    ['--name', 'x', '--env', 'A=1', '--env=B=2', '--json', '--', 'sh', '-c', 'echo --name'],
    options,
  );
  assert.equal(args.values.name, 'x');
  assert.equal(args.values.json, true);
  assert.deepEqual(listOpt(args, 'env'), ['A=1', 'B=2']);
  assert.deepEqual(args.positionals, []);
  assert.deepEqual(args.rest, ['sh', '-c', 'echo --name']);
  assert.deepEqual(parseEnvPairs(['A=1', 'B=x=y', 'C=']), { A: '1', B: 'x=y', C: '' });
  usage(() => parseEnvPairs(['NOEQUALS']));
  usage(() => parseEnvPairs(['1A=x']));
  assert.equal(intOpt(parseCommandArgs(['--cols', '120'], options), 'cols', 1, 10000), 120);
  usage(() => intOpt(parseCommandArgs(['--cols', '12x'], options), 'cols', 1, 10000));
  usage(() => intOpt(parseCommandArgs(['--cols', '0'], options), 'cols', 1, 10000));
  usage(() => intOpt(parseCommandArgs(['--cols', '-3'], options), 'cols', 1, 10000));
  assert.match(usage(() => parseCommandArgs(['--bogus'], options)).message, /Unknown option '--bogus'$/);
  assert.match(usage(() => parseCommandArgs(['--name'], options)).message, /argument missing/);
});

test('regression: global options before the command landed after `--`, in the program; they go before it', () => {
  assert.deepEqual(hoistGlobals(['--socket', '/s', '--json', 'list']), {
    name: 'list',
    args: ['--socket', '/s', '--json'],
  });
  assert.deepEqual(hoistGlobals(['read', 'x', '--json']), { name: 'read', args: ['x', '--json'] });
  assert.deepEqual(hoistGlobals([]), { name: undefined, args: [] });
  // Never into the program's command line: before the first `--`, whatever follows it.
  assert.deepEqual(hoistGlobals(['--socket', 'X', 'new', '--', 'sleep', '100']), {
    name: 'new',
    args: ['--socket', 'X', '--', 'sleep', '100'],
  });
  assert.deepEqual(hoistGlobals(['--json', 'new', '--name', 'n', '--', 'sh', '--', '--json']), {
    name: 'new',
    args: ['--name', 'n', '--json', '--', 'sh', '--', '--json'],
  });
  const parsed = parseCommandArgs(hoistGlobals(['--socket', 'X', '--json', 'new', '--', 'sleep', '30']).args, {});
  assert.deepEqual([parsed.values.socket, parsed.values.json, parsed.rest], ['X', true, ['sleep', '30']]);
});

function captureIo(): Io & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    stdout: (t: string) => void (io.out += t),
    stderr: (t: string) => void (io.err += t),
  };
  return io;
}

test('usage errors: exit 2, one line on stderr, a JSON document with --json', async () => {
  for (const argv of [
    ['frobnicate'],
    ['read'],
    ['show', 'a', 'b'],
    ['new', '--cols', 'wide'],
    ['wait', 'x'],
    ['wait', 'x', '--for', 'later'],
    ['send', 'x'],
    ['send', 'x', '--key', 'nope'],
    ['kill', 'x', '--signal', 'NOPE'],
    ['resize', 'x', '--cols', '10'],
    ['list', '--bogus'],
    ['attach', 'x', '--detach-key', 'nope'],
    ['help', 'nope'],
  ]) {
    const io = captureIo();
    assert.equal(await runCli(argv, io, {}), ExitCode.Usage, argv.join(' '));
    assert.match(io.err, /^holdfast: [^\n]+\n$/, argv.join(' '));
    assert.equal(io.out, '');
    const json = captureIo();
    assert.equal(await runCli([...argv, '--json'], json, {}), ExitCode.Usage);
    const doc = JSON.parse(json.out);
    assert.equal(doc.error.code, 'usage');
    assert.equal(typeof doc.error.message, 'string');
  }
});

test('help: overview, per command, and no command at all', async () => {
  const overview = captureIo();
  assert.equal(await runCli(['help'], overview, {}), 0);
  for (const name of [
    'new',
    'list',
    'show',
    'read',
    'send',
    'wait',
    'attach',
    'resize',
    'kill',
    'rm',
    'serve',
    'stop',
    'doctor',
    'version',
  ]) {
    assert.match(overview.out, new RegExp(`^  ${name} `, 'm'));
    const page = captureIo();
    assert.equal(await runCli([name, '--help'], page, {}), 0);
    assert.match(page.out, new RegExp(`^usage: holdfast ${name}`));
    const viaHelp = captureIo();
    assert.equal(await runCli(['help', name], viaHelp, {}), 0);
    assert.equal(viaHelp.out, page.out);
  }
  assert.match(overview.out, /124 +wait timed out/);
  const none = captureIo();
  assert.equal(await runCli([], none, {}), ExitCode.Usage);
  assert.equal(none.err, 'holdfast: missing command (see `holdfast help`)\n');
});

test('human output: states, ages, tables, quoting', () => {
  assert.equal(formatState({ state: 'running', exit: null }), 'running');
  const waiting = { state: 'waiting', since: 1, source: 'hook' } as const;
  assert.equal(formatPhase({ state: 'running', exit: null, attention: waiting }), 'waiting');
  assert.equal(
    formatPhase({ state: 'exited', exit: { code: 2, signal: null, at: 1 }, attention: waiting }),
    'exited (2)',
  );
  assert.equal(formatState({ state: 'exited', exit: { code: 3, signal: null, at: 0 } }), 'exited (3)');
  assert.equal(formatState({ state: 'exited', exit: { code: null, signal: 'SIGTERM', at: 0 } }), 'exited (SIGTERM)');
  assert.equal(formatAge(0, 59_000), '59s');
  assert.equal(formatAge(0, 3_600_000), '1h');
  assert.equal(table(['A', 'B'], [['long-cell', 'x']]), 'A          B\nlong-cell  x\n');
  assert.equal(shellQuote('plain-word'), 'plain-word');
  assert.equal(printable('title\x1b]0;evil\x07'), 'title\\u{1b}]0;evil\\u{7}');
  assert.equal(shellQuote("it's"), `'it'\\''s'`);
  // What a person is shown before a relaunch runs it: words with spaces stay one word, escapes are visible.
  assert.equal(commandLine(['sh', '-c', 'echo a b', '\x1b[2J']), "sh -c 'echo a b' '\\u{1b}[2J'");
});

test('terminal restore: fixed reset, alternate screen left only when the program is in it', () => {
  const tracker = new AltScreenTracker();
  tracker.feed(Buffer.from('hello \x1b[?1049h vim'));
  assert.equal(tracker.active, true);
  tracker.feed(Buffer.from('\x1b[?25l\x1b[?2004h'));
  assert.equal(tracker.active, true);
  tracker.feed(Buffer.from('\x1b[?1049l'));
  assert.equal(tracker.active, false);
  tracker.feed(Buffer.from('\x1b[?1;1047h'));
  assert.equal(tracker.active, true);
  assert.ok(restoreSequence(true).startsWith('\x1b[?1049l'));
  assert.ok(!restoreSequence(false).includes('\x1b[?1049l'));
  for (const mode of [
    '\x1b[?25h',
    '\x1b[?1000l',
    '\x1b[?1006l',
    '\x1b[?2004l',
    '\x1b[?1l',
    '\x1b>',
    '\x1b[r',
    '\x1b[0m',
  ])
    assert.ok(TERMINAL_RESET.includes(mode), JSON.stringify(mode));
});

test('the detach key is found raw and in kitty / modifyOtherKeys encodings', () => {
  const keys = detachSequences(Buffer.from('\x1c'));
  assert.equal(findDetach(Buffer.from('abc\x1cdef'), keys), 3);
  assert.equal(findDetach(Buffer.from('ab\x1b[92;5u'), keys), 2);
  assert.equal(findDetach(Buffer.from('\x1b[27;5;92~'), keys), 0);
  assert.equal(findDetach(Buffer.from('plain'), keys), -1);
  assert.equal(findDetach(Buffer.from('x\x01'), detachSequences(Buffer.from('\x01'))), 1);
});

test("a first snapshot keeps the user's scrollback; a resync clears it", () => {
  const snapshot = Buffer.from('\x1bc\x1b[3Jline\r\n');
  assert.equal(withoutFullReset(snapshot, false).toString(), 'line\r\n');
  assert.equal(withoutFullReset(snapshot, true).toString(), '\x1b[3Jline\r\n');
  assert.equal(withoutFullReset(Buffer.from('plain'), false).toString(), 'plain');
});

test('doctor: socket directory and token file permissions, each failure with a fix', async () => {
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const { checkSocketDir, checkTokenFile, checkLogDir } = await import('../src/cli/doctor');
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'hf-doctor-'));
  try {
    const dir = path.join(base, 'holdfast');
    fs.mkdirSync(dir, { mode: 0o700 });
    const socket = path.join(dir, 'holdfast.sock');
    assert.equal(checkSocketDir(socket, {}).ok, true);
    fs.chmodSync(dir, 0o755);
    const open = checkSocketDir(socket, {});
    assert.equal(open.ok, false);
    assert.equal(open.fix, `chmod 700 ${dir}`);
    assert.equal(checkSocketDir(path.join(base, 'missing', 'x.sock'), {}).ok, false);

    assert.equal(checkTokenFile(socket).ok, false, 'no token file');
    fs.writeFileSync(`${socket}.token`, 'secret', { mode: 0o644 });
    fs.chmodSync(`${socket}.token`, 0o644);
    const readable = checkTokenFile(socket);
    assert.equal(readable.ok, false);
    assert.equal(readable.fix, `chmod 600 ${socket}.token`);
    fs.chmodSync(`${socket}.token`, 0o600);
    assert.equal(checkTokenFile(socket).ok, true);

    assert.equal(
      checkLogDir(path.join(base, 'state', 'holdfast', 'daemon.log')).ok,
      true,
      'a log dir that can be created',
    );
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
});

test('doctor: the checkpoint directory must be private; unreadable checkpoints are a warning', async () => {
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const { checkCheckpoints } = await import('../src/cli/doctor');
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'hf-doctor-'));
  try {
    const env = { XDG_STATE_HOME: base };
    const dir = path.join(base, 'holdfast', 'recovery');
    assert.match(checkCheckpoints(env).detail, /none written yet/);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dir, 0o755);
    const open = checkCheckpoints(env);
    assert.equal(open.ok, false);
    assert.equal(open.fix, `chmod 700 ${dir}, or move it away`);
    fs.chmodSync(dir, 0o700);
    fs.writeFileSync(path.join(dir, 'checkpoint-torn.json'), '{"version": 1, "id": "torn", "sess', { mode: 0o600 });
    const torn = checkCheckpoints(env);
    assert.equal(torn.ok, true, 'a torn file is skipped, not fatal');
    assert.match(torn.warning ?? '', /1 unreadable and skipped: checkpoint-torn\.json/);
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
});
