// Reliability 4: load. 100 sessions each printing numbered lines steadily, and one session flooding
// with 50 watchers, one of which never reads. Every program's output must be complete in the
// daemon's emulator; the flood's throughput with the watchers is compared with none; the daemon's
// memory stays under a stated bound. Timing is reported, and asserted only loosely (a shared,
// loaded machine): the 10% target is in docs/reliability.md. HOLDFAST_SOAK=1: a longer flood.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { HoldfastClient } from '../src/client/client';
import { encodeJson, FrameKind } from '../src/protocol/frame';
import { startTestDaemon, waitFor } from './helpers/daemon';
import { cpuMs, helloFrame, RawConnection, record, RssSampler, sleep, SOAK } from './helpers/reliability';

const SESSIONS = 100;
const WATCHERS = 50;
const FLOOD_LINES = SOAK ? 3_000_000 : 1_000_000;
const SCROLLBACK = 3000;
const STEADY_MS = SOAK ? 300_000 : 15_000;
/** 100 sessions with up to 3,000 lines of scrollback each, the flood, 50 watchers (measured: ~120 MiB). */
const RSS_BOUND_MIB = 1024;
/**
 * Loose on purpose: the watchers are read by this test process, on the same two cores as the
 * daemon and two other engineers' work. The figure itself goes to docs/reliability.md.
 */
const MIN_RATIO = 0.25;

test(
  `load: ${SESSIONS} sessions printing steadily, ${WATCHERS} watchers on a flood (one never reads); ` +
    'nothing lost, memory bounded',
  async () => {
    const daemon = await startTestDaemon();
    const stopFile = path.join(daemon.dir, 'stop');
    const rss = new RssSampler(daemon.pid, 250);
    const clients: HoldfastClient[] = [];
    try {
      const client = await daemon.connect();
      // Five numbered lines a second each, no fork per line (read -t is bash's own sleep here).
      const steady =
        `stty -echo; i=0; while [ ! -e ${stopFile} ]; do i=$((i+1)); echo "s$i"; read -t ${SOAK ? 1 : 0.2} x; done; ` +
        'echo "END $i"; exec sleep 1000';
      const createdAt = Date.now();
      const sessions = [];
      for (let i = 0; i < SESSIONS; i++)
        sessions.push(
          (
            await client.request('create', {
              name: `steady-${i}`,
              argv: ['bash', '-c', steady],
              scrollback: SCROLLBACK,
            })
          ).session,
        );
      record({ item: '4', name: `${SESSIONS} sessions created in`, value: Date.now() - createdAt, unit: 'ms' });

      const { session: flood } = await client.request('create', {
        name: 'flood',
        argv: ['bash', '-c', `stty -echo; while read go; do seq 1 ${FLOOD_LINES}; echo "FLOOD-DONE $go"; done`],
        scrollback: 100,
      });
      const cpu: number[] = [];
      const floodOnce = async (tag: string): Promise<number> => {
        const started = Date.now();
        const cpuBefore = cpuMs(daemon.pid);
        await client.request('send', { session: flood.id, data: `${tag}\r` });
        const { met } = await client.request('wait', {
          session: flood.id,
          condition: { kind: 'text', pattern: `^FLOOD-DONE ${tag}$` },
          timeoutMs: 300_000,
        });
        assert.ok(met, `flood ${tag} did not finish`);
        cpu.push(cpuMs(daemon.pid) - cpuBefore);
        return Date.now() - started;
      };
      const alone1 = await floodOnce('a');

      // 49 watchers that read (each on its own connection) and one that never does.
      const watchers: { bytes: number; tail: string; snapshots: number }[] = [];
      for (let i = 0; i < WATCHERS - 1; i++) {
        const c = await daemon.connect(`watcher-${i}`);
        clients.push(c);
        const w = { bytes: 0, tail: '', snapshots: 0 };
        watchers.push(w);
        const keep = (b: Buffer) => (w.tail = (w.tail + b.subarray(-200).toString('latin1')).slice(-200));
        await c.attach(
          { session: flood.id, role: 'watcher' },
          { onSnapshot: (b) => (w.snapshots++, keep(b)), onOutput: (b) => ((w.bytes += b.length), keep(b)) },
        );
      }
      const stalled = new RawConnection(daemon.socket);
      stalled.keep = 0;
      await stalled.connected();
      stalled.socket.write(helloFrame(daemon.socket));
      stalled.socket.write(
        encodeJson(FrameKind.Request, {
          id: 1,
          method: 'attach',
          params: { session: flood.id, channel: 1, role: 'watcher' },
        }),
      );
      await waitFor(() => stalled.answered.has(1), 10_000, 'the stalled watcher to attach');
      stalled.socket.pause();
      await waitFor(() => watchers.every((w) => w.snapshots >= 1), 30_000, 'every watcher’s snapshot');

      const watched = await floodOnce('b');
      // Before they are closed: a watcher still catching up (resynced) would otherwise lose the end.
      await waitFor(
        () => watchers.every((w) => w.tail.includes('FLOOD-DONE b')),
        30_000,
        'every reading watcher to get the end of the flood',
      );
      // The same again without watchers, so a machine getting busier or quieter shows in both.
      for (const c of clients) c.close();
      stalled.destroy();
      await waitFor(
        async () => (await client.request('show', { session: flood.id })).session.clients.watchers === 0,
        10_000,
        'the watchers to leave',
      );
      const alone2 = await floodOnce('c');

      // Redrawn (WatcherRedraw): the flood's screens and its end, not its bytes.
      const redrawn = watchers.filter((w) => w.snapshots > 1).length;
      const streamed = watchers.map((w) => w.bytes).sort((a, b) => a - b)[Math.floor(watchers.length / 2)];
      const alone = (alone1 + alone2) / 2;
      const ratio = alone / watched;
      let bytes = 0; // what the terminal gets: each number and CR LF
      for (let i = 1; i <= FLOOD_LINES; i++) bytes += String(i).length + 2;
      const mb = bytes / 1e6;
      record({
        item: '4',
        name: `flood (seq 1 ${FLOOD_LINES}, ~${mb.toFixed(1)} MB) with no watchers, before / after`,
        value: `${alone1} / ${alone2}`,
        unit: 'ms',
      });
      record({ item: '4', name: `flood with ${WATCHERS} watchers (one never reads)`, value: watched, unit: 'ms' });
      record({
        item: '4',
        name: 'throughput with watchers ÷ without',
        value: Number(ratio.toFixed(2)),
        bound: `≥ ${MIN_RATIO} asserted; target ≥ 0.9`,
      });
      record({
        item: '4',
        name: 'daemon CPU per flood: alone (before, after) / with the watchers',
        value: `${cpu[0]}, ${cpu[2]} / ${cpu[1]}`,
        unit: 'ms',
      });
      record({
        item: '4',
        name: "reading watchers redrawn during the flood; bytes streamed to one (median) of the flood's",
        value: `${redrawn} of ${WATCHERS - 1}; ${(streamed / 1e6).toFixed(2)} of ${mb.toFixed(1)} MB`,
      });
      assert.ok(ratio >= MIN_RATIO, `the flood ran at ${ratio.toFixed(2)}× its speed without watchers`);

      // Every steady program's output, complete and in order, in the emulator (after 15 s of printing at least).
      await sleep(createdAt + STEADY_MS - Date.now());
      fs.writeFileSync(stopFile, '');
      let total = 0;
      for (const s of sessions) {
        const { met } = await client.request('wait', {
          session: s.id,
          condition: { kind: 'text', pattern: '^END \\d+$' },
          timeoutMs: 30_000,
        });
        assert.ok(met, `${s.name} did not end`);
        const { lines } = await client.request('read', { session: s.id, scrollback: SCROLLBACK });
        const text = lines.filter((l) => l !== '');
        const n = Number(/^END (\d+)$/.exec(text[text.length - 1])![1]);
        assert.ok(n + 1 <= SCROLLBACK, `${s.name} printed more than its scrollback holds`);
        assert.deepEqual(
          text,
          [...Array.from({ length: n }, (_, k) => `s${k + 1}`), `END ${n}`],
          `${s.name}: output incomplete`,
        );
        total += n;
      }
      const peak = rss.stop();
      record({
        item: '4',
        name: `numbered lines checked in ${SESSIONS} emulators, all complete and in order`,
        value: total,
      });
      record({
        item: '4',
        name: 'daemon RSS peak',
        value: Math.round(peak),
        unit: 'MiB',
        bound: `< ${RSS_BOUND_MIB} MiB`,
      });
      assert.ok(peak < RSS_BOUND_MIB, `the daemon's RSS peaked at ${peak.toFixed(0)} MiB`);
    } finally {
      rss.stop();
      fs.writeFileSync(stopFile, '');
      for (const c of clients) c.close();
      await daemon.stop();
    }
  },
);
