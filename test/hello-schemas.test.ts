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
import { readDaemonHello, refusedHello } from '../src/protocol/helloAnswer';
import { OLDEST_CLIENT_PROTOCOL, ProtocolMismatchError, VERSION } from '../src/protocol/version';
import { PROTOCOL_VERSION } from '../src/protocol/messages';
import { ROOT, startTestDaemon, waitFor } from './helpers/daemon';
import { daemonToken, RawConnection } from './helpers/reliability';

/** What every protocol refusal of the (bundled) daemon says it speaks. */
const SPEAKS = {
  protocol: PROTOCOL_VERSION,
  oldestClient: OLDEST_CLIENT_PROTOCOL,
  version: (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
};

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

test('a daemon out of the protocols a client speaks is a mismatch naming both versions, before any field', () => {
  const old = () => readDaemonHello({ protocol: 0, version: '0.0.1\u001b[2J' });
  assert.throws(old, ProtocolMismatchError);
  assert.throws(old, {
    message:
      'the daemon is holdfast 0.0.1\\u{1b}[2J (protocol 0), ' +
      `older than this holdfast ${VERSION} speaks to (protocol 1 to ${PROTOCOL_VERSION})`,
  });
  // A newer daemon whose hello has our fields is spoken to (capabilities decide); one without them is a mismatch.
  assert.equal(readDaemonHello({ ...ANSWER, protocol: PROTOCOL_VERSION + 1 }).protocol, PROTOCOL_VERSION + 1);
  assert.throws(() => readDaemonHello({ protocol: PROTOCOL_VERSION + 1, version: '9.0.0' }), {
    message: /^the daemon is holdfast 9\.0\.0 \(protocol 2\), too new to serve this holdfast/,
  });
  // A daemon's refusal of our hello that says it serves only newer clients; any other refusal stays its own.
  const refused = refusedHello({ code: 'protocol', message: 'x', protocol: 3, oldestClient: 2, version: '9.0.0' });
  assert.equal(refused?.side, 'daemon-too-new');
  assert.equal(refusedHello({ code: 'protocol', message: 'malformed', ...SPEAKS }), undefined);
  assert.equal(refusedHello({ code: 'auth', message: 'wrong or missing token' }), undefined);
});

test('the daemon reads a hello with its schema: malformed, then the token, then the version', async () => {
  const daemon = await startTestDaemon();
  try {
    const token = daemonToken(daemon.socket);
    const refusals: [string, object, { code: string; message: string }][] = [
      ['not an object', [1], { code: 'protocol', message: 'malformed hello: it must be a JSON object', ...SPEAKS }],
      [
        'no protocol',
        { token },
        { code: 'protocol', message: 'malformed hello: protocol must be a number', ...SPEAKS },
      ],
      ['a numeric token', { protocol: 1, token: 5 }, { code: 'auth', message: 'wrong or missing token' }],
      ['protocol 0, no token', { protocol: 0 }, { code: 'auth', message: 'wrong or missing token' }],
      [
        'protocol 0',
        { protocol: 0, token },
        // A protocol refusal says what the daemon speaks (a client too old for it says so in its own words).
        { code: 'protocol', message: 'protocol 0 is older than this daemon serves', ...SPEAKS },
      ],
    ];
    for (const [what, hello, error] of refusals) {
      const raw = new RawConnection(daemon.socket);
      await raw.connected();
      raw.socket.write(encodeJson(FrameKind.Hello, hello));
      await raw.closedWithin(10_000, what);
      assert.deepEqual(raw.kinds(), [FrameKind.Error], what);
      assert.deepEqual(raw.errorBody(), error, what);
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
