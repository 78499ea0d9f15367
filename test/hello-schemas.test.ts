// The hellos' schemas (src/protocol/hello.ts): the daemon reads a client's hello with its schema, in the
// same order as before (malformed, then the token, then the version); the client's hand check of the
// daemon's answer (helloAnswer.ts) gives the schema's verdict on every answer here.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'node:test';
import { HoldfastClient } from '../src/client/client';
import { encodeJson, FrameKind } from '../src/protocol/frame';
import { daemonHelloSchema } from '../src/protocol/hello';
import { readDaemonHello } from '../src/protocol/helloAnswer';
import { PROTOCOL_VERSION } from '../src/protocol/messages';
import { startTestDaemon, waitFor } from './helpers/daemon';
import { daemonToken, RawConnection } from './helpers/reliability';

const ANSWER = { protocol: 1, version: '1.2.3', pid: 42, startedAt: 0, startMode: 'on-demand', capabilities: ['read'] };

const ANSWERS: [string, unknown, string | undefined][] = [
  ['a whole answer', ANSWER, undefined],
  ["a newer daemon's extra field and start mode", { ...ANSWER, startMode: 'socket', more: [1] }, undefined],
  ['null', null, 'it is not a JSON object'],
  ['an array', [ANSWER], 'it is not a JSON object'],
  ['a string', 'hello', 'it is not a JSON object'],
  ['no pid', { ...ANSWER, pid: undefined }, 'pid must be an integer'],
  ['a fractional pid', { ...ANSWER, pid: 1.5 }, 'pid must be an integer'],
  ['a string protocol', { ...ANSWER, protocol: '1' }, 'protocol must be a number'],
  ['no version', { ...ANSWER, version: undefined }, 'version must be a string'],
  ['a null startedAt', { ...ANSWER, startedAt: null }, 'startedAt must be a number'],
  ['a numeric start mode', { ...ANSWER, startMode: 1 }, 'startMode must be a string'],
  ['capabilities as a string', { ...ANSWER, capabilities: 'read' }, 'capabilities must be a list of strings'],
  ['a number among capabilities', { ...ANSWER, capabilities: ['read', 1] }, 'capabilities must be a list of strings'],
];

test("the client's check of the daemon's hello agrees with its schema on every answer", () => {
  for (const [what, answer, error] of ANSWERS) {
    const parsed = daemonHelloSchema.safeParse(answer);
    assert.equal(parsed.success, error === undefined, `${what}: the schema's verdict`);
    if (parsed.success) assert.deepEqual(readDaemonHello(answer), parsed.data, `${what}: the same fields kept`);
    else assert.throws(() => readDaemonHello(answer), { message: `the daemon's hello is malformed: ${error}` }, what);
  }
});

test('the daemon reads a hello with its schema: malformed, then the token, then the version', async () => {
  const daemon = await startTestDaemon();
  try {
    const token = daemonToken(daemon.socket);
    const refusals: [string, object, { code: string; message: string }][] = [
      ['not an object', [1], { code: 'protocol', message: 'malformed hello: it must be a JSON object' }],
      ['no protocol', { token }, { code: 'protocol', message: 'malformed hello: protocol must be a number' }],
      ['a numeric token', { protocol: 1, token: 5 }, { code: 'auth', message: 'wrong or missing token' }],
      ['protocol 0, no token', { protocol: 0 }, { code: 'auth', message: 'wrong or missing token' }],
      [
        'protocol 0',
        { protocol: 0, token },
        { code: 'protocol', message: `protocol 0 is not supported (this daemon speaks ${PROTOCOL_VERSION})` },
      ],
    ];
    for (const [what, hello, error] of refusals) {
      const raw = new RawConnection(daemon.socket);
      await raw.connected();
      raw.socket.write(encodeJson(FrameKind.Hello, hello));
      await raw.closedWithin(10_000, what);
      assert.deepEqual(raw.kinds(), [FrameKind.Error], what);
      assert.deepEqual(raw.errorFrame(), error, what);
    }
    // Only protocol and token matter: a client name, version and capabilities of other types are let in.
    const raw = new RawConnection(daemon.socket);
    await raw.connected();
    raw.socket.write(encodeJson(FrameKind.Hello, { protocol: 1, token, client: 42, capabilities: 'x', more: {} }));
    raw.socket.write(encodeJson(FrameKind.Request, { id: 1, method: 'list', params: {} }));
    await waitFor(() => raw.answered.has(1), 10_000, 'the list to be answered');
    assert.deepEqual(raw.kinds(), [FrameKind.Hello, FrameKind.Response]);
    raw.destroy();
  } finally {
    await daemon.stop();
  }
});

test("a client refuses a daemon's malformed hello with the field it lacks", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hf-hello-'));
  const socket = path.join(dir, 'holdfast.sock');
  const server = net.createServer((c) => {
    c.once('data', () => c.write(encodeJson(FrameKind.Hello, { ...ANSWER, capabilities: undefined })));
    c.on('error', () => undefined); // the client hangs up: expected
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  fs.writeFileSync(`${socket}.token`, 'token\n', { mode: 0o600 });
  try {
    await assert.rejects(HoldfastClient.connect({ socket, client: 'test', version: '0.0.0' }), {
      message: "the daemon's hello is malformed: capabilities must be a list of strings",
    });
  } finally {
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
