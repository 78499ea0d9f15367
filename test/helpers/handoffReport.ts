// JSON lines between the succession test and the two processes it watches (the old owner and its
// successor): each connects to the test's Unix socket, says its role, then reports and takes commands.
import * as net from 'node:net';

export type Message = Record<string, unknown> & { type: string };

export interface ReportLink {
  send(message: Message): void;
  onMessage(listener: (message: Message) => void): void;
  /** Flushes what was sent and closes. */
  end(): Promise<void>;
}

export function linkOver(socket: net.Socket): ReportLink {
  const listeners: ((message: Message) => void)[] = [];
  let text = '';
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n')) {
      const message = JSON.parse(text.slice(0, end)) as Message;
      text = text.slice(end + 1);
      for (const listener of listeners) listener(message);
    }
  });
  return {
    send: (message) => void socket.write(`${JSON.stringify(message)}\n`),
    onMessage: (listener) => void listeners.push(listener),
    end: () => new Promise((resolve) => socket.end(() => resolve())),
  };
}

/** Connects to the test (HOLDFAST_TEST_REPORT) as `role`. */
export function connectReport(role: string): Promise<ReportLink> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(process.env.HOLDFAST_TEST_REPORT!, () => {
      const link = linkOver(socket);
      link.send({ type: 'hello', role, pid: process.pid });
      resolve(link);
    });
    socket.once('error', reject);
  });
}

/** What the old owner writes to its `input` program: some before the cut, the rest while cut (held, handed over). */
export const INPUT_BYTES = 100_000;
export function inputText(): string {
  let text = '';
  for (let i = 0; text.length < INPUT_BYTES; i++) text += `${i},`;
  return text.slice(0, INPUT_BYTES);
}
