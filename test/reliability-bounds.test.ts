// Bounds before work: hostile inputs thrown at a daemon serving 20 sessions (one flooding) while both
// cores are kept busy. Another client's `list` keeps its answers quick, each input gets its answer or
// a one-line error, and the daemon's memory comes back near where it started.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { type HoldfastClient, RequestError } from '../src/client/client';
import type { DaemonEvent } from '../src/protocol/messages';
import { MAX_STRING_PAYLOAD, SequenceBoundary } from '../src/daemon/pty/sequenceBoundary';
import { checkpointJson } from './helpers/checkpoint';
import { startTestDaemon, type TestDaemon, waitFor } from './helpers/daemon';
import { encodeJson, FrameKind } from '../src/protocol/frame';
import { busyCores, helloFrame, RawConnection, record, rssMiB, RssSampler } from './helpers/reliability';

/**
 * Longest a second client's `list` may wait while an input is thrown at the daemon. The goal is
 * 100 ms; with parsing and restoring still on the main thread and a shared, loaded machine, what
 * holds today is this (before the bounds: 21 s for a 20 MB screen, 11 s for the sends).
 */
const LIST_BOUND_MS = 2000;
/**
 * RSS may stay this far above the baseline once the inputs are done: V8 keeps freed old-space pages
 * until a later collection, glibc keeps freed arenas, and up to 8 MiB of queued input and a restored
 * archive were held on the way; before the bounds the peak was 666 MiB.
 */
const RSS_MARGIN_MIB = 100;

/**
 * A second client sending `list` every 20 ms, in a process of its own (this one's encoding of the
 * hostile inputs must not count as the daemon's delay): the longest wait over a span of time.
 */
class ListProbe {
  private readonly child: ChildProcess;
  /** [sent, answered] wall-clock times of every `list`. */
  private readonly samples: [number, number][] = [];

  constructor(socket: string) {
    const client = require.resolve('../src/client/client'); // compiled beside this file
    const script =
      `const { HoldfastClient } = require(${JSON.stringify(client)});` +
      `const options = { socket: ${JSON.stringify(socket)}, client: 'probe', version: 'test' };` +
      `HoldfastClient.connect(options).then(async (c) => {` +
      `  for (;;) { const sent = Date.now(); await c.request('list', {}); console.log(sent + ' ' + Date.now());` +
      `    await new Promise((r) => setTimeout(r, 20)); } });`;
    this.child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let partial = '';
    this.child.stdout!.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop()!;
      for (const line of lines) this.samples.push(line.split(' ').map(Number) as [number, number]);
    });
  }

  get answered(): number {
    return this.samples.length;
  }

  /** The longest wait of a `list` in flight at any time from `from` to now (waits for the one in flight). */
  async maxSince(from: number): Promise<number> {
    const until = Date.now();
    await waitFor(() => this.samples.some(([sent]) => sent > until), 120_000, 'the probe to be answered');
    let max = 0;
    for (const [sent, answered] of this.samples)
      if (answered >= from && sent <= until) max = Math.max(max, answered - sent);
    return max;
  }

  stop(): void {
    this.child.kill('SIGKILL');
  }
}

/** The error a request fails with, or undefined when it succeeds. */
async function failure(request: Promise<unknown>): Promise<RequestError | undefined> {
  try {
    await request;
    return undefined;
  } catch (err) {
    assert.ok(err instanceof RequestError, String(err));
    return err;
  }
}

interface Scene {
  daemon: TestDaemon;
  client: HoldfastClient;
  recovery: string;
  events: DaemonEvent[];
}

/** `listBoundMs`: a tighter bound on the other client's `list` than LIST_BOUND_MS, for inputs that meet one. */
type Input = { name: string; listBoundMs?: number; run(scene: Scene): Promise<string> };

/**
 * The bound on `list` for the requests one connection sends at once (#43: 3,000 resizes held it 722 ms,
 * three connections of 1,024 attaches that never read 514 ms): taken at a pace, they leave it the
 * baseline's (42-107 ms here) and one turn of 32 frames.
 */
const PACED_LIST_BOUND_MS = 400;

/** A raw connection of `daemon` past its hello, sending `requests` (method, params) all at once. */
async function burst(daemon: TestDaemon, requests: [string, object][], read = true): Promise<RawConnection> {
  const raw = new RawConnection(daemon.socket);
  await raw.connected();
  if (!read) raw.socket.pause();
  raw.keep = 0;
  raw.socket.write(helloFrame(daemon.socket));
  const frames = requests.map(([method, params], i) => encodeJson(FrameKind.Request, { id: i + 1, method, params }));
  raw.socket.write(Buffer.concat(frames));
  return raw;
}

/** A saved session that was not running, on top of checkpointJson's fields. */
function savedSession(extra: object): Record<string, unknown> {
  return { id: 's1', name: 'saved', cwd: '/', running: false, ...extra };
}

/** A program printing `head` + `count` bytes of `fill` + `tail`, then a marker line; waits for the marker. */
async function programPrints(scene: Scene, head: string, count: number, fill: string, tail: string): Promise<string> {
  const script =
    `printf '${head}'; head -c ${count} /dev/zero | tr '\\0' '${fill}'; printf '${tail}'; ` +
    `printf 'END-''OF-INPUT\\n'; exec sleep 600`;
  const { session } = await scene.client.request('create', { argv: ['sh', '-c', script] });
  const seen = await scene.client.request('wait', {
    session: session.id,
    condition: { kind: 'text', pattern: 'END-OF-INPUT' },
    timeoutMs: 60_000,
  });
  assert.equal(seen.met, true, 'the program printed everything');
  return session.id;
}

const INPUTS: Input[] = [
  {
    name: 'nothing (the baseline: the flood and the busy cores alone)',
    async run() {
      const answered = Date.now();
      await waitFor(() => Date.now() - answered > 3000, 5000, 'three seconds of probing');
      return 'no input';
    },
  },
  {
    name: 'a 300 MB checkpoint file, listed',
    async run({ client, recovery }) {
      const fd = fs.openSync(path.join(recovery, 'checkpoint-huge.json'), 'w', 0o600);
      fs.ftruncateSync(fd, 300 * 1024 * 1024);
      fs.closeSync(fd);
      const listed = await client.request('recovery.list', {});
      const skipped = listed.skipped.find((s) => s.file.endsWith('checkpoint-huge.json'));
      assert.ok(skipped, 'the file is reported as skipped');
      fs.rmSync(path.join(recovery, 'checkpoint-huge.json'));
      return `skipped: ${skipped.error}`;
    },
  },
  {
    name: 'six 15 MB checkpoints (under the 16 MiB cap, each a 15 MB screen): listed twice, inspected, restored',
    async run({ client, recovery }) {
      const screen = 'x'.repeat(15 * 1024 * 1024);
      const ids = Array.from({ length: 6 }, (_, i) => `big${i}`);
      // One file's bytes, its id rewritten for each (encoding 15 MB six times took 7 s beside the busy cores).
      const file = Buffer.from(checkpointJson('big0', [savedSession({ screen })]));
      const idAt = file.indexOf('"id":"big0"') + '"id":"'.length;
      for (const id of ids) {
        file.write(id, idAt);
        fs.writeFileSync(path.join(recovery, `checkpoint-${id}.json`), file);
      }
      // Each gets its answer, or `limit` when the loaded machine reads the files slower than the budget.
      const answers: string[] = [];
      const answer = async <T>(request: Promise<T>, told: (answer: T) => string) => {
        const error = await failure(request.then((a) => answers.push(told(a))));
        if (error) assert.equal(error.code, 'limit', error.message);
        if (error) answers.push(`limit: ${error.message}`);
      };
      for (let round = 0; round < 2; round++)
        await answer(client.request('recovery.list', {}), (listed) => {
          assert.deepEqual(
            listed.checkpoints
              .map((c) => c.id)
              .filter((id) => ids.includes(id))
              .sort(),
            ids,
          );
          return `${listed.checkpoints.length} listed`;
        });
      await answer(client.request('recovery.inspect', { id: 'big0' }), (inspected) => {
        assert.equal(inspected.sessions[0].screenBytes, screen.length);
        return `${inspected.sessions[0].screenBytes} screen bytes inspected`;
      });
      // Over the bound of a saved screen: the session comes back archived, without the screen.
      await answer(client.request('recovery.restore', { id: 'big1' }), ({ sessions }) => {
        for (const s of sessions) void client.request('remove', { session: s.id });
        return `${sessions.length} restored`;
      });
      for (const id of ids) fs.rmSync(path.join(recovery, `checkpoint-${id}.json`), { force: true });
      return answers.join(', ');
    },
  },
  {
    name: 'a checkpoint with a 20 MB saved screen, restored',
    async run({ client, recovery }) {
      const screen = ('x'.repeat(199) + '\r\n').repeat(100_000);
      fs.writeFileSync(
        path.join(recovery, 'checkpoint-bigscreen.json'),
        checkpointJson('bigscreen', [savedSession({ screen })]),
      );
      const error = await failure(client.request('recovery.restore', { id: 'bigscreen' }));
      fs.rmSync(path.join(recovery, 'checkpoint-bigscreen.json'), { force: true });
      return error ? `${error.code}: ${error.message}` : 'restored';
    },
  },
  {
    name: 'a checkpoint with a saved screen at the 512 Ki-character bound, restored',
    async run({ client, recovery }) {
      const screen = ('x'.repeat(199) + '\r\n').repeat(10_000).slice(0, 512 * 1024);
      fs.writeFileSync(
        path.join(recovery, 'checkpoint-fullscreen.json'),
        checkpointJson('fullscreen', [savedSession({ screen })]),
      );
      const { sessions } = await client.request('recovery.restore', { id: 'fullscreen' });
      for (const s of sessions) await client.request('remove', { session: s.id });
      return `restored (${sessions.length} session)`;
    },
  },
  {
    name: 'eight 25 MiB sends to a program that does not read',
    async run({ client, daemon }) {
      // Raw mode: the terminal's line discipline would discard a full line's overflow instead of holding it.
      const { session } = await client.request('create', {
        argv: ['sh', '-c', "stty raw -echo; echo RAW-''MODE; exec sleep 600"],
      });
      await client.request('wait', { session: session.id, condition: { kind: 'text', pattern: 'RAW-MODE' } });
      // The request's frame encoded once (a client's encoding of it took 1.2 s beside the busy cores).
      const data = 'y'.repeat(25 * 1024 * 1024);
      const frame = encodeJson(FrameKind.Request, { id: 1, method: 'send', params: { session: session.id, data } });
      const answers: string[] = [];
      for (let i = 0; i < 8; i++) {
        // A request over the frame bound ends its connection with the error: one connection each.
        const sender = new RawConnection(daemon.socket);
        await sender.connected();
        sender.socket.write(helloFrame(daemon.socket));
        sender.socket.write(frame);
        // The hello's answer, then the request's answer or the connection's error.
        await waitFor(() => sender.frames.length >= 2, 60_000, `the answer to send ${i + 1}`);
        sender.destroy();
        const [, answer] = sender.frames;
        type Refusal = { code: string; message: string };
        const body = JSON.parse(answer.payload.toString()) as Refusal & { error?: Refusal };
        const error = answer.kind === FrameKind.Error ? body : body.error;
        answers.push(error ? `${error.code} (${error.message})` : 'sent');
        if (error) assert.ok(!error.message.includes('\n'), 'a one-line error');
      }
      // Within the bounds: 1 MiB sends are taken until 8 MiB wait for the program, then refused.
      const mebibyte = 'z'.repeat(1024 * 1024);
      const small: string[] = [];
      for (let i = 0; i < 10; i++)
        small.push((await failure(client.request('send', { session: session.id, data: mebibyte })))?.code ?? 'sent');
      assert.ok(small.includes('limit'), small.join(' '));
      await client.request('kill', { session: session.id, remove: true });
      return `${answers[0]} x${answers.length}; ten 1 MiB sends: ${small.join(' ')}`;
    },
  },
  {
    name: 'a 10 MB OSC 0 title',
    async run(scene) {
      const id = await programPrints(scene, '\\033]0;', 10_000_000, 'a', '\\007');
      const { session } = await scene.client.request('show', { session: id });
      assert.ok(session.title.length <= 1024, `title of ${session.title.length} characters`);
      await scene.client.request('kill', { session: id, remove: true });
      return `title ${session.title.length} characters`;
    },
  },
  {
    name: 'a 10 MB OSC 7 directory',
    async run(scene) {
      const id = await programPrints(scene, '\\033]7;file://localhost/', 10_000_000, 'a', '\\007');
      const { session } = await scene.client.request('show', { session: id });
      assert.ok(session.cwd.length < 4096, `cwd of ${session.cwd.length} characters`);
      await scene.client.request('kill', { session: id, remove: true });
      return `directory kept (${session.cwd.length} characters)`;
    },
  },
  {
    name: '500 KB of BEL',
    async run(scene) {
      scene.events.length = 0;
      const id = await programPrints(scene, '', 500_000, '\\007', '');
      const bells = scene.events.filter((e) => e.type === 'bell' && e.id === id).length;
      await scene.client.request('kill', { session: id, remove: true });
      assert.ok(bells <= 5, `${bells} bell events`);
      return `${bells} bell event(s)`;
    },
  },
  {
    name: '3,000 resizes sent at once on one connection',
    listBoundMs: PACED_LIST_BOUND_MS,
    async run({ daemon, client }) {
      // An empty screen: a scrollback reflowed 3,000 times leaves the emulator's worker ~50 MiB larger.
      const { session } = await client.request('create', { argv: ['sleep', '600'] });
      const resizes = Array.from({ length: 3000 }, (_, i): [string, object] => [
        'resize',
        { session: session.id, cols: 80 + (i % 50), rows: 24 + (i % 20) },
      ]);
      const raw = await burst(daemon, resizes);
      await waitFor(() => raw.answered.size === 3000, 60_000, 'the 3,000 resizes answered');
      raw.destroy();
      await client.request('kill', { session: session.id, remove: true });
      return 'all 3,000 answered';
    },
  },
  {
    name: 'three connections of 1,024 attaches (one session) that never read',
    listBoundMs: PACED_LIST_BOUND_MS,
    async run({ daemon, client }) {
      const { session } = await client.request('create', { argv: ['sh', '-c', 'seq 1 2000; exec sleep 600'] });
      await client.request('wait', { session: session.id, condition: { kind: 'text', pattern: '^2000$' } });
      const attaches = Array.from({ length: 1024 }, (_, i): [string, object] => [
        'attach',
        { session: session.id, channel: i, role: 'watcher' },
      ]);
      const raws = [await burst(daemon, attaches, false), await burst(daemon, attaches, false)];
      raws.push(await burst(daemon, attaches, false));
      await new Promise((resolve) => setTimeout(resolve, 3000));
      // What the daemon took of them: each connection's attaches wait once 8 MiB of snapshots do.
      const { session: info } = await client.request('show', { session: session.id });
      for (const raw of raws) raw.destroy();
      await client.request('kill', { session: session.id, remove: true });
      assert.ok(info.clients.watchers < 3 * 1024, `${info.clients.watchers} watchers attached`);
      return `${info.clients.watchers} of 3,072 attached after 3 s (the rest wait unread in the kernel)`;
    },
  },
  {
    name: 'a checkpoint whose metadata nests 5,000 levels: list, inspect, restore',
    async run({ client, recovery }) {
      const deep = '{"a":'.repeat(5000) + '{}' + '}'.repeat(5000);
      const text = checkpointJson('deep', [savedSession({ metadata: 'DEEP' })]).replace('"DEEP"', deep);
      fs.writeFileSync(path.join(recovery, 'checkpoint-deep.json'), text);
      const listed = await client.request('recovery.list', {});
      const error = await failure(client.request('recovery.restore', { id: 'deep' }));
      fs.rmSync(path.join(recovery, 'checkpoint-deep.json'), { force: true });
      const skipped = listed.skipped.find((s) => s.file.endsWith('checkpoint-deep.json'));
      assert.ok(skipped, 'the file is reported as skipped');
      assert.ok(error, 'restore is refused');
      return `skipped (${skipped.error}); restore: ${error.code}`;
    },
  },
];

test('hostile inputs, 20 sessions (one flooding), busy cores: list answers in bounds, memory comes back', async () => {
  const daemon = await startTestDaemon();
  const busy: ChildProcess[] = [];
  let probe: ListProbe | undefined;
  try {
    const client = await daemon.connect();
    const recovery = path.join(daemon.env.XDG_STATE_HOME!, 'holdfast', 'recovery');
    fs.mkdirSync(recovery, { recursive: true, mode: 0o700 });
    const events: DaemonEvent[] = [];
    await client.request('subscribe', {});
    client.onEvent((event) => events.push(event));
    await client.request('create', { argv: ['sh', '-c', 'while :; do seq 1 100000; done'], name: 'flood' });
    for (let i = 1; i < 20; i++) await client.request('create', { argv: ['sleep', '600'], name: `quiet-${i}` });
    probe = new ListProbe(daemon.socket);
    const listProbe = probe;
    await waitFor(() => listProbe.answered > 10, 10_000, 'the probe to start');
    busy.push(...busyCores());
    const scene: Scene = { daemon, client, recovery, events };
    const failures: string[] = [];
    let baseline: number | undefined;
    for (const input of INPUTS) {
      const from = Date.now();
      const rss = new RssSampler(daemon.pid, 50);
      const answer = await input.run(scene).finally(() => rss.stop());
      const peak = rss.peak;
      const listMs = Math.round(await listProbe.maxSince(from));
      const bound = input.listBoundMs ?? LIST_BOUND_MS;
      record({
        item: 'hostile',
        name: `${input.name} (20 sessions, one flooding, both cores busy)`,
        value: `${answer}; another client's list waited at most ${listMs} ms; daemon RSS peak ${Math.round(peak)} MiB`,
        bound: `< ${bound} ms`,
      });
      if (listMs >= bound) failures.push(`${input.name}: list waited ${listMs} ms`);
      // The baseline is the daemon after the first input, nothing: three seconds of the flood, whose
      // scrollback and history have filled by then (taken before it, their growth counted as the inputs').
      baseline ??= rssMiB(daemon.pid);
    }
    assert.ok(baseline !== undefined);
    const steady = baseline;
    // Memory comes back once the daemon has collected; wait for that, not for a fixed time.
    await waitFor(() => rssMiB(daemon.pid) < steady + RSS_MARGIN_MIB, 20_000, 'RSS back near its baseline').catch(
      () => undefined,
    );
    const after = rssMiB(daemon.pid);
    record({
      item: 'hostile',
      name: 'daemon RSS before / after every input above',
      value: `${Math.round(steady)} / ${Math.round(after)} MiB`,
      bound: `< baseline + ${RSS_MARGIN_MIB} MiB`,
    });
    assert.deepEqual(failures, []);
    assert.ok(after < steady + RSS_MARGIN_MIB, `RSS ${after} MiB after, ${steady} MiB before`);
  } finally {
    for (const child of busy) child.kill('SIGKILL');
    probe?.stop();
    await daemon.stop();
  }
});

test('an OSC, DCS or APC payload over the bound is dropped whole, in any chunking; shorter ones pass intact', () => {
  const long = 'a'.repeat(MAX_STRING_PAYLOAD + 1);
  const cases: [string, string][] = [
    [`hi\x1b]0;${long}\x07there`, 'hithere'],
    [`hi\x1b]7;file://localhost/${long}\x1b\\there`, 'hi\x1b\\there'],
    [`\x1bP${long}\x18x`, 'x'],
    [`\x1b_${long}\x1b[31mred`, '\x1b[31mred'],
    [`\x1b]52;c;${'Q'.repeat(MAX_STRING_PAYLOAD - 5)}\x07ok`, `\x1b]52;c;${'Q'.repeat(MAX_STRING_PAYLOAD - 5)}\x07ok`],
  ];
  for (const [input, expected] of cases) {
    for (const size of [1000, 4095, 65536, input.length]) {
      const boundary = new SequenceBoundary();
      const bytes = Buffer.from(input);
      const out: Buffer[] = [];
      for (let at = 0; at < bytes.length; at += size) {
        const piece = boundary.cut(bytes.subarray(at, at + size));
        if (piece) out.push(Buffer.from(piece));
      }
      const rest = boundary.flush();
      if (rest) out.push(rest);
      const got = Buffer.concat(out).toString();
      assert.equal(got.length, expected.length, `chunks of ${size}: ${JSON.stringify(input.slice(0, 12))}`);
      assert.equal(got, expected);
    }
  }
});
