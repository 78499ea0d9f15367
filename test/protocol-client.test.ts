// The client library against a daemon that misbehaves: a frame it cannot read closes the
// connection with an error; nothing is thrown into the caller's event loop (the extension host).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { HoldfastClient } from '../src/client/client';
import { encodeFrame, encodeJson, FrameKind } from '../src/protocol/frame';
import { PROTOCOL_VERSION } from '../src/protocol/messages';

test(
  'regression: an event frame that is not JSON closed nothing and threw into the host; ' +
    'now the connection closes with an error',
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hf-client-'));
    const socket = path.join(dir, 'holdfast.sock');
    const server = net.createServer((c) => {
      c.once('data', () => {
        c.write(
          encodeJson(FrameKind.Hello, {
            protocol: PROTOCOL_VERSION,
            version: '0.0.0',
            pid: process.pid,
            startedAt: 0,
            startMode: 'on-demand',
            capabilities: [],
          }),
        );
        // Once the client waits for an answer: a frame of a kind it does not know (skipped), then
        // one it cannot read.
        c.once('data', () =>
          c.write(
            Buffer.concat([
              encodeFrame(99 as FrameKind, Buffer.from('\x00raw')),
              encodeFrame(FrameKind.Event, Buffer.from('{not json')),
            ]),
          ),
        );
      });
      c.on('error', () => undefined); // the client hangs up: expected
    });
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    fs.writeFileSync(`${socket}.token`, 'token\n', { mode: 0o600 });
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      const client = await HoldfastClient.connect({ socket, client: 'test', version: '0.0.0' });
      const closed = new Promise<Error | undefined>((resolve) => client.onClose(resolve));
      const pending = client.request('list', {});
      assert.match((await closed)?.message ?? '', /a bad frame from the daemon/);
      await assert.rejects(pending);
      assert.equal(client.isClosed, true);
      assert.deepEqual(uncaught, []);
    } finally {
      process.off('uncaughtException', onUncaught);
      await new Promise((resolve) => server.close(resolve));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);
