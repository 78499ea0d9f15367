// Loose checks a hostile probe found: a forged daemon log line, a checkpoint with wrong types, a
// bidi override in an OSC 7 path, a dot-only conversation id, and a flood of attention changes.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { FrameKind, encodeFrame } from '../src/protocol/frame';
import { conversationIdProblem } from '../src/agents/agents';
import type { DaemonEvent } from '../src/protocol/messages';
import { cwdFromOsc7 } from '../src/daemon/emulator/programReports';
import { SessionActivity } from '../src/daemon/sessions/sessionActivity';
import { startTestDaemon, waitFor } from './helpers/daemon';
import { daemonLog, helloFrame, RawConnection, record } from './helpers/reliability';

test('regression: a client name or a corrupt checkpoint with a newline and ESC forged a daemon log line', async () => {
  const daemon = await startTestDaemon();
  try {
    const forged = 'x\n2026-01-01T00:00:00.000Z [1] forged line \x1b[31mred';
    const raw = new RawConnection(daemon.socket);
    await raw.connected();
    raw.socket.write(helloFrame(daemon.socket, undefined, forged));
    raw.socket.write(encodeFrame(FrameKind.Request, Buffer.from('not json')));
    await raw.closedWithin(5000, 'a malformed request');
    await waitFor(() => daemonLog(daemon.env).includes('forged line'), 5000, 'the failure to be logged');
    // A corrupt checkpoint: JSON.parse quotes the start of the text in its error, newline and ESC included.
    const recovery = path.join(daemon.env.XDG_STATE_HOME!, 'holdfast', 'recovery');
    fs.mkdirSync(recovery, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(recovery, 'checkpoint-corrupt.json'), 'x\n2026\x1b[31m');
    await (await daemon.connect()).request('recovery.list', {});
    await waitFor(() => daemonLog(daemon.env).includes('checkpoint-corrupt'), 5000, 'the skipped file to be logged');
    const log = daemonLog(daemon.env);
    assert.ok(!log.includes('\x1b'), 'no raw ESC in the log');
    assert.ok(!/^2026-01-01T00:00:00/m.test(log), 'no forged line');
    assert.ok(!/^2026(?!-)/m.test(log), "no line starts with the checkpoint's text");
    assert.match(log, /"x\\u\{a\}2026\\u\{1b\}\[31m"/);
    record({
      item: 'hostile',
      name: 'a hello whose client name holds a newline, a timestamp and ESC; a corrupt checkpoint with both',
      value: 'logged as one line, \\u{a} and \\u{1b} escaped',
    });
  } finally {
    await daemon.stop();
  }
});

test('regression: a checkpoint whose argv is an object crashed inspect (argv.map is not a function)', async () => {
  const daemon = await startTestDaemon();
  try {
    const client = await daemon.connect();
    const dir = path.join(daemon.env.XDG_STATE_HOME!, 'holdfast', 'recovery');
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const session = {
      id: 's1',
      name: 'n',
      cwd: '/',
      cols: 80,
      rows: 24,
      createdAt: 0,
      running: true,
      exit: null,
      metadata: {},
      argv: { 0: 'sh' },
    };
    const checkpoint = {
      version: 1,
      id: 'objargv',
      writtenAt: 1,
      daemonPid: 1,
      daemonStartedAt: 1,
      socket: '/x',
      sessions: [session],
    };
    fs.writeFileSync(path.join(dir, 'checkpoint-objargv.json'), JSON.stringify(checkpoint));
    const failed = await client.request('recovery.inspect', { id: 'objargv' }).then(
      () => undefined,
      (err: Error) => err.message,
    );
    assert.match(failed ?? '', /cannot be read: not a checkpoint: sessions\.0\.argv/);
    record({ item: 'hostile', name: 'a checkpoint whose argv is an object, inspected', value: `refused: ${failed}` });
  } finally {
    await daemon.stop();
  }
});

test('regression: U+202E inside an OSC 7 path was kept; a conversation id ".." was accepted', () => {
  assert.equal(cwdFromOsc7('file://localhost/tmp/a\u202eb'), undefined);
  assert.equal(cwdFromOsc7('file://localhost/tmp/a%E2%80%AEb'), undefined);
  assert.equal(cwdFromOsc7('file://localhost/tmp/ab'), '/tmp/ab');
  assert.ok(conversationIdProblem('..'));
  assert.ok(conversationIdProblem('.'));
  assert.equal(conversationIdProblem('a.b'), undefined);
});

test('regression: looping OSC 133;C and BEL switched a session into waiting 20,000 times', async () => {
  const events: DaemonEvent[] = [];
  const activity = new SessionActivity(
    { id: 's', fire: (e) => events.push(e), attentionChanged: () => undefined, quiet: () => undefined },
    Date.now(),
  );
  try {
    for (let i = 0; i < 20_000; i++) {
      activity.prompt('C');
      activity.rang();
    }
    activity.prompt('C');
    await waitFor(() => activity.attentionNow.state === 'running', 5000, 'the last state to be told');
    const changes = events.filter((e) => e.type === 'attention').length;
    const bells = events.filter((e) => e.type === 'bell').length;
    assert.ok(changes <= 3, `${changes} attention events`);
    assert.equal(bells, 1);
    record({
      item: 'hostile',
      name: '20,000 × (OSC 133;C + BEL) at once',
      value: `${changes} attention events (the last state told), ${bells} bell event`,
    });
  } finally {
    activity.dispose();
  }
});
