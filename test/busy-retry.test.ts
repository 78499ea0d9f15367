// A request a handoff refuses (`busy`) is asked again once it is done, by every client (busyRetry.ts): the
// successor answers it on a connection of the client's own, the CLI's too; a handoff that fails leaves the
// same daemon to answer it; one that never ends does not hold it past the client's bound.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { HoldfastClient } from '../src/client/client';
import type { SessionInfo } from '../src/protocol/messages';
import { readLayout, withLayout } from '../src/protocol/tabLayout';
import { runCli } from './helpers/cli';
import { DAEMON_SCRIPT, isAlive, startTestDaemon, type TestDaemon, waitFor } from './helpers/daemon';

/** What becomes of the gated successor once the test opens its gate: the daemon, or a failure. */
type Successor = 'serves' | 'fails';

interface Handoff {
  daemon: TestDaemon;
  session: SessionInfo;
  /** Opens the gate: the successor starts serving (or fails). */
  release(): void;
  /** The handoff's answer (the successor's pid), or its failure. */
  done: Promise<{ pid: number }>;
}

/**
 * A daemon with one shell session, handing off to a successor that waits at a gate: until `release()` the
 * handoff is under way and changes are refused `busy`.
 */
async function handoffUnderWay(successor: Successor): Promise<Handoff> {
  const daemon = await startTestDaemon();
  const [started, go, gated] = ['started', 'go', 'gated-successor.js'].map((name) => path.join(daemon.dir, name));
  const after = successor === 'serves' ? `require(${JSON.stringify(DAEMON_SCRIPT)});` : 'process.exit(1);';
  fs.writeFileSync(
    gated,
    `const fs = require('fs'); fs.writeFileSync(${JSON.stringify(started)}, String(process.pid));\n` +
      `const gate = setInterval(() => { if (fs.existsSync(${JSON.stringify(go)})) ` +
      `{ clearInterval(gate); ${after} } }, 20);\n`,
  );
  const client = await daemon.connect('handing-off');
  const { session } = await client.request('create', { name: 'kept', argv: ['bash', '-c', 'exec cat'] });
  const done = client.request('handoff', { script: gated });
  done.catch(() => undefined); // awaited by the test
  await waitFor(() => fs.existsSync(started), 20_000, 'the successor to start');
  return { daemon, session, release: () => fs.writeFileSync(go, ''), done };
}

/** Settles with `promise`, and says meanwhile whether it has. */
function watched<T>(promise: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let settled = false;
  const tracked = promise.finally(() => (settled = true));
  tracked.catch(() => undefined);
  return { promise: tracked, settled: () => settled };
}

/**
 * Sends a request during the handoff and shows it was refused `busy` and is waiting to be asked again: answers
 * come in order on a connection, so once a later `list` is answered the request's refusal is in.
 */
async function refusedAndWaiting<T>(client: HoldfastClient, request: Promise<T>, what: string) {
  const asked = watched(request);
  await client.requestOnce('list', {});
  assert.equal(asked.settled(), false, `refused busy, ${what} waits for the handoff`);
  return asked;
}

/** Lets the successor start; resolves with its pid once the daemon that handed over has exited. */
async function handedOver(handoff: Handoff): Promise<number> {
  handoff.release();
  const { pid } = await handoff.done;
  await waitFor(() => !isAlive(handoff.daemon.pid), 20_000, 'the old daemon to exit');
  return pid;
}

async function stopAll(handoff: Handoff, successor?: number): Promise<void> {
  if (successor && isAlive(successor)) {
    process.kill(successor, 'SIGTERM');
    await waitFor(() => !isAlive(successor), 20_000, 'the successor to stop');
  }
  await handoff.daemon.stop();
}

test('a request sent mid-handoff is answered by the successor; a CLI command too', async () => {
  const handoff = await handoffUnderWay('serves');
  let successor = 0;
  try {
    const { daemon, session } = handoff;
    const client = await daemon.connect('asking');
    const renamed = await refusedAndWaiting(
      client,
      client.request('update', { session: session.id, name: 'renamed' }),
      'the update',
    );
    const cli = runCli(daemon.env, ['send', session.id, '--text', 'sent-during', '--enter']);
    // The CLI's request is in: the daemon logs each refusal with the client's name (daemon.ts).
    const { logFile } = await client.requestOnce('status', {});
    const refused = () => /^.*cli: a handoff .* send refused/m.test(fs.readFileSync(logFile, 'utf8'));
    await waitFor(refused, 20_000, "the CLI's send refused");

    successor = await handedOver(handoff);
    assert.equal((await renamed.promise).session.name, 'renamed');
    const sent = await cli;
    assert.equal(sent.code, 0, sent.stderr);
    const next = await HoldfastClient.connect({ socket: daemon.socket, client: 'test', version: 'test' });
    try {
      assert.equal(next.hello.pid, successor, 'the successor serves the socket');
      const { sessions } = await next.request('list', {});
      assert.deepEqual(
        sessions.map((s) => [s.id, s.name, s.pid]),
        [[session.id, 'renamed', session.pid]],
      );
      const { met } = await next.request('wait', {
        session: session.id,
        condition: { kind: 'text', pattern: 'sent-during' },
        timeoutMs: 20_000,
      });
      assert.ok(met, "the CLI's text reached the program through the successor");
    } finally {
      next.close();
    }
  } finally {
    await stopAll(handoff, successor);
  }
});

test("the extension's layout record (layoutTracker's write) sent mid-handoff lands in the successor", async () => {
  const handoff = await handoffUnderWay('serves');
  let successor = 0;
  try {
    const { daemon, session } = handoff;
    // The extension's own connection and the request SessionActions.updateLayout sends for a tab made active.
    const extension = await HoldfastClient.connect({ socket: daemon.socket, client: 'extension', version: 'test' });
    const activeAt = Date.now();
    const metadata = withLayout({ ...session.metadata, order: 3 }, { activeAt });
    const written = await refusedAndWaiting(
      extension,
      extension.request('update', { session: session.id, metadata }),
      'the write',
    );

    successor = await handedOver(handoff);
    await written.promise;
    const next = await HoldfastClient.connect({ socket: daemon.socket, client: 'test', version: 'test' });
    try {
      const { sessions } = await next.request('list', {});
      assert.deepEqual(readLayout(sessions[0]?.metadata), { order: 3, activeAt });
    } finally {
      next.close();
    }
  } finally {
    await stopAll(handoff, successor);
  }
});

test('a handoff that fails: the same daemon, serving on, answers the request asked again', async () => {
  const handoff = await handoffUnderWay('fails');
  try {
    const { daemon, session } = handoff;
    const client = await daemon.connect('asking');
    const renamed = await refusedAndWaiting(
      client,
      client.request('update', { session: session.id, name: 'renamed' }),
      'the update',
    );
    handoff.release();
    await assert.rejects(handoff.done, 'the handoff failed');
    assert.equal((await renamed.promise).session.name, 'renamed');
    assert.equal(client.isClosed, false, 'asked again on the same connection');
    assert.equal((await client.request('status', {})).pid, daemon.pid);
  } finally {
    await stopAll(handoff);
  }
});

test("a handoff that does not end in the client's bound: the request fails busy, in one line", async () => {
  const handoff = await handoffUnderWay('serves');
  let successor = 0;
  try {
    const { daemon, session } = handoff;
    const client = await HoldfastClient.connect({
      socket: daemon.socket,
      client: 'test',
      version: 'test',
      busyRetryMs: 300,
    });
    try {
      await assert.rejects(client.request('update', { session: session.id, name: 'renamed' }), {
        code: 'busy',
        message: /^a handoff to a new daemon is under way: update refused, ask again once it is done$/,
      });
    } finally {
      client.close();
    }
    successor = await handedOver(handoff);
  } finally {
    await stopAll(handoff, successor);
  }
});
