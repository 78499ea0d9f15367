// A hostile far end of a host link, run by the test's sshd in place of `holdfast bridge` (the host entry's
// `command`): it speaks the protocol on its stdin and stdout as a daemon would, with one session, and then
// misbehaves as its mode says:
//   forge  a tab attached to its session is sent a forged role, a forged exit whose signal is escape sequences, and
//          session infos and events that do not fit, then a line of output (FORGED-DONE)
//   flood  once subscribed, session events as fast as ssh takes them, for FLOOD_MS
//   mute   answers the hello, then nothing
//   huge   once subscribed, a frame header of 4 GiB
import { encodeJson, encodeRaw, FrameDecoder, FrameKind } from '../../src/protocol/frame';
import { ALL_CAPABILITIES, PROTOCOL_VERSION } from '../../src/protocol/messages';
import { sessionInfo } from './sessionInfo';

export const HOSTILE_SESSION = 'aaaa0001';
export const FORGED_DONE = 'FORGED-DONE';
/** What the forged exit's signal holds: a title change and a screen clear, were it printed. */
export const FORGED_SIGNAL = '\x1b]0;pwned\x07\x1b[2J';

const mode = process.argv[2];
const out = process.stdout;
const session = sessionInfo(HOSTILE_SESSION, { name: 'hostile', createdAt: 1, lastOutputAt: 1, cols: 80, rows: 24 });

function send(frame: Buffer): boolean {
  return out.write(frame);
}

function answer(id: number, result: unknown): void {
  send(encodeJson(FrameKind.Response, { id, ok: true, result }));
}

function event(body: unknown): Buffer {
  return encodeJson(FrameKind.Event, body);
}

/** How long a flood lasts. */
export const FLOOD_MS = 4000;

/** Session events, as fast as the pipe takes them, for FLOOD_MS: each would change the window's list. */
function flood(): void {
  let n = 0;
  const until = Date.now() + FLOOD_MS;
  const more = (): void => {
    while (Date.now() < until) {
      const frames: Buffer[] = [];
      for (let i = 0; i < 200; i++, n++) {
        frames.push(
          n % 2
            ? event({ type: 'session', session: { ...session, name: `flood-${n}` } })
            : event({
                type: 'attention',
                id: HOSTILE_SESSION,
                attention: { state: 'waiting', since: n, source: 'bell' },
              }),
        );
      }
      if (!send(Buffer.concat(frames))) return void out.once('drain', more);
    }
  };
  more();
}

function forge(channel: number): void {
  send(encodeRaw(FrameKind.Snapshot, channel, Buffer.from('hostile screen\r\n')));
  send(event({ type: 'role', channel, role: 'root', reason: 'forged' }));
  send(event({ type: 'role', channel, role: 'watcher', reason: 'x'.repeat(10_000) }));
  send(event({ type: 'exit', id: HOSTILE_SESSION, exit: { code: null, signal: FORGED_SIGNAL, at: 1 } }));
  send(event({ type: 'exit', id: HOSTILE_SESSION, exit: { code: { toString: 1 }, signal: null, at: 1 } }));
  send(event({ type: 'session', session: { ...session, name: '\x1b[31mforged', cols: 1e9 } }));
  send(event({ type: 'removed', id: '../' + HOSTILE_SESSION }));
  send(encodeRaw(FrameKind.Output, channel, Buffer.from(`${FORGED_DONE}\r\n`)));
}

function onRequest(request: { id: number; method: string; params: { channel?: number } }): void {
  if (mode === 'mute') return;
  switch (request.method) {
    case 'subscribe':
    case 'list':
      answer(request.id, { sessions: [session, { ...session, id: 'forged/../x' }, { ...session, pid: 'x' }] });
      if (mode === 'flood' && request.method === 'subscribe') flood();
      if (mode === 'huge') send(Buffer.from([0xff, 0xff, 0xff, 0xff, FrameKind.Event]));
      return;
    case 'attach':
      answer(request.id, { session });
      if (mode === 'forge') forge(request.params.channel ?? 0);
      return;
    default:
      answer(request.id, {});
  }
}

function serve(): void {
  const decoder = new FrameDecoder();
  process.stdin.on('data', (chunk: Buffer) => {
    for (const frame of decoder.push(chunk)) {
      if (frame.kind === FrameKind.Hello) {
        send(
          encodeJson(FrameKind.Hello, {
            protocol: PROTOCOL_VERSION,
            version: 'hostile',
            pid: process.pid,
            startedAt: Date.now(),
            startMode: 'persistent',
            capabilities: ALL_CAPABILITIES,
          }),
        );
      } else if (frame.kind === FrameKind.Request) onRequest(JSON.parse(frame.payload.toString('utf8')));
    }
  });
  process.stdin.on('end', () => process.exit(0));
  out.on('error', () => process.exit(0));
}

// Imported by the tests for its names; run by sshd as the far end.
if (require.main === module) serve();
