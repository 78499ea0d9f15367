#!/usr/bin/env node
// npm run reliability: builds, runs the reliability suite (test/reliability-*.test.ts plus the older
// tests it builds on), collects the figures each test records and writes docs/reliability.md.
// Options: --no-build (use the current dist/), --soak (HOLDFAST_SOAK=1: the long variants).
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const args = new Set(process.argv.slice(2));
const soak = args.has('--soak') || process.env.HOLDFAST_SOAK === '1';
const outDir = path.join(root, '.out-reliability');
const figuresFile = path.join(os.tmpdir(), `holdfast-reliability-${process.pid}.jsonl`);

/** Test files whose figures the report collects. */
const FILES = [
  'reliability-endpoint',
  'reliability-fuzz',
  'reliability-load',
  'reliability-faults',
  'reliability-pid',
  'reliability-limits',
  'reliability-trust',
  'reliability-hostile',
  'reliability-search',
  'reliability-output',
  'reliability-idle',
  'daemon-lifetime',
  'daemon-stream',
  'snapshot-fidelity',
  'snapshot-fidelity-workers',
  'worktree',
  'agent-hooks',
  'connection-rights',
  'reliability-checks',
  'reliability-transcripts',
  'workspace-trust',
  'ui-text',
  'attention-permission-prompt',
  'agents-real-prompt',
  'hosts-ssh',
  'hosts-search',
  'hosts-install',
  'hosts-hostile',
];

const ITEMS = [
  [
    '1',
    'Endpoint races',
    'daemon-lifetime: 2 and 20 racing starters end with one daemon, every client on it, no session lost; a stale ' +
      'socket is replaced, a live one never. reliability-endpoint: a socket file unlinked under the daemon is ' +
      're-published; replaced by a stale socket, taken back; taken by another live server, left to it (logged, ' +
      'clients still served); its directory removed, logged as a lost endpoint.',
  ],
  [
    '2',
    'Protocol fuzzing',
    'reliability-fuzz: random and mutated frames (truncated, oversized lengths, bad JSON, unknown kinds, ' +
      'daemon-only kinds, second hellos, huge frames at the 32 MiB cap) on many connections, slowloris writers ' +
      'before and after the hello, while a watcher must see every numbered line of a session once and in order; ' +
      'daemon RSS sampled every 100 ms.',
  ],
  [
    '3',
    'Emulator fidelity',
    'snapshot-fidelity: seeded differential fuzz, 300 random VT streams (HOLDFAST_FUZZ_RUNS for more; 3,000 with ' +
      '--soak), snapshot replayed into a fresh emulator, every cell, attribute, cursor and mode compared; failing ' +
      'seeds printed.',
  ],
  [
    '4',
    'Load',
    'reliability-load: 100 sessions printing numbered lines for 15 s, one session flooding `seq` with 50 watchers ' +
      '(one never reads); every line checked in each emulator; flood time with and without the watchers; daemon RSS. ' +
      'daemon-stream: a watcher that never reads does not slow the program and is resynced.',
  ],
  [
    '5',
    'Faults',
    'reliability-faults: a client SIGKILLed mid-frame; a client without hello (dropped at 5 s); the disk full (a ' +
      '256 KiB tmpfs) during a checkpoint write; a log the disk does not take (a FIFO nobody reads yet: the daemon ' +
      'serves meanwhile, then every line arrives in order); the daemon SIGKILLed (sessions get SIGHUP, nothing ' +
      'left, the next daemon starts cleanly); a program that closes its terminal but runs on (stays running, kill ' +
      'and stop end it and its grandchild). daemon-lifetime: SIGHUP-ignorers killed after the grace period, ' +
      'grandchildren gone after stop. recovery.test: checkpoints atomic under SIGKILL.',
  ],
  [
    '6',
    'No PID recycling',
    'reliability-pid: the reaped pid is handed to an unrelated process group for real (root writes ' +
      '/proc/sys/kernel/ns_last_pid); kill, remove and stop must not signal it; the same, after a member left ' +
      'behind is gone, through both kinds of PTY (spawned and adopted: one guard, groupGuard.ts).',
  ],
  [
    '7',
    'Permissions and auth',
    'reliability-limits: a socket directory owned by nobody or mode 0720 refused with the fix in the message; ' +
      'directory 0700, socket, token and log 0600; a 0644 token refused; missing, empty or wrong token answered with ' +
      'one auth error frame and nothing else. daemon-lifetime: 0777 directory refused. recovery.test: checkpoints ' +
      '0600 in a 0700 directory.',
  ],
  [
    '8',
    'Resource bounds',
    'reliability-limits: frame cap (32 MiB read, 32 MiB + 1 refused with the size in the message), hello cap ' +
      'before auth (64 KiB), a client that never reads its answers dropped at 256 MiB queued, sessions per daemon ' +
      '(--max-sessions or HOLDFAST_MAX_SESSIONS; bad values refused), scrollback (0..200,000 lines; what is kept is ' +
      'what was asked), 1,024 channels per connection; each with its message asserted. daemon-stream: the 8 MiB ' +
      'output queue of a slow client.',
  ],
  [
    'idle',
    'Idle costs nothing',
    "reliability-idle: 20 idle sessions, detached and then with a watcher each: the daemon's context switches " +
      '(every thread) and CPU time over 10 s.',
  ],
  [
    'hostile',
    'Hostile input',
    'Tried as another local user (a fake daemon, planted directories, files and symlinks; played by uid 65534) and ' +
      'as a hostile client or program (patterns, sizes, names, titles, types, environment, crafted checkpoints). ' +
      'reliability-trust: what the clients check before they send a byte. reliability-hostile: what the daemon ' +
      "refuses or bounds. reliability-output: what program and checkpoint text can do to the CLI's output and to " +
      'resume. connection-rights: what a scoped credential (`holdfast mcp --sessions`) reaches. hosts-ssh: what ' +
      'a host reached over a real sshd can cost a client (a key unknown, a far end mute or hostile). hosts-hostile: ' +
      "what a host's far end can do to a window (forged roles, exits and sessions to a tab and the sidebar, a " +
      'flood of events, silence after the hello, a 4 GiB frame), while a local request is timed. hosts-search: ' +
      'what a host costs a search of every host, and what an MCP scope reaches across hosts. hosts-install: what ' +
      'an install on a host refuses (planted symlinks, a platform or node it cannot run on) and a far end of ' +
      'another protocol. Each row is a regression test that failed before its fix; docs/security.md says who is ' +
      'trusted with what.',
  ],
];

function run(cmd, argv, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], ...opts });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      process.stdout.write(d);
    });
    child.on('exit', (code) => resolve({ code, out }));
  });
}

const started = Date.now();
if (!args.has('--no-build')) {
  const build = await run('npm', ['run', 'build']);
  if (build.code !== 0) {
    console.error('npm run build failed (use --no-build to run against the current dist/)');
    process.exit(1);
  }
}
fs.rmSync(outDir, { recursive: true, force: true });
const tsc = await run('npx', ['tsc', '-p', '.', '--outDir', outDir]);
const files = FILES.map((f) => path.join(outDir, 'test', `${f}.test.js`));
const missing = files.filter((f) => !fs.existsSync(f));
if (missing.length > 0) {
  console.error(`tsc did not produce ${missing.join(', ')}`);
  process.exit(1);
}
if (tsc.code !== 0) console.error('(tsc reported errors; the tests were emitted and run anyway)');
fs.rmSync(figuresFile, { force: true });
const env = {
  ...process.env,
  HOLDFAST_RELIABILITY_REPORT: figuresFile,
  ...(soak ? { HOLDFAST_SOAK: '1', HOLDFAST_FUZZ_RUNS: '3000' } : {}),
};
const results = [];
const seconds = {};
let testsFailed = false;
for (const [i, file] of files.entries()) {
  const name = FILES[i];
  const t0 = Date.now();
  const testRun = await run(
    process.execPath,
    ['--test', '--test-concurrency=1', '--test-timeout=900000', '--test-reporter=tap', file],
    { env },
  );
  seconds[name] = Math.round((Date.now() - t0) / 1000);
  if (testRun.code !== 0) testsFailed = true;
  for (const line of testRun.out.split('\n')) {
    const m = /^(not )?ok \d+ - (.*)$/.exec(line);
    if (m && !m[2].endsWith('.test.js')) results.push({ ok: !m[1], name: m[2].replace(/ # SKIP.*$/, ''), file: name });
  }
}
const durationS = Math.round((Date.now() - started) / 1000);
const figures = fs.existsSync(figuresFile)
  ? fs
      .readFileSync(figuresFile, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
  : [];
fs.rmSync(figuresFile, { force: true });

let commit;
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  if (execFileSync('git', ['status', '--porcelain', 'src'], { cwd: root, encoding: 'utf8' }).trim())
    commit += ' (+ uncommitted changes in src/)';
} catch {
  commit = 'unknown';
}
const passed = results.filter((r) => r.ok).length;
const failed = results.filter((r) => !r.ok);
const esc = (s) => String(s).replace(/\|/g, '\\|');

const lines = [];
lines.push('# Reliability and security', '');
lines.push(
  'Generated by `npm run reliability` (`node scripts/reliability-report.mjs [--no-build] [--soak]`) from the ' +
    "tests' own measurements; do not edit by hand. Each item is a test in the normal `npm test` run; " +
    '`HOLDFAST_SOAK=1` runs the long variants (a million fuzz frames and 30 s of slowloris, a 3,000,000-line flood, ' +
    '5 minutes of steady printing).',
  '',
);
lines.push(
  `Latest run: ${new Date().toISOString()}, ${soak ? 'soak' : 'CI'} variant, ${durationS} s; ` +
    `holdfast ${commit}; node ${process.version}; ` +
    `${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB; ` +
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} at the end. ` +
    'The machine was shared with other work, so wall times are noisy: read the ratios and the bounds.',
  '',
);
lines.push(
  `**${passed} of ${results.length} tests passed.**` +
    `${failed.length ? ' Failed: ' + failed.map((f) => `${f.file}: ${f.name}`).join('; ') : ''}`,
  '',
);
for (const [item, title, what] of ITEMS) {
  lines.push(`## ${/^\d+$/.test(item) ? `${item}. ` : ''}${title}`, '', what, '');
  const mine = figures.filter((f) => f.item === item);
  if (mine.length > 0) {
    lines.push(
      item === 'hostile' ? '| attack | what it got now | bound asserted |' : '| figure | value | bound asserted |',
      '|---|---|---|',
    );
    for (const f of mine)
      lines.push(`| ${esc(f.name)} | ${esc(f.value)}${f.unit ? ' ' + f.unit : ''} | ${esc(f.bound ?? '')} |`);
    lines.push('');
  }
}
lines.push(
  '## Tests run',
  '',
  `Seconds per file: ${Object.entries(seconds)
    .map(([f, n]) => `${f} ${n}`)
    .join(', ')}.`,
  '',
  '| file | test | result |',
  '|---|---|---|',
);
for (const r of results) lines.push(`| ${r.file} | ${esc(r.name)} | ${r.ok ? 'pass' : '**FAIL**'} |`);
lines.push('');
lines.push('## Bugs these tests found (fixed, each with a regression test)', '');
lines.push(
  '- **A kill right after create was lost.** Until the new program has called setsid its process group does not ' +
    'exist, so signalling the group failed and the program got SIGKILL only after the grace period. The unreaped ' +
    'leader is now signalled directly then (`ptyProcess.ts`). Found by CI under load; reproduced with six busy ' +
    'loops. Test: daemon-lifetime, "regression: a kill right after create reaches the program".',
);
lines.push(
  "- **A reused pid was signalled.** After a session's program was reaped and its process group emptied, kill, " +
    'remove and stop still signalled "the group" by the old pid: with pid_max at 32768 a new, unrelated process ' +
    'group with that id was killed. Now the group is marked gone for good once seen empty or once a process has the ' +
    'old pid again (`ptyProcess.ts`). Test: reliability-pid, "regression: kill, remove and stop after exit ' +
    'never signal the process group that reused its pid".',
);
lines.push(
  '- **A client that never read its answers grew the daemon without bound** (100,000 `list` answers: 54 → 450 MB). ' +
    'Output already stopped at 8 MiB; answers, events and snapshots did not. Now a client with more than 256 MiB ' +
    'queued is dropped and the log says why (`connection.ts`). Test: reliability-limits, "regression: a client that ' +
    'never reads its answers is dropped at the 256 MiB queue cap".',
);
lines.push(
  '- **Before its hello a client could make the daemon buffer 32 MiB per connection** (20 connections: +470 MB). ' +
    'The hello is now at most 64 KiB (`connection.ts`). Test: reliability-limits, "regression: before its hello a ' +
    'client made the daemon buffer up to 32 MiB per connection".',
);
lines.push(
  '- **A checkpoint write that failed on a full disk left its temp file**, keeping the disk full. It is removed ' +
    'now (`checkpoint.ts`). Test: reliability-faults, "regression: the disk full while a checkpoint is written".',
);
lines.push(
  '- **`--max-sessions lots` turned the session limit off** (NaN compares false) and `--scrollback x` made every ' +
    'create fail. Both are checked at start now, and the limit can also be set with `HOLDFAST_MAX_SESSIONS` (for the ' +
    'extension and `holdfast serve`, which pass no flags). Test: reliability-limits, "regression: a bad ' +
    '--max-sessions turned the session limit off".',
  '',
);
lines.push('## Known limits', '');
lines.push(
  '- The flood target (within 10% of no watchers) is not met on this machine with 50 watchers; the test asserts ' +
    'only a ratio of at least 0.25, because the 49 reading watchers run in the test process on the same two cores. ' +
    'The daemon CPU figure above is the less noisy measure of what the watchers cost it.',
);
lines.push(
  '- A program that ignores SIGHUP survives a daemon killed with SIGKILL (nobody is left to send SIGKILL after the ' +
    'grace period); a program that leaves its process group (setsid) is out of reach of kill and stop, as in tmux.',
);
lines.push(
  '- A client that has said hello has no idle timeout: a slowloris after the hello holds a connection (and at most ' +
    "one 32 MiB frame) until it finishes or disconnects. Only the user's own processes can connect (0700 directory, " +
    '0600 token).',
);
lines.push(
  '- A daemon whose socket directory is removed logs the lost endpoint and keeps serving its connected clients; it ' +
    'does not recreate the directory. The endpoint watch runs only in a private directory (a --socket in a shared ' +
    'one is not watched).',
);
lines.push(
  '- The last-resort PID guard cannot tell our group from a recycled one in one case: the group empties, its id is ' +
    'reused by a new group whose creator has already exited, all before the daemon looks (it looks at exit and on ' +
    'every kill). The kernel does not reuse a pid while any process holds it as a group id.',
  '',
);
fs.writeFileSync(path.join(root, 'docs', 'reliability.md'), lines.join('\n'));
console.log(
  `\nwrote docs/reliability.md: ${passed}/${results.length} passed, ${figures.length} figures, ${durationS} s`,
);
process.exit(failed.length > 0 || testsFailed ? 1 : 0);
