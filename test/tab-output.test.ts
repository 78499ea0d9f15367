// What a tab writes into VS Code (TabOutput): nothing lost before the terminal opens, notices after
// the snapshot they describe, writes paced to what the renderer parses (its answers to the probes after each
// write, rendererWriter.ts), and a tab that falls behind a flood (a real daemon, a real PTY) dropping what it
// holds for a fresh snapshot, ending on the exact screen.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import type { Attachment } from '../src/client/client';
import { DaemonConnection } from '../src/extension/daemonConnection';
import { noticeLine } from '../src/extension/notices';
import { SessionTab } from '../src/extension/pseudoterminal';
import { PROBE, PROBE_ANSWER, RendererPace } from '../src/extension/rendererWriter';
import { OutputPace, TabOutput } from '../src/extension/tabOutput';
import { DAEMON_SCRIPT, startTestDaemon, waitFor } from './helpers/daemon';
import { ReplayTerminal } from './helpers/terminal';

/** Resolves once the tab has handed VS Code everything it held. */
function drained(out: TabOutput): Promise<void> {
  return waitFor(() => out.behind === 0, 5000, 'the tab to write what it holds');
}

/** A renderer that parses at once: a write's probe (small ones have none) is answered on the next turn. */
function recorder(): { out: TabOutput; writes: string[]; resyncs: number[] } {
  const writes: string[] = [];
  const resyncs: number[] = [];
  const out: TabOutput = new TabOutput(
    (text) => {
      const probed = text.endsWith(PROBE);
      writes.push(probed ? text.slice(0, -PROBE.length) : text);
      if (probed) setImmediate(() => assert.equal(out.takeAnswers(PROBE_ANSWER), ''));
    },
    () => resyncs.push(Date.now()) > 0,
  );
  return { out, writes, resyncs };
}

test('what is written before the terminal opens comes out when it opens, in order', async () => {
  const { out, writes } = recorder();
  out.print('one');
  out.output(Buffer.from('two'));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(writes, []);
  out.open();
  await drained(out);
  assert.deepEqual(writes, [noticeLine('one') + 'two']);
});

test('a notice printed during an attach comes after its snapshot; a history snapshot shows notices again', async () => {
  const { out, writes } = recorder();
  out.open();
  out.expectSnapshot();
  out.printAfterSnapshot('exited');
  out.snapshot(Buffer.from('SCREEN'), 'attach');
  out.print('later');
  out.snapshot(Buffer.from('HISTORY'), 'history');
  await drained(out);
  assert.deepEqual(writes, [
    'SCREEN' + noticeLine('exited') + noticeLine('later') + 'HISTORY' + noticeLine('exited') + noticeLine('later'),
  ]);
});

test('a notice from before an attach is not shown again after its first snapshot, even a resync', async () => {
  const { out, writes } = recorder();
  out.open();
  out.print('reconnecting'); // the connection dropped (a handoff)
  out.expectSnapshot(); // attached again, hidden: no snapshot until the tab is shown
  out.attachSettled();
  out.print('later');
  out.snapshot(Buffer.from('SCREEN'), 'resync'); // shown: the daemon's resync brings the screen
  await drained(out);
  assert.deepEqual(writes, [noticeLine('reconnecting') + noticeLine('later') + 'SCREEN' + noticeLine('later')]);
});

test('a UTF-8 character split across frames is decoded whole', async () => {
  const { out, writes } = recorder();
  out.open();
  const bytes = Buffer.from('é€😀');
  for (const byte of bytes) out.output(Buffer.from([byte]));
  await drained(out);
  assert.equal(writes.join(''), 'é€😀');
});

test('at most MaxUnparsedChars wait in the renderer: the rest waits for its answers, chunks stay whole', async () => {
  const writes: string[] = [];
  const out = new TabOutput((text) => writes.push(text));
  out.open();
  const chunk = 'x'.repeat(4096) + '\x1b[31mred\x1b[0m';
  for (let i = 0; i < 100; i++) out.output(Buffer.from(chunk)); // 411 KB in one turn
  await new Promise((resolve) => setTimeout(resolve, 50));
  const written = () => writes.join('').replaceAll(PROBE, '').length;
  assert.ok(written() >= RendererPace.MaxUnparsedChars, `${written()} written`);
  assert.ok(written() < RendererPace.MaxUnparsedChars + RendererPace.SliceChars, `${written()} written, unanswered`);
  for (const w of writes) {
    assert.ok(w.length <= RendererPace.SliceChars + PROBE.length, `a write of ${w.length} characters`);
    assert.equal(w.replaceAll(PROBE, '').length % chunk.length, 0, 'whole chunks, the probe after them');
  }
  // The renderer answers what it has parsed: as much again goes out.
  const before = written();
  assert.equal(out.takeAnswers(PROBE_ANSWER.repeat(writes.length)), '');
  await waitFor(() => written() > before + RendererPace.MaxUnparsedChars / 2, 5000, 'the next writes');
  out.close();
});

test("the renderer's answers are taken out of the input; one more is the program's own, and goes through", async () => {
  const writes: string[] = [];
  const out = new TabOutput((text) => writes.push(text));
  out.open();
  out.output(Buffer.from('x'.repeat(RendererPace.ProbeMinChars)));
  await waitFor(() => writes.length === 1, 5000, 'the write');
  assert.equal(out.takeAnswers(`a${PROBE_ANSWER}b`), 'ab');
  assert.equal(out.takeAnswers(PROBE_ANSWER), PROBE_ANSWER, 'nothing outstanding: a key, or the program asked');
  out.close();
});

test('echoes and short output go without a probe (local echo takes answers for keys); big writes keep it', async () => {
  const writes: string[] = [];
  const out = new TabOutput((text) => writes.push(text));
  out.open();
  for (const key of 'echo typed') {
    out.output(Buffer.from(key));
    await waitFor(() => writes.at(-1) === key, 5000, `the echo of ${key}`);
  }
  out.output(Buffer.from('\r\n' + 'line\r\n'.repeat(100)));
  await waitFor(() => writes.length === 11, 5000, 'the output');
  assert.ok(!writes.some((w) => w.includes(PROBE)), 'no probe in a write of a few hundred characters');
  assert.equal(out.takeAnswers(PROBE_ANSWER), PROBE_ANSWER, "none outstanding: an answer is the program's");
  out.output(Buffer.from('x'.repeat(RendererPace.ProbeMinChars)));
  await waitFor(() => writes.length === 12, 5000, 'the larger write');
  assert.ok(writes[11].endsWith(PROBE), 'a write of ProbeMinChars is probed');
  assert.equal(out.takeAnswers(PROBE_ANSWER), '');
  out.close();
});

test('small writes are still paced: a probe once they add up to a slice, standing for them all', async () => {
  const writes: string[] = [];
  const out = new TabOutput((text) => writes.push(text));
  out.open();
  const line = 'y'.repeat(99) + '\n';
  let sent = 0;
  while (out['writer'].unparsed === 0 && sent < RendererPace.SliceChars * 2) {
    out.output(Buffer.from(line));
    sent += line.length;
    await waitFor(() => writes.join('').replaceAll(PROBE, '').length === sent, 5000, 'the small write');
  }
  assert.equal(writes.filter((w) => w.includes(PROBE)).length, 1, 'one probe');
  assert.ok(writes.at(-1)!.endsWith(PROBE), 'on the write that made a slice');
  assert.equal(out['writer'].unparsed, RendererPace.SliceChars, 'standing for every small write before it');
  out.close();
});

test('a probe unanswered in time counts as answered, and its late answer is still taken out', async () => {
  const writes: string[] = [];
  const pace = {
    maxUnparsedChars: () => 10,
    sliceChars: 10,
    probeMinChars: 0,
    probeTimeoutMs: 50,
    maxBehindChars: 1_000_000,
  };
  const out = new TabOutput((text) => writes.push(text), undefined, pace);
  out.open();
  out.output(Buffer.from('0123456789'));
  await waitFor(() => writes.length === 1, 5000, 'the first write');
  assert.equal(out.takeAnswers(PROBE_ANSWER), '', 'answered: the renderer answers probes');
  out.output(Buffer.from('abcdefghij'));
  out.output(Buffer.from('ABCDEFGHIJ'));
  await waitFor(() => writes.length === 3, 5000, 'the third write, after the second probe timed out');
  assert.equal(out.takeAnswers(`k${PROBE_ANSWER}${PROBE_ANSWER}`), 'k', 'the late answer and the outstanding one');
  assert.equal(out.takeAnswers(PROBE_ANSWER), PROBE_ANSWER, 'none outstanding: the program asked');
  out.close();
});

test('a renderer that never answers is not probed after the first timeout, and gets everything', async () => {
  const writes: string[] = [];
  const pace = {
    maxUnparsedChars: () => 10,
    sliceChars: 10,
    probeMinChars: 0,
    probeTimeoutMs: 20,
    maxBehindChars: 1_000_000,
  };
  const out = new TabOutput((text) => writes.push(text), undefined, pace);
  out.open();
  for (let i = 0; i < 5; i++) out.output(Buffer.from('0123456789'));
  await waitFor(() => writes.length === 5, 5000, 'every write');
  assert.deepEqual(
    writes.map((w) => w.endsWith(PROBE)),
    [true, false, false, false, false],
  );
  out.close();
});

test('too far behind: what waits is dropped, a snapshot is asked for, output waits for it', async () => {
  const { out, writes, resyncs } = recorder();
  out.open();
  const chunk = Buffer.from('x'.repeat(64 * 1024));
  for (let sent = 0; sent <= OutputPace.MaxBehindChars; sent += chunk.length) out.output(chunk);
  assert.equal(resyncs.length, 1, 'one snapshot asked for');
  assert.ok(out.isSkipping);
  assert.equal(out.behind, 0, 'nothing held');
  out.output(Buffer.from('dropped'));
  out.snapshot(Buffer.from('FRESH'), 'history');
  out.output(Buffer.from('-after'));
  await drained(out);
  assert.equal(out.isSkipping, false);
  assert.ok(!writes.join('').includes('dropped'));
  assert.ok(writes.join('').endsWith('FRESH-after'));
});

test('a flood into a tab: its writes and what it holds stay bounded, and it ends on the exact screen', async () => {
  const daemon = await startTestDaemon();
  const connection = new DaemonConnection({
    socket: daemon.socket,
    daemonScript: () => DAEMON_SCRIPT,
    execPath: process.execPath,
    env: daemon.env,
    wrapper: async () => undefined,
  });
  const replay = new ReplayTerminal(100, 30, 1000);
  const other = await daemon.connect('flood');
  const flood = 'i=0; while [ $i -lt 40 ]; do seq 1 100000; i=$((i+1)); done; echo flood-done-$((6*7))';
  const { session } = await other.request('create', {
    name: 'flood',
    argv: ['/bin/sh', '-c', `${flood}; exec sleep 60`],
    cols: 100,
    rows: 30,
  });
  const tab = new SessionTab(
    {
      connection,
      sessionKnown: () => undefined,
      becameOwner: () => undefined,
      sessionRemoved: () => undefined,
      reportError: () => undefined,
      warn: () => undefined,
    },
    { kind: 'existing', session },
  );
  let largestWrite = 0;
  let mostBehind = 0;
  let written = 0;
  let mostUnparsed = 0;
  const out = tab['out'];
  // The renderer: a real xterm.js, whose answers to the probes come back as the tab's input.
  replay.terminal.onData((data) => tab.handleInput(data));
  tab.onDidWrite((text) => {
    largestWrite = Math.max(largestWrite, text.length);
    mostBehind = Math.max(mostBehind, out.behind);
    mostUnparsed = Math.max(mostUnparsed, out['writer'].unparsed);
    written += text.length;
    replay.terminal.write(text);
  });
  try {
    tab.open({ columns: 100, rows: 30 });
    const done = await other.request('wait', {
      session: session.id,
      condition: { kind: 'text', pattern: 'flood-done-42' },
      timeoutMs: 300_000,
    });
    assert.ok(done.met, 'the flood ended');
    const { lines } = await other.request('read', { session: session.id });
    const screen = async () => {
      const all = await replay.lines();
      const base = replay.terminal.buffer.active.baseY;
      return all.slice(base, base + 30).map((l) => l.trimEnd());
    };
    const expected = lines.map((l) => l.trimEnd());
    await waitFor(
      async () => JSON.stringify(await screen()) === JSON.stringify(expected),
      120_000,
      'the tab to show the final screen',
    );
    const floodChars = 40 * 588_895; // seq 1 100000 prints 588,895 characters
    console.log(
      `flood ${floodChars} chars; to VS Code ${written}; largest write ${largestWrite}; most behind ${mostBehind}; ` +
        `most unparsed ${mostUnparsed}`,
    );
    // One write is whole chunks up to a slice, or one larger chunk (a snapshot).
    assert.ok(mostUnparsed <= RendererPace.MaxUnparsedChars + 1024 * 1024, `most unparsed ${mostUnparsed}`);
    assert.ok(mostBehind <= OutputPace.MaxBehindChars + 1024 * 1024, `most behind ${mostBehind}`);
  } finally {
    tab.dispose();
    connection.dispose();
    other.close();
    replay.dispose();
    await daemon.stop();
    fs.rmSync(daemon.dir, { recursive: true, force: true });
  }
});

test('a tab that falls behind a real flood resyncs from a snapshot and ends on the exact screen', async () => {
  const daemon = await startTestDaemon();
  const client = await daemon.connect('tab');
  const replay = new ReplayTerminal(100, 30, 1000);
  const flood = 'i=0; while [ $i -lt 20 ]; do seq 1 100000; i=$((i+1)); done; echo flood-done-$((6*7))';
  const { session } = await client.request('create', {
    name: 'flood',
    argv: ['/bin/sh', '-c', `${flood}; exec sleep 60`],
    cols: 100,
    rows: 30,
  });
  let attachment: Attachment | undefined;
  let resyncs = 0;
  let mostBehind = 0;
  // A slow renderer (1,000 characters at a time, answered 10 ms later; behind past 20,000): any flood outruns it.
  const out: TabOutput = new TabOutput(
    (text) => {
      mostBehind = Math.max(mostBehind, out.behind);
      replay.terminal.write(text.replaceAll(PROBE, ''));
      setTimeout(() => out.takeAnswers(PROBE_ANSWER), 10);
    },
    () => {
      resyncs++;
      void attachment!.requestHistory();
      return attachment !== undefined;
    },
    { maxUnparsedChars: () => 1000, sliceChars: 1000, probeMinChars: 0, probeTimeoutMs: 2000, maxBehindChars: 20_000 },
  );
  try {
    out.open();
    attachment = await client.attach(
      { session: session.id, role: 'owner', cols: 100, rows: 30 },
      { onSnapshot: (bytes, why) => out.snapshot(bytes, why), onOutput: (bytes) => out.output(bytes) },
    );
    const done = await client.request('wait', {
      session: session.id,
      condition: { kind: 'text', pattern: 'flood-done-42' },
      timeoutMs: 300_000,
    });
    assert.ok(done.met, 'the flood ended');
    const expected = (await client.request('read', { session: session.id })).lines.map((l) => l.trimEnd());
    const screen = async () => {
      const all = await replay.lines();
      const base = replay.terminal.buffer.active.baseY;
      return all.slice(base, base + 30).map((l) => l.trimEnd());
    };
    await waitFor(
      async () => !out.isSkipping && JSON.stringify(await screen()) === JSON.stringify(expected),
      120_000,
      'the tab to show the final screen',
    );
    console.log(`resyncs ${resyncs}; most behind ${mostBehind}`);
    assert.ok(resyncs > 0, 'the tab fell behind and asked for a snapshot');
    assert.ok(mostBehind <= 20_000 + 1024 * 1024, `most behind ${mostBehind}`);
  } finally {
    out.close();
    client.close();
    replay.dispose();
    await daemon.stop();
    fs.rmSync(daemon.dir, { recursive: true, force: true });
  }
});
