// Succession: a daemon hands its programs' PTYs to a successor process (src/daemon/succession/handoff.ts) that
// adopts them (adoptedPty.ts). Real PTYs and processes: the old owner (helpers/handoffParent.js) and
// the successor (helpers/handoffSuccessor.js) report to this test over a Unix socket.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { handOff } from '../src/daemon/succession/handoff';
import { receiveHandoff } from '../src/daemon/succession/handoffReceive';
import { linuxProc, portable, processFromPs, processGroups } from '../src/daemon/pty/processGroup';
import { PtyProcess } from '../src/daemon/pty/ptyProcess';
import { isAlive, tempDir, waitFor } from './helpers/daemon';
import { inputText, linkOver, type Message, type ReportLink } from './helpers/handoffReport';

const STEP_MS = 60_000;

/** What one process reported: every message, and the bytes of each program. */
class Reported {
  readonly messages: Message[] = [];
  private readonly data = new Map<string, Buffer[]>();

  constructor(readonly link: ReportLink) {
    link.onMessage((message) => {
      this.messages.push(message);
      if (message.type !== 'data') return;
      const id = message.id as string;
      if (!this.data.has(id)) this.data.set(id, []);
      this.data.get(id)!.push(Buffer.from(message.data as string, 'base64'));
    });
  }

  text(id: string): string {
    return Buffer.concat(this.data.get(id) ?? []).toString('utf8');
  }

  find(type: string, id?: string): Message | undefined {
    return this.messages.find((m) => m.type === type && (id === undefined || m.id === id));
  }

  async next(type: string, id?: string): Promise<Message> {
    await waitFor(() => this.find(type, id) !== undefined, STEP_MS, `a '${type}' message${id ? ` for ${id}` : ''}`);
    return this.find(type, id)!;
  }
}

/** Accepts the two processes' connections, each under the role it says. */
function reportServer(socketPath: string): {
  server: net.Server;
  sockets: net.Socket[];
  role: (name: string) => Promise<Reported>;
} {
  const roles = new Map<string, Reported>();
  const sockets: net.Socket[] = [];
  const server = net.createServer((socket) => {
    sockets.push(socket);
    const link = linkOver(socket);
    let reported: Reported | undefined;
    link.onMessage((message) => {
      if (message.type === 'hello' && !reported) {
        reported = new Reported(link);
        reported.messages.push(message);
        roles.set(message.role as string, reported);
      }
    });
  });
  server.listen(socketPath);
  return {
    server,
    sockets,
    role: async (name) => {
      await waitFor(() => roles.has(name), STEP_MS, `the ${name} to connect`);
      return roles.get(name)!;
    },
  };
}

/** Complete lines only (the last one may still be arriving). */
function completeLines(text: string): string[] {
  const lines = text.split('\r\n');
  lines.pop();
  return lines;
}

/** Equal, or fails naming where they part (the texts are megabytes long). */
function assertSameText(actual: string, expected: string, what: string): void {
  if (actual === expected) return;
  let at = 0;
  while (at < actual.length && actual[at] === expected[at]) at++;
  assert.fail(
    `${what}: differs at byte ${at} of ${expected.length} (got ${actual.length}): ` +
      `${JSON.stringify(actual.slice(Math.max(0, at - 40), at + 40))} vs ` +
      `${JSON.stringify(expected.slice(Math.max(0, at - 40), at + 40))}`,
  );
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // already gone: nothing to clean up
  }
}

const FLOOD = Array.from({ length: 1_000_000 }, (_, i) => `${i + 1}\r\n`).join('') + 'FLOOD-DONE\r\n';

test('a successor takes the programs: every byte once, input, resize, exits; no hangup', async (t) => {
  const dir = tempDir('hf-succession-');
  const { server, sockets, role } = reportServer(path.join(dir, 'report.sock'));
  // Both cores kept busy, so the cut and the reads around it run on a starved machine.
  const busy = [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  const pids: number[] = [];
  t.after(() => {
    for (const child of busy) child.kill('SIGKILL');
    for (const pid of pids) if (isAlive(pid)) killGroup(pid);
    server.close();
    for (const socket of sockets) socket.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const parentProcess = spawn(process.execPath, [path.join(__dirname, 'helpers', 'handoffParent.js')], {
    env: { ...process.env, HOLDFAST_TEST_REPORT: path.join(dir, 'report.sock') },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  t.after(() => parentProcess.kill('SIGKILL'));
  const parent = await role('parent');
  const started = await parent.next('started');
  pids.push(...Object.values(started.pids as Record<string, number>));
  const programPid = (id: string) => (started.pids as Record<string, number>)[id];
  const successor = await role('successor');
  pids.push(successor.find('hello')!.pid as number);
  const handed = await parent.next('handed');
  t.diagnostic(`cut to the successor's answer: ${(handed.ms as number).toFixed(1)} ms (both cores busy)`);
  assert.equal(await exited(parentProcess), 0, 'the old owner exits once the successor has them');

  // What was read and not delivered at the cut went over: the paused stream had a chunk.
  const byId = new Map(
    (handed.handed as { id: string; outputBytes: number; inputBytes: number }[]).map((h) => [h.id, h]),
  );
  assert.ok(byId.get('floodPaused')!.outputBytes > 0, 'the paused flood had output read and not delivered');
  t.diagnostic(
    `handed over: ${byId.get('floodPaused')!.outputBytes} bytes read and not delivered, ` +
      `${byId.get('input')!.inputBytes} of input not taken`,
  );
  assert.equal(byId.has('done'), false, 'an exited program hands over its exit, not a PTY');
  const adopted = await successor.next('adopted');
  assert.equal(adopted.masters, 5, 'the successor holds one master per live program (the inherited copies closed)');
  const sessions = adopted.sessions as { id: string; kind: string; state: unknown; exit: unknown }[];
  assert.deepEqual(
    sessions.find((s) => s.id === 'done'),
    {
      id: 'done',
      kind: 'exited',
      state: { id: 'done', note: 'state of done' },
      exit: { code: 7, signal: null },
    },
  );
  for (const id of ['counter', 'floodPaused', 'floodFlowing', 'screen', 'input'])
    assert.deepEqual(sessions.find((s) => s.id === id)?.state, { id, note: `state of ${id}` });

  // Every byte exactly once: what the old owner read, then what the successor read.
  for (const id of ['floodPaused', 'floodFlowing']) {
    await waitFor(() => successor.text(id).includes('FLOOD-DONE'), STEP_MS * 2, `the end of ${id}`);
    assert.ok(parent.text(id).length > 0 && successor.text(id).length > 0, `${id} was read on both sides`);
    assertSameText(parent.text(id) + successor.text(id), FLOOD, id);
  }
  const before = completeLines(parent.text('counter')).length;
  await waitFor(
    () => completeLines(parent.text('counter') + successor.text('counter')).length >= before + 50,
    STEP_MS,
    'the counter to go on after the old owner exited',
  );
  const counted = completeLines(parent.text('counter') + successor.text('counter'));
  assert.deepEqual(
    counted,
    counted.map((_, i) => `c${i + 1}`),
    'the counter has no gap and no repeat',
  );

  // Input and size reach the program through the adopted master.
  assert.match(parent.text('screen'), /READY 24 80/);
  successor.link.send({ type: 'write', id: 'screen', text: 'hello\r' });
  await waitFor(() => successor.text('screen').includes('GOT:hello'), STEP_MS, 'the program to read the input');
  successor.link.send({ type: 'resize', id: 'screen', cols: 100, rows: 30 });
  // bash runs a trap once its read returns: the next line lets it say what it got.
  successor.link.send({ type: 'write', id: 'screen', text: 'resized\r' });
  await waitFor(() => successor.text('screen').includes('WINCH 30 100'), STEP_MS, 'SIGWINCH and the new size');
  for (const id of ['counter', 'screen'])
    assert.doesNotMatch(parent.text(id) + successor.text(id), /GOT-HUP/, `${id} got no SIGHUP`);

  // Input the program had not taken at the cut (and what was written while cut) reaches it once, in order.
  assert.ok(byId.get('input')!.inputBytes > 0, 'input was waiting for the program at the cut');
  successor.link.send({ type: 'signal', id: 'input', signal: 'SIGUSR1' });
  const sha = createHash('sha256').update(inputText()).digest('hex');
  await waitFor(() => /SHA [0-9a-f]{64}/.test(successor.text('input')), STEP_MS, 'the program to read its input');
  assert.match(successor.text('input'), new RegExp(`SHA ${sha}`));

  // Exits: one that ends by itself, one killed by a signal from outside, one the successor signals.
  successor.link.send({ type: 'write', id: 'screen', text: 'quit\r' });
  assert.deepEqual(await successor.next('exit', 'screen'), {
    type: 'exit',
    id: 'screen',
    exit: { code: null, signal: null }, // the code (5) went with the parent
    groupAlive: false,
  });
  process.kill(-programPid('counter'), 'SIGKILL');
  assert.deepEqual((await successor.next('exit', 'counter')).exit, { code: null, signal: null });
  successor.link.send({ type: 'signal', id: 'floodFlowing', signal: 'SIGTERM' });
  assert.equal((await successor.next('signalled', 'floodFlowing')).sent, true);
  assert.equal((await successor.next('exit', 'floodFlowing')).groupAlive, false);
  successor.messages.length = 0;
  successor.link.send({ type: 'signal', id: 'floodFlowing', signal: 'SIGTERM' });
  assert.equal((await successor.next('signalled', 'floodFlowing')).sent, false, 'a gone group is never signalled');

  // The successor's dispose ends what it still holds, as PtyProcess's does.
  successor.link.send({ type: 'end' });
  await waitFor(() => !isAlive(programPid('floodPaused')), STEP_MS, 'the last program to end with the successor');
});

test('a successor that fails or does not answer: every PTY carries on in the old owner, nothing lost', async (t) => {
  const env = { ...(process.env as Record<string, string>), TERM: 'xterm-256color' };
  const script = 'i=0; while :; do i=$((i+1)); echo "c$i"; sleep 0.002; done';
  const pty = new PtyProcess({ argv: ['bash', '-c', script], cwd: process.cwd(), env, cols: 80, rows: 24 });
  t.after(() => pty.dispose());
  let text = '';
  pty.onData((chunk) => (text += chunk.toString('utf8')));
  await waitFor(() => completeLines(text).length >= 20, STEP_MS, 'the counter to start');
  const node = process.execPath;
  const failing = [
    { file: node, args: ['-e', 'process.exit(3)'], answerTimeoutMs: 10_000, error: /exited \(3\) before answering/ },
    { file: node, args: ['-e', 'console.log("yes")'], answerTimeoutMs: 10_000, error: /answer is not valid JSON/ },
    { file: node, args: ['-e', 'console.log(\'{"adopted":2}\')'], answerTimeoutMs: 10_000, error: /took 2 of 1/ },
    { file: node, args: ['-e', 'setInterval(() => {}, 1000)'], answerTimeoutMs: 300, error: /no answer within 300 ms/ },
    { file: '/nonexistent/holdfast', args: [], answerTimeoutMs: 10_000, error: /could not start: spawn .* ENOENT/ },
  ];
  for (const { file, args, answerTimeoutMs, error } of failing) {
    const lines = completeLines(text).length;
    await assert.rejects(
      handOff({ sessions: [{ id: 'counter', pty }], successor: { file, args }, answerTimeoutMs }),
      error,
    );
    await waitFor(() => completeLines(text).length >= lines + 20, STEP_MS, 'the counter to go on here');
  }
  const lines = completeLines(text).length;
  const twice = [
    { id: 'a', pty },
    { id: 'b', pty },
  ];
  await assert.rejects(handOff({ sessions: twice, successor: failing[0] }), /already handed over/);
  await waitFor(() => completeLines(text).length >= lines + 20, STEP_MS, 'the counter to go on after a double cut');
  const counted = completeLines(text);
  assert.deepEqual(
    counted,
    counted.map((_, i) => `c${i + 1}`),
    'no gap and no repeat across the failed handoffs',
  );
  assert.equal(pty.write('x'), undefined, 'input is taken again');
});

test('input written after the cut reaches the program here when the successor fails', async (t) => {
  const env = { ...(process.env as Record<string, string>), TERM: 'xterm-256color' };
  const pty = new PtyProcess({ argv: ['cat'], cwd: process.cwd(), env, cols: 80, rows: 24 });
  t.after(() => pty.dispose());
  let text = '';
  pty.onData((chunk) => (text += chunk.toString('utf8')));
  // Asked once the input is taken for the manifest: what is written now is held by the cut PTY.
  const writeLate = () => assert.equal(pty.write('late input\n'), undefined);
  const failing = { file: process.execPath, args: ['-e', 'process.exit(3)'] };
  await assert.rejects(
    handOff({ sessions: [{ id: 'cat', pty }], successor: failing, ownState: writeLate }),
    /exited \(3\) before answering/,
  );
  await waitFor(() => text.includes('late input'), STEP_MS, 'the input written during the handoff to reach cat');
});

test('the successor refuses a bad manifest with a one-line reason', async () => {
  const notATerminal = fs.openSync(__filename, 'r');
  const terminal = fs.openSync('/dev/ptmx', 'r+');
  try {
    const live = {
      kind: 'live',
      id: 'a',
      pid: 100,
      pgid: 100,
      fd: notATerminal,
      cols: 80,
      rows: 24,
      output: '',
      input: '',
    };
    const cases: [string, RegExp][] = [
      ['{', /the handoff manifest is not valid JSON/],
      [JSON.stringify({ version: 2, copies: [], sessions: [] }), /version: /],
      [JSON.stringify({ version: 1, copies: [], sessions: [{ ...live, cols: 0 }] }), /sessions\.0\.cols: /],
      [JSON.stringify({ version: 1, copies: [], sessions: [live, { ...live, id: 'b' }] }), /sessions\.1\.fd: repeated/],
      [
        JSON.stringify({ version: 1, copies: [], sessions: [live] }),
        new RegExp(`fd ${notATerminal} is not a terminal`),
      ],
      [
        JSON.stringify({ version: 1, copies: [], sessions: [{ ...live, fd: terminal, pid: process.pid }] }),
        /runs in a group other than 100/,
      ],
    ];
    for (const [manifest, reason] of cases) {
      const input = new PassThrough();
      const out = new PassThrough();
      input.end(manifest);
      await assert.rejects(receiveHandoff(input, out), reason);
      const answer = JSON.parse(String(out.read())) as { error: string };
      assert.match(answer.error, reason);
      assert.doesNotMatch(answer.error, /\n/);
    }
  } finally {
    fs.closeSync(notATerminal);
    fs.closeSync(terminal);
  }
});

test('one process, both ways: running (with its group), or none', async (t) => {
  const child = spawn('sleep', ['1000'], { detached: true, stdio: 'ignore' });
  t.after(() => child.kill('SIGKILL'));
  for (const groups of [linuxProc, portable, processGroups]) {
    assert.deepEqual(await groups.process(child.pid!), { kind: 'live', pgid: child.pid! }, groups.kind);
  }
  child.kill('SIGKILL');
  await exited(child);
  for (const groups of [linuxProc, portable]) assert.deepEqual(await groups.process(child.pid!), { kind: 'none' });
  assert.deepEqual(processFromPs('  100   100 Z+\n', 100), { kind: 'zombie' });
  assert.deepEqual(processFromPs('  100    90 S\n', 100), { kind: 'live', pgid: 90 });
  assert.deepEqual(processFromPs('', 100), { kind: 'none' });
});

test('a successor hands them on again, after a successor that fails: the counter stays whole', async (t) => {
  const dir = tempDir('hf-succession-');
  const { server, sockets, role } = reportServer(path.join(dir, 'report.sock'));
  const pids: number[] = [];
  const parentProcess = spawn(process.execPath, [path.join(__dirname, 'helpers', 'handoffParent.js')], {
    env: {
      ...process.env,
      HOLDFAST_TEST_REPORT: path.join(dir, 'report.sock'),
      HOLDFAST_TEST_PROGRAMS: 'counter,screen',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  t.after(() => {
    parentProcess.kill('SIGKILL');
    for (const pid of pids) if (isAlive(pid)) killGroup(pid);
    server.close();
    for (const socket of sockets) socket.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const parent = await role('parent');
  const started = (await parent.next('started')).pids as Record<string, number>;
  pids.push(...Object.values(started));
  const first = await role('successor');
  pids.push(first.find('hello')!.pid as number);
  assert.equal(await exited(parentProcess), 0);
  const counter = (...sides: Reported[]) => completeLines(sides.map((side) => side.text('counter')).join(''));
  const before = counter(parent).length;
  await waitFor(() => counter(parent, first).length >= before + 20, STEP_MS, 'the counter in the first successor');

  first.link.send({ type: 'handoff' });
  const second = await role('successor2');
  pids.push(second.find('hello')!.pid as number);
  const handed = await first.next('handed');
  assert.match(handed.failedFirst as string, /exited \(3\) before answering/);
  const secondAdopted = await second.next('adopted');
  assert.equal(secondAdopted.masters, 2, 'one master per program, handed on');
  const adopted = secondAdopted.sessions as { id: string; state: unknown }[];
  assert.deepEqual(adopted.find((s) => s.id === 'counter')?.state, { id: 'counter', generation: 1 });
  const handedOn = counter(parent, first).length;
  await waitFor(
    () => counter(parent, first, second).length >= handedOn + 50,
    STEP_MS,
    'the counter in the second successor',
  );
  const counted = counter(parent, first, second);
  assert.deepEqual(
    counted,
    counted.map((_, i) => `c${i + 1}`),
    'no gap and no repeat across two handoffs and a failed one',
  );

  second.link.send({ type: 'resize', id: 'screen', cols: 90, rows: 20 });
  second.link.send({ type: 'write', id: 'screen', text: 'hello again\r' });
  await waitFor(() => second.text('screen').includes('WINCH 20 90'), STEP_MS, 'SIGWINCH in the second successor');
  await waitFor(() => second.text('screen').includes('GOT:hello again'), STEP_MS, 'input in the second successor');
  assert.doesNotMatch(
    [parent, first, second].map((side) => side.text('counter') + side.text('screen')).join(''),
    /GOT-HUP/,
  );
  second.link.send({ type: 'end' });
  await waitFor(() => !isAlive(started.counter) && !isAlive(started.screen), STEP_MS, 'the programs to end');
});
