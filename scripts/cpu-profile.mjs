// Where a command's CPU goes, by kind of process: runs COMMAND in a cgroup (v1 cpuacct) of its own, samples every
// process in it from /proc four times a second (utime + stime, the last figure seen of each), and prints the
// CPU-seconds of each kind (Chromium's renderer, code-server's extension host, the daemon, ...), the cgroup's total
// and the wall time. What ended between two samples (the CLI calls, short shells) is the total's remainder.
// Root only (it makes the cgroup). docs/testing.md, "Where the CPU goes".
//
//   node scripts/cpu-profile.mjs [--json FILE] -- COMMAND [ARGS...]
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { clearInterval, setInterval } from 'node:timers';

const args = process.argv.slice(2);
const sep = args.indexOf('--');
if (sep < 0 || sep === args.length - 1) fail('usage: node scripts/cpu-profile.mjs [--json FILE] -- COMMAND [ARGS...]');
const jsonAt = args.indexOf('--json');
const jsonFile = jsonAt >= 0 && jsonAt < sep ? args[jsonAt + 1] : undefined;
const command = args.slice(sep + 1);

const TICKS = 100; // USER_HZ on Linux
const root = '/sys/fs/cgroup/cpuacct';
if (!fs.existsSync(root)) fail(`no cgroup v1 cpuacct at ${root}`);
const group = path.join(root, `cpu-profile-${process.pid}`);
fs.mkdirSync(group);

/** The kind of a process, from its command line. */
function kind(cmdline, comm) {
  const type = cmdline.find((a) => a.startsWith('--type='))?.slice('--type='.length);
  const exe = path.basename(cmdline[0] ?? comm);
  if (/chrom/.test(exe) || comm.startsWith('chrom')) {
    if (/crashpad/.test(exe)) return 'chromium crashpad';
    if (type === 'utility') {
      const sub = cmdline
        .find((a) => a.startsWith('--utility-sub-type='))
        ?.split('.')
        .pop();
      return `chromium utility ${sub ?? ''}`.trim();
    }
    return `chromium ${type ?? 'browser'}`;
  }
  if (cmdline.some((a) => a.endsWith('daemon.js'))) return 'holdfast daemon';
  if (cmdline.some((a) => a.endsWith('cli.js'))) return 'holdfast CLI';
  if (cmdline.includes('for (;;) {}')) return 'CPU spinners';
  if (cmdline.some((a) => a.includes('code-server')) || cmdline.some((a) => a.includes('lib/vscode'))) {
    if (type) return `code-server ${type}`;
    if (cmdline.some((a) => a.endsWith('entry.js'))) return 'code-server';
    return `code-server ${path.basename(cmdline.find((a) => a.endsWith('.js')) ?? exe)}`;
  }
  if (cmdline.includes('--test') || cmdline.some((a) => /\.test\.js$/.test(a))) return 'test runner';
  if (/^(ba|da|z)?sh$/.test(exe)) return 'shells';
  return exe;
}

const seen = new Map(); // pid -> { kind, ticks }
function sample() {
  let pids;
  try {
    pids = fs.readFileSync(path.join(group, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean);
  } catch {
    return;
  }
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(rest[11]) + Number(rest[12]);
      let entry = seen.get(pid);
      // A pid reused by another process: keep the first one's figure under a key of its own.
      if (entry && entry.ticks > ticks) {
        seen.set(`${pid}-${seen.size}`, entry);
        entry = undefined;
      }
      // Read each time: a process forked from Chromium's zygote names its type only once it runs.
      let cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      // Chromium's children rewrite their command line as one string.
      if (cmdline.length === 1) cmdline = cmdline[0].split(' ');
      if (!entry) seen.set(pid, (entry = { kind: kind(cmdline, comm), ticks, cmdline: '' }));
      // A zombie's command line is empty: keep what it was.
      if (cmdline.length) {
        entry.kind = kind(cmdline, comm);
        entry.cmdline = cmdline.join(' ').slice(0, 200);
      }
      entry.ticks = ticks;
    } catch {
      // the process ended between the list and its stat: its last sample stands
    }
  }
}

const started = process.hrtime.bigint();
const child = spawn('sh', ['-c', `echo $$ > ${group}/cgroup.procs && exec "$@"`, 'sh', ...command], {
  stdio: 'inherit',
});
const timer = setInterval(sample, 250);
child.on('exit', (code, signal) => {
  clearInterval(timer);
  sample();
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const total = Number(fs.readFileSync(path.join(group, 'cpuacct.usage'), 'utf8')) / 1e9;
  const byKind = new Map();
  for (const { kind: k, ticks } of seen.values()) byKind.set(k, (byKind.get(k) ?? 0) + ticks / TICKS);
  const sampled = [...byKind.values()].reduce((a, b) => a + b, 0);
  byKind.set('ended between samples', Math.max(0, total - sampled));
  const rows = [...byKind].sort((a, b) => b[1] - a[1]);
  console.error(`[cpu-profile] ${command.join(' ')}`);
  console.error(`[cpu-profile] wall ${wall.toFixed(1)} s, CPU ${total.toFixed(1)} s`);
  for (const [k, s] of rows) console.error(`[cpu-profile]   ${s.toFixed(1).padStart(7)}  ${k}`);
  if (jsonFile) {
    const processes = [...seen.values()]
      .sort((a, b) => b.ticks - a.ticks)
      .map((e) => [e.ticks / TICKS, e.kind, e.cmdline]);
    const report = { command, wall, cpu: total, byKind: Object.fromEntries(rows), processes };
    fs.writeFileSync(jsonFile, JSON.stringify(report, null, 1));
  }
  // The group is empty once every process in it has ended; a leftover keeps it.
  setTimeout(() => {
    try {
      fs.rmdirSync(group);
    } catch (err) {
      console.error(`[cpu-profile] ${group} not removed: ${err.message}`);
    }
    process.exit(code ?? (signal ? 1 : 0));
  }, 500);
});

function fail(message) {
  console.error(message);
  process.exit(2);
}
