// Client roles: watchers never write or resize, one input owner at a time, queries answered by the right side.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { DaemonEvent } from '../src/protocol/messages';
import { startTestDaemon, type TestDaemon, waitFor } from './helpers/daemon';
import { daemonLogNow } from './helpers/reliability';
import { ReplayTerminal } from './helpers/terminal';

let daemon: TestDaemon;
before(async () => {
  daemon = await startTestDaemon();
});
after(async () => {
  await daemon.stop();
});

test("a watcher's size never reaches the PTY, and its input is dropped", async () => {
  const client = await daemon.connect();
  const { session } = await client.request('create', {
    argv: ['sh', '-c', 'read line; echo "got:$line"; stty size; sleep 30'],
    cols: 91,
    rows: 27,
  });
  const watcher = await daemon.connect('watcher');
  const replay = new ReplayTerminal(50, 10);
  const attachment = await watcher.attach({ session: session.id, role: 'watcher', cols: 50, rows: 10 }, replay);
  attachment.write('from-watcher\r');
  attachment.write('again\r');
  // Frames on one connection are handled in order: once this reply is here, the input was handled.
  await watcher.request('list', {});
  // Said in the daemon's log, once for the connection.
  const log = await daemonLogNow(daemon);
  const said = log.split('\n').filter((line) => line.includes(' dropped: '));
  assert.equal(said.length, 1, log);
  assert.match(said[0], new RegExp(`input on channel \\d+ dropped: not the input owner of session ${session.id} \\(`));
  await client.request('send', { session: session.id, data: 'from-send\r' });
  await client.request('wait', {
    session: session.id,
    condition: { kind: 'text', pattern: '^27 91$' },
    timeoutMs: 5000,
  });
  const { lines } = await client.request('read', { session: session.id });
  assert.ok(lines.includes('got:from-send'), `the watcher's input reached the program: ${lines.join('|')}`);
  const { session: info } = await client.request('show', { session: session.id });
  assert.deepEqual([info.cols, info.rows], [91, 27]);
  assert.deepEqual(info.clients, { owners: 0, watchers: 1 });
  await client.request('remove', { session: session.id });
});

test('a new input owner takes over, the previous one is told why, and the size is the owner’s', async () => {
  const client = await daemon.connect();
  const { session } = await client.request('create', {
    argv: ['sh', '-c', 'while read line; do echo "got:$line"; done'],
    cols: 80,
    rows: 24,
  });
  const first = await daemon.connect('first');
  const firstEvents: DaemonEvent[] = [];
  const firstAttachment = await first.attach(
    { session: session.id, role: 'owner', cols: 100, rows: 30 },
    { onSnapshot() {}, onOutput() {}, onEvent: (e) => firstEvents.push(e) },
  );
  firstAttachment.write('one\r');
  await client.request('wait', {
    session: session.id,
    condition: { kind: 'text', pattern: '^got:one$' },
    timeoutMs: 5000,
  });
  assert.deepEqual(((await client.request('show', { session: session.id })).session as { cols: number }).cols, 100);

  const second = await daemon.connect('second');
  const secondAttachment = await second.attach(
    { session: session.id, role: 'owner', cols: 120, rows: 40 },
    { onSnapshot() {}, onOutput() {} },
  );
  await waitFor(() => firstEvents.some((e) => e.type === 'role'), 3000, 'the role event');
  const roleEvent = firstEvents.find((e) => e.type === 'role') as Extract<DaemonEvent, { type: 'role' }>;
  assert.equal(roleEvent.role, 'watcher');
  assert.match(roleEvent.reason, /another client/);
  firstAttachment.write('ignored\r');
  secondAttachment.write('two\r');
  await client.request('wait', {
    session: session.id,
    condition: { kind: 'text', pattern: '^got:two$' },
    timeoutMs: 5000,
  });
  const { lines } = await client.request('read', { session: session.id });
  assert.ok(!lines.includes('got:ignored'), 'the previous owner could still write');
  const { session: info } = await client.request('show', { session: session.id });
  assert.deepEqual([info.cols, info.rows], [120, 40]);

  // The owner leaves: its size stays. A watcher that claims input becomes the owner.
  await secondAttachment.detach(); // resolves with the daemon's reply: the detach is done
  assert.deepEqual(((await client.request('show', { session: session.id })).session as { cols: number }).cols, 120);
  await firstAttachment.claim(90, 20);
  firstAttachment.write('three\r');
  await client.request('wait', {
    session: session.id,
    condition: { kind: 'text', pattern: '^got:three$' },
    timeoutMs: 5000,
  });
  assert.equal(((await client.request('show', { session: session.id })).session as { cols: number }).cols, 90);
  await client.request('remove', { session: session.id });
});

/** How long the query program waits for an answer that never comes (with an owner attached). */
const NO_ANSWER_WINDOW_MS = 700;

// Writes the query, then prints what came back on stdin: as soon as it is a whole answer (it matches
// the expected pattern), or when the window ends with no whole answer.
const QUERY_PROGRAM = `
process.stdin.setRawMode(true);
const [query, expected] = process.argv.slice(2);
let reply = '';
const done = () => { console.log('\\r\\nREPLY:' + JSON.stringify(reply)); process.exit(0); };
process.stdin.on('data', (d) => { reply += d.toString('latin1'); if (new RegExp(expected).test(reply)) done(); });
process.stdout.write(query);
setTimeout(done, ${NO_ANSWER_WINDOW_MS});
`;

async function askQuery(query: string, expected: RegExp, withOwner: boolean): Promise<string> {
  const file = path.join(daemon.dir, 'query.js');
  fs.writeFileSync(file, QUERY_PROGRAM);
  const client = await daemon.connect();
  // The program queries only once told to: after the owner (if any) is attached. The cursor goes
  // home first (the line that told it may have been echoed).
  const { session } = await client.request('create', {
    argv: [
      'sh',
      '-c',
      'read go; printf "\\033[H"; exec "$0" "$1" "$(printf "$2")" "$3"',
      process.execPath,
      file,
      query,
      expected.source,
    ],
    cols: 80,
    rows: 24,
  });
  if (withOwner)
    await client.attach({ session: session.id, role: 'owner', cols: 80, rows: 24 }, { onSnapshot() {}, onOutput() {} });
  await client.request('send', { session: session.id, data: '\r' });
  await client.request('wait', { session: session.id, condition: { kind: 'exit' }, timeoutMs: 10_000 });
  const { lines } = await client.request('read', { session: session.id });
  await client.request('remove', { session: session.id });
  const line = lines.find((l) => l.startsWith('REPLY:'));
  assert.ok(line, `no REPLY line: ${lines.join('|')}`);
  return JSON.parse(line.slice('REPLY:'.length)) as string;
}

test('terminal queries are answered by the daemon only while no input owner is attached', async () => {
  const cases: [string, RegExp][] = [
    ['\\033[c', /^\x1b\[\?[\d;]+c$/], // DA1
    ['\\033[>c', /^\x1b\[>[\d;]+c$/], // DA2
    ['\\033[6n', /^\x1b\[1;1R$/], // cursor position
    ['\\033[?2004$p', /^\x1b\[\?2004;2\$y$/], // DECRQM
    ['\\033]11;?\\033\\\\', /^\x1b\]11;rgb:[0-9a-f/]+\x1b\\$/], // background colour
    ['\\033[>0q', /^\x1bP>\|holdfast/], // XTVERSION
    ['\\033[18t', /^\x1b\[8;24;80t$/], // text area size
  ];
  for (const [query, expected] of cases) {
    assert.match(await askQuery(query, expected, false), expected, `daemon's answer to ${query}`);
  }
  // With an owner attached (this test client never answers), nobody answers.
  assert.equal(await askQuery('\\033[c', /^\x1b\[\?[\d;]+c$/, true), '');
});

test('regression: a wait for text is answered (not met) when the program exits without printing it', async () => {
  const client = await daemon.connect();
  const { session } = await client.request('create', { argv: ['sh', '-c', 'echo something else; read go'] });
  const started = Date.now();
  const waiting = client.request('wait', {
    session: session.id,
    condition: { kind: 'text', pattern: 'never printed' },
  });
  // Sent after the wait on the same connection: the wait is registered before the program exits.
  await client.request('send', { session: session.id, data: '\r' });
  const { met } = await waiting;
  assert.equal(met, false);
  assert.ok(Date.now() - started < 10_000);
  await client.request('remove', { session: session.id });
});
