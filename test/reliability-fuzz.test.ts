// Reliability 2: protocol fuzzing against a live daemon. Over 100,000 random and mutated frames
// (truncated, oversized lengths, bad JSON, unknown kinds, valid kinds out of order, huge payloads)
// on many connections, plus slowloris writers that send a byte a second. Meanwhile a well-behaved
// watcher is attached to a session printing numbered lines: it must see every line, once, in order;
// the daemon must stay up with its memory bounded. HOLDFAST_SOAK=1: a million frames, longer slowloris.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { encodeFrame, encodeJson, encodeRaw, FrameKind, MAX_FRAME_PAYLOAD } from '../src/protocol/frame';
import { InputLimit } from '../src/protocol/limits';
import { isAlive, startTestDaemon, waitFor, waitForText } from './helpers/daemon';
import { helloFrame, RawConnection, record, RssSampler, sleep, SOAK } from './helpers/reliability';
import { rng } from './helpers/vtFuzz';

const TOTAL_FRAMES = SOAK ? 1_000_000 : 100_000;
const SLOWLORIS_SECONDS = SOAK ? 30 : 6;
const WORKERS = 6;
const HUGE_FRAMES = SOAK ? 40 : 6;
/** Daemon memory may grow by at most this over its idle size while fuzzed (a 32 MiB frame is buffered whole). */
const RSS_GROWTH_BOUND_MIB = 300;

type Rand = () => number;
const pick = <T>(r: Rand, items: readonly T[]): T => items[Math.floor(r() * items.length)];
const int = (r: Rand, max: number) => Math.floor(r() * max);

function randomJson(r: Rand, depth = 0): unknown {
  switch (int(r, depth > 2 ? 5 : 8)) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return (int(r, 1e9) * (r() < 0.5 ? -1 : 1)) / (r() < 0.2 ? 7 : 1);
    case 3:
      return 'x'.repeat(int(r, 20)) + String.fromCharCode(int(r, 0x3000));
    case 4:
      return pick(r, ['', 'watcher', 'owner', 'SIGKILL', 'exit', '(', '.*', 'nope']);
    case 5:
      return Array.from({ length: int(r, 4) }, () => randomJson(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = int(r, 5); i > 0; i--)
        o[
          pick(r, [
            'session',
            'channel',
            'role',
            'cols',
            'rows',
            'condition',
            'kind',
            'pattern',
            'timeoutMs',
            'data',
            'signal',
            'graceMs',
            'name',
            'metadata',
            'key',
            'id',
            'scrollback',
          ])
        ] = randomJson(r, depth + 1);
      return o;
    }
  }
}

/** Methods a fuzzer may call: none of them creates, stops or changes anything that exists. */
const METHODS = [
  'list',
  'show',
  'read',
  'wait',
  'detach',
  'attach',
  'claim',
  'resize',
  'send',
  'update',
  'kill',
  'remove',
  'status',
  'config.get',
  'recovery.inspect',
  'frobnicate',
  '',
  'constructor',
  '__proto__',
  'toString',
];

function randomParams(r: Rand): unknown {
  if (r() < 0.1) return randomJson(r);
  const params = randomJson(r, 1);
  const o = params && typeof params === 'object' && !Array.isArray(params) ? (params as Record<string, unknown>) : {};
  // Never a real session: ids are 8 hex digits, the watched session's name is not guessable.
  if (r() < 0.7) o.session = pick(r, ['deadbeef', 'nope', '0', '', 'sh-1', 'x'.repeat(300)]);
  if (o.condition !== undefined || r() < 0.2) o.timeoutMs = 0;
  return o;
}

/** A frame the daemon answers or ignores without closing the connection. */
function harmlessFrame(r: Rand, id: number): Buffer {
  const roll = r();
  if (roll < 0.55) return encodeJson(FrameKind.Request, { id, method: pick(r, METHODS), params: randomParams(r) });
  if (roll < 0.75)
    return encodeRaw(
      FrameKind.Input,
      1000 + int(r, 1e6),
      Buffer.from(Array.from({ length: int(r, 64) }, () => int(r, 256))),
    );
  // An unknown kind from a newer client: ignored.
  return encodeFrame(9 + int(r, 247), Buffer.from(Array.from({ length: int(r, 200) }, () => int(r, 256))));
}

/** A frame after which the daemon sends an error and closes. */
function fatalFrame(r: Rand): { bytes: Buffer; what: string } {
  switch (int(r, 8)) {
    case 0:
      return {
        bytes: encodeFrame(FrameKind.Request, Buffer.from('{"id":1,"method":' + 'x'.repeat(int(r, 50)))),
        what: 'bad JSON',
      };
    case 1:
      return {
        bytes: encodeJson(
          pick(r, [FrameKind.Response, FrameKind.Event, FrameKind.Error, FrameKind.Snapshot, FrameKind.Output]),
          randomJson(r),
        ),
        what: 'a daemon-only kind',
      };
    case 2:
      return { bytes: helloFrame('', 'x'), what: 'a second hello' };
    case 3: {
      const head = Buffer.alloc(5);
      head.writeUInt32BE(MAX_FRAME_PAYLOAD + 1 + int(r, 0xffffffff - MAX_FRAME_PAYLOAD - 1), 0);
      head[4] = int(r, 256);
      return { bytes: head, what: 'an oversized length' };
    }
    case 4:
      return {
        bytes: encodeFrame(FrameKind.Input, Buffer.from([1, 2].slice(0, int(r, 3)))),
        what: 'an input shorter than its channel',
      };
    case 5:
      return { bytes: encodeJson(FrameKind.Request, { method: 'list', params: {} }), what: 'a request without an id' };
    case 6:
      return { bytes: encodeFrame(FrameKind.Request, Buffer.from([0xff, 0xfe, 0x00])), what: 'binary JSON' };
    default:
      return { bytes: encodeJson(FrameKind.Request, null), what: 'null JSON' };
  }
}

/** A valid frame, mutated: bytes flipped, cut short, or its length changed. */
function mutate(r: Rand, frame: Buffer): Buffer {
  const copy = Buffer.from(frame);
  switch (int(r, 3)) {
    case 0:
      for (let i = 1 + int(r, 4); i > 0; i--) copy[int(r, copy.length)] = int(r, 256);
      return copy;
    case 1:
      return copy.subarray(0, int(r, copy.length));
    default:
      copy.writeUInt32BE(Math.max(0, copy.readUInt32BE(0) + int(r, 64) - 32), 0);
      return copy;
  }
}

interface Tally {
  frames: number;
  connections: number;
  errorsSeen: number;
}

/**
 * One connection: hello (usually), harmless frames, a sentinel request whose answer proves they were all
 * read, then a bad tail.
 */
async function fuzzConnection(socket: string, r: Rand, tally: Tally, budget: number): Promise<void> {
  const raw = new RawConnection(socket);
  raw.keep = 64;
  await raw.connected();
  tally.connections++;
  const parts: Buffer[] = [];
  const scenario = r();
  if (scenario < 0.08) {
    // No hello: garbage, a valid kind out of order, or a mutated hello first.
    parts.push(
      pick(r, [
        Buffer.from(Array.from({ length: 1 + int(r, 100) }, () => int(r, 256))),
        encodeJson(FrameKind.Request, { id: 1, method: 'list', params: {} }),
        mutate(r, helloFrame(socket)),
        harmlessFrame(r, 1),
      ]),
    );
    tally.frames += 1;
    raw.socket.write(Buffer.concat(parts));
    await Promise.race([raw.closed, sleep(6000)]);
    if (raw.errorFrame()) tally.errorsSeen++;
    raw.destroy();
    return;
  }
  parts.push(helloFrame(socket));
  const count = Math.min(budget, 50 + int(r, 1500));
  for (let i = 0; i < count; i++) parts.push(harmlessFrame(r, i + 2));
  const sentinel = 1_000_000 + int(r, 1e6);
  parts.push(encodeJson(FrameKind.Request, { id: sentinel, method: 'status', params: {} }));
  tally.frames += count + 2;
  raw.socket.write(Buffer.concat(parts));
  await waitFor(() => raw.answered.has(sentinel), 60_000, 'the sentinel answer after harmless frames');
  // The tail: a fatal frame, a mutated one, or the connection cut in the middle of a frame.
  const tail = r();
  if (tail < 0.5) {
    const fatal = fatalFrame(r);
    raw.socket.write(fatal.bytes);
    tally.frames++;
    await raw.closedWithin(10_000, `${fatal.what} did not close the connection`);
    if (raw.errorFrame()) tally.errorsSeen++;
  } else if (tail < 0.8) {
    raw.socket.write(mutate(r, harmlessFrame(r, 7)));
    tally.frames++;
    await Promise.race([raw.closed, sleep(50)]);
    raw.destroy();
  } else {
    const frame = harmlessFrame(r, 8);
    raw.socket.write(frame.subarray(0, int(r, frame.length)));
    tally.frames++;
    raw.destroy();
  }
}

test(
  `protocol fuzz: ${TOTAL_FRAMES} random and mutated frames and slowloris writers; ` +
    'the daemon stays up and bounded, a watcher misses nothing',
  async () => {
    const daemon = await startTestDaemon();
    const stopFile = path.join(daemon.dir, 'stop');
    try {
      const client = await daemon.connect();
      const program =
        `stty -echo; echo READY; read go; i=0; while [ ! -e ${stopFile} ]; do i=$((i+1)); echo "line $i"; ` +
        'if [ $((i % 20)) = 0 ]; then read -t 0.01 x; fi; done; echo "END $i"; sleep 100';
      const { session } = await client.request('create', {
        name: `watched-${process.pid}`,
        argv: ['bash', '-c', program],
        scrollback: 100,
      });
      await waitForText(client, session.id, '^READY$', 10_000);
      const watcher = await daemon.connect('watcher');
      const output: Buffer[] = [];
      let outputTail = ''; // the last bytes the watcher got: its END line is the barrier before the count
      let snapshots = 0;
      const onOutput = (bytes: Buffer) => {
        output.push(bytes);
        outputTail = (outputTail + bytes.toString('utf8')).slice(-64);
      };
      await watcher.attach({ session: session.id, role: 'watcher' }, { onSnapshot: () => snapshots++, onOutput });
      await waitFor(() => snapshots === 1, 10_000, 'the watcher snapshot');
      await client.request('send', { session: session.id, data: 'go\r' });

      const rss = new RssSampler(daemon.pid);
      const idle = rss.sample();
      const started = Date.now();
      const tally: Tally = { frames: 0, connections: 0, errorsSeen: 0 };

      // Slowloris: before the hello (dropped by the handshake timeout) and after it (a request one byte a second).
      const slowStarted = Date.now();
      const slowBefore = Array.from({ length: 5 }, () => new RawConnection(daemon.socket));
      const slowAfter = Array.from({ length: 3 }, () => new RawConnection(daemon.socket));
      await Promise.all([...slowBefore, ...slowAfter].map((c) => c.connected()));
      for (const c of slowAfter) c.socket.write(helloFrame(daemon.socket));
      const slowHello = helloFrame(daemon.socket);
      const slowRequest = encodeJson(FrameKind.Request, { id: 42, method: 'status', params: {} });
      const slowloris = (async () => {
        for (let second = 0; second < SLOWLORIS_SECONDS; second++) {
          for (const c of slowBefore) if (!c.socket.destroyed) c.socket.write(slowHello.subarray(second, second + 1));
          for (const c of slowAfter) c.socket.write(slowRequest.subarray(second, second + 1));
          await sleep(1000);
        }
        for (const c of slowAfter) c.socket.write(slowRequest.subarray(SLOWLORIS_SECONDS));
      })();

      // Huge payloads, one at a time: an input or unknown kind at the daemon's cap for a frame, or just below.
      const huge = (async () => {
        const r = rng(7);
        for (let i = 0; i < HUGE_FRAMES; i++) {
          const raw = new RawConnection(daemon.socket);
          await raw.connected();
          const size = InputLimit.RequestBytes - 4 - (i % 2 === 0 ? 0 : int(r, 1024));
          raw.socket.write(helloFrame(daemon.socket));
          raw.socket.write(encodeRaw(i % 3 === 0 ? FrameKind.Input : 9 + int(r, 200), 5, Buffer.alloc(size, 0x61)));
          raw.socket.write(encodeJson(FrameKind.Request, { id: 77, method: 'status', params: {} }));
          await waitFor(() => raw.answered.has(77), 60_000, 'the answer after a huge frame');
          tally.frames += 3;
          raw.destroy();
        }
      })();

      const seed = Number(process.env.HOLDFAST_PROTOCOL_FUZZ_SEED ?? Date.now() % 100_000);
      const workers = Array.from({ length: WORKERS }, async (_, w) => {
        const r = rng(seed * 31 + w);
        while (tally.frames < TOTAL_FRAMES) await fuzzConnection(daemon.socket, r, tally, TOTAL_FRAMES - tally.frames);
      });
      await Promise.all([...workers, huge]).catch((err) => {
        throw new Error(`seed ${seed}: ${(err as Error).message}`);
      });
      const fuzzMs = Date.now() - started;
      await slowloris;
      // Before the hello: dropped after 5 s. After it: no timeout; the byte-a-second request is answered.
      for (const c of slowBefore) {
        const closedAt = await c.closedWithin(20_000, 'a slowloris before the hello');
        assert.ok(closedAt - slowStarted >= 4500, `a slowloris was dropped after ${closedAt - slowStarted} ms`);
        assert.deepEqual(c.errorFrame(), { code: 'protocol', message: 'no hello within 5000 ms' });
      }
      await waitFor(
        () => slowAfter.every((c) => c.answered.has(42)),
        10_000,
        'the answers to the byte-a-second requests',
      );
      for (const c of [...slowAfter, ...slowBefore]) c.destroy();

      const peak = rss.stop();
      assert.ok(isAlive(daemon.pid), 'the daemon died');
      fs.writeFileSync(stopFile, '');
      await waitForText(client, session.id, '^END \\d+$', 30_000);
      // The daemon's screen has it; the watcher's connection brings it in its own time.
      await waitFor(() => /END \d+\r?\n/.test(outputTail), 30_000, 'the END line at the watcher');
      const lines = Buffer.concat(output)
        .toString('utf8')
        .replace(/\r/g, '')
        .split('\n')
        .filter((l) => l !== '');
      const end = /^END (\d+)$/.exec(lines[lines.length - 1] ?? '');
      assert.ok(end, `the watcher's output does not end with END n: ${JSON.stringify(lines.slice(-3))}`);
      const n = Number(end[1]);
      assert.equal(lines.length, n + 1, `the watcher got ${lines.length - 1} lines of ${n}`);
      for (let i = 0; i < n; i++)
        if (lines[i] !== `line ${i + 1}`) assert.fail(`the watcher's line ${i + 1} is ${JSON.stringify(lines[i])}`);
      assert.equal(snapshots, 1, 'the watcher was resynced');

      record({
        item: '2',
        name: 'frames sent (random, mutated, huge) / connections',
        value: `${tally.frames} / ${tally.connections}`,
      });
      record({
        item: '2',
        name: 'fuzzing time (seed, rerun with HOLDFAST_PROTOCOL_FUZZ_SEED)',
        value: `${fuzzMs} ms (seed ${seed})`,
      });
      record({
        item: '2',
        name: 'daemon RSS idle → peak while fuzzed',
        value: `${Math.round(idle)} → ${Math.round(peak)}`,
        unit: 'MiB',
        bound: `growth < ${RSS_GROWTH_BOUND_MIB} MiB`,
      });
      record({ item: '2', name: 'numbered lines the watcher saw, all in order, none missing', value: n });
      record({
        item: '2',
        name: 'slowloris writers (5 before hello dropped at 5 s, 3 after hello answered)',
        value: `${SLOWLORIS_SECONDS} s`,
      });
      assert.ok(tally.frames >= TOTAL_FRAMES);
      assert.ok(
        peak - idle < RSS_GROWTH_BOUND_MIB,
        `the daemon grew from ${idle.toFixed(0)} to ${peak.toFixed(0)} MiB`,
      );
      assert.equal((await client.request('list', {})).sessions.length, 1, 'the fuzzers changed the sessions');
    } finally {
      fs.writeFileSync(stopFile, '');
      await daemon.stop();
    }
  },
);
