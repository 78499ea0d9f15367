// What a tab writes into VS Code (TabOutput): nothing lost before the terminal opens, notices after
// the snapshot they describe, writes paced to a bounded slice, and a tab that falls behind a flood
// (a real daemon, a real PTY) dropping what it holds for a fresh snapshot, ending on the exact screen.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import type { Attachment } from '../src/protocol/client';
import { DaemonConnection } from '../src/extension/daemonConnection';
import { noticeLine } from '../src/extension/notices';
import { SessionTab } from '../src/extension/pseudoterminal';
import { OutputPace, TabOutput } from '../src/extension/tabOutput';
import { DAEMON_SCRIPT, startTestDaemon, waitFor } from './helpers/daemon';
import { ReplayTerminal } from './helpers/terminal';

/** Resolves once the tab has handed VS Code everything it held. */
function drained(out: TabOutput): Promise<void> {
  return waitFor(() => out.behind === 0, 5000, 'the tab to write what it holds');
}

function recorder(): { out: TabOutput; writes: string[]; resyncs: number[] } {
  const writes: string[] = [];
  const resyncs: number[] = [];
  const out = new TabOutput(
    (text) => writes.push(text),
    () => resyncs.push(Date.now()) > 0,
  );
  return { out, writes, resyncs };
}

test('what is written before the terminal opens comes out when it opens, in order', () => {
  const { out, writes } = recorder();
  out.print('one');
  out.output(Buffer.from('two'));
  assert.deepEqual(writes, []);
  out.open();
  assert.deepEqual(writes, [noticeLine('one'), 'two']);
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

test('a UTF-8 character split across frames is decoded whole', async () => {
  const { out, writes } = recorder();
  out.open();
  const bytes = Buffer.from('é€😀');
  for (const byte of bytes) out.output(Buffer.from([byte]));
  await drained(out);
  assert.equal(writes.join(''), 'é€😀');
});

test('output is handed to VS Code a slice at a time, never a surrogate pair cut in two', async () => {
  const { out, writes } = recorder();
  out.open();
  const text = 'a'.repeat(OutputPace.SliceChars - 1) + '😀' + 'b'.repeat(OutputPace.SliceChars);
  out.output(Buffer.from(text));
  await waitFor(() => writes.join('') === text, 5000, 'every slice');
  assert.ok(writes.length >= 3, `${writes.length} writes`);
  for (const w of writes) assert.ok(w.length <= OutputPace.SliceChars, `a write of ${w.length} characters`);
  assert.equal(writes[0].length, OutputPace.SliceChars - 1, 'the pair waits for the next slice');
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
  const out = tab['out'] as TabOutput;
  tab.onDidWrite((text) => {
    largestWrite = Math.max(largestWrite, text.length);
    mostBehind = Math.max(mostBehind, out.behind);
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
      `flood ${floodChars} chars; to VS Code ${written}; largest write ${largestWrite}; most behind ${mostBehind}`,
    );
    // A slice, and the NUL the local-echo guard puts before its first line feed (localEchoGuard.ts).
    assert.ok(largestWrite <= OutputPace.SliceChars + 1, `largest write ${largestWrite}`);
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
  // A slow pace (1,000 characters per 10 ms, behind past 20,000): any flood outruns it.
  const out: TabOutput = new TabOutput(
    (text) => {
      mostBehind = Math.max(mostBehind, out.behind);
      replay.terminal.write(text);
    },
    () => {
      resyncs++;
      void attachment!.requestHistory();
      return attachment !== undefined;
    },
    { sliceChars: 1000, sliceMs: 10, maxBehindChars: 20_000 },
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
