// Bounds before work: hostile inputs thrown at a daemon serving 20 sessions (one flooding) while both
// cores are kept busy. Another client's `list` keeps its answers quick, each input gets its answer or
// a one-line error, and the daemon's memory comes back near where it started.
import assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { HoldfastClient, RequestError } from '../src/protocol/client';
import type { DaemonEvent } from '../src/protocol/messages';
import { MAX_STRING_PAYLOAD, SequenceBoundary } from '../src/daemon/sequenceBoundary';
import { startTestDaemon, TestDaemon, waitFor } from './helpers/daemon';
import { record, rssMiB, RssSampler } from './helpers/reliability';

/** Longest a second client's `list` may wait while an input is thrown at the daemon. */
const LIST_BOUND_MS = 100;
/**
 * RSS may stay this far above the baseline once the inputs are done: V8 keeps freed old-space pages
 * until a later collection and glibc keeps freed arenas, so a few tens of MiB linger, while the
 * growth seen before the bounds (a held 10 MB payload, queued 25 MiB sends) was hundreds.
 */
const RSS_MARGIN_MIB = 60;

/** Busy loops on every core, so the daemon competes for CPU as on a loaded machine. */
function busyCores(count = 2): ChildProcess[] {
  return Array.from({ length: count }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
}

/** A second client sending `list` every 20 ms; the longest wait since the last `reset()`. */
class ListProbe {
  max = 0;
  answered = 0;
  private stopped = false;
  readonly done: Promise<void>;

  constructor(private readonly client: HoldfastClient) {
    this.done = this.run();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const started = performance.now();
      await this.client.request('list', {});
      this.max = Math.max(this.max, performance.now() - started);
      this.answered++;
      // Pacing, not ordering: a request every 20 ms, as a sidebar refreshing would.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  reset(): void {
    this.max = 0;
  }

  /** The longest wait since `reset()`, the request in flight now included (waits for its answer). */
  async settle(): Promise<number> {
    const answered = this.answered;
    await waitFor(() => this.answered > answered + 1, 120_000, 'the probe to be answered');
    return this.max;
  }

  stop(): Promise<void> {
    this.stopped = true;
    return this.done;
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

type Input = { name: string; run(scene: Scene): Promise<string> };

/** A checkpoint file as the daemon writes them, with `sessions` and a given id. */
function checkpointText(id: string, sessions: object[]): string {
  return JSON.stringify({
    version: 1,
    id,
    writtenAt: Date.now(),
    daemonPid: 1,
    daemonStartedAt: Date.now(),
    socket: '/nowhere',
    sessions,
  });
}

function savedSession(extra: object): object {
  return { id: 's1', name: 'saved', cwd: '/', cols: 80, rows: 24, createdAt: 0, running: false, exit: null, ...extra };
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
    name: 'a checkpoint with a 20 MB saved screen, restored',
    async run({ client, recovery }) {
      const screen = ('x'.repeat(199) + '\r\n').repeat(100_000);
      fs.writeFileSync(
        path.join(recovery, 'checkpoint-bigscreen.json'),
        checkpointText('bigscreen', [savedSession({ screen })]),
      );
      const error = await failure(client.request('recovery.restore', { id: 'bigscreen' }));
      fs.rmSync(path.join(recovery, 'checkpoint-bigscreen.json'), { force: true });
      return error ? `${error.code}: ${error.message}` : 'restored';
    },
  },
  {
    name: 'eight 25 MiB sends to a program that does not read',
    async run({ client }) {
      const { session } = await client.request('create', { argv: ['sleep', '600'] });
      const data = 'y'.repeat(25 * 1024 * 1024);
      const answers: string[] = [];
      for (let i = 0; i < 8; i++) {
        const error = await failure(client.request('send', { session: session.id, data }));
        answers.push(error ? error.code : 'sent');
        if (error) assert.ok(!error.message.includes('\n'), 'a one-line error');
      }
      await client.request('kill', { session: session.id, remove: true });
      return answers.join(' ');
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
    name: 'a checkpoint whose metadata nests 5,000 levels: list, inspect, restore',
    async run({ client, recovery }) {
      let metadata: object = {};
      for (let i = 0; i < 5000; i++) metadata = { a: metadata };
      fs.writeFileSync(path.join(recovery, 'checkpoint-deep.json'), checkpointText('deep', [savedSession({ metadata })]));
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

test('hostile inputs with 20 sessions (one flooding) and busy cores: list answers within 100 ms, memory comes back', async () => {
  const daemon = await startTestDaemon();
  const busy: ChildProcess[] = [];
  try {
    const client = await daemon.connect();
    const recovery = path.join(daemon.env.XDG_STATE_HOME!, 'holdfast', 'recovery');
    fs.mkdirSync(recovery, { recursive: true, mode: 0o700 });
    const events: DaemonEvent[] = [];
    await client.request('subscribe', {});
    client.onEvent((event) => events.push(event));
    await client.request('create', { argv: ['sh', '-c', 'while :; do seq 1 100000; done'], name: 'flood' });
    for (let i = 1; i < 20; i++) await client.request('create', { argv: ['sleep', '600'], name: `quiet-${i}` });
    const probe = new ListProbe(await daemon.connect('probe'));
    await waitFor(() => probe.answered > 10, 10_000, 'the probe to start');
    const baseline = rssMiB(daemon.pid);
    busy.push(...busyCores());
    const scene: Scene = { daemon, client, recovery, events };
    const failures: string[] = [];
    for (const input of INPUTS) {
      probe.reset();
      const rss = new RssSampler(daemon.pid, 50);
      const answer = await input.run(scene);
      const peak = rss.stop();
      const listMs = Math.round(await probe.settle());
      record({
        item: 'hostile',
        name: `${input.name} (20 sessions, one flooding, both cores busy)`,
        value: `${answer}; another client's list waited at most ${listMs} ms; daemon RSS peak ${Math.round(peak)} MiB`,
        bound: `< ${LIST_BOUND_MS} ms`,
      });
      if (listMs >= LIST_BOUND_MS) failures.push(`${input.name}: list waited ${listMs} ms`);
    }
    await probe.stop();
    // Memory comes back once the daemon has collected; wait for that, not for a fixed time.
    await waitFor(() => rssMiB(daemon.pid) < baseline + RSS_MARGIN_MIB, 20_000, 'RSS back near its baseline').catch(
      () => undefined,
    );
    const after = rssMiB(daemon.pid);
    record({
      item: 'hostile',
      name: 'daemon RSS before / after every input above',
      value: `${Math.round(baseline)} / ${Math.round(after)} MiB`,
      bound: `< baseline + ${RSS_MARGIN_MIB} MiB`,
    });
    assert.deepEqual(failures, []);
    assert.ok(after < baseline + RSS_MARGIN_MIB, `RSS ${after} MiB after, ${baseline} MiB before`);
  } finally {
    for (const child of busy) child.kill('SIGKILL');
    await daemon.stop();
  }
});

test('an OSC, DCS or APC payload over the bound is dropped whole, in any chunking; shorter ones pass byte for byte', () => {
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
