// A second client, in a process of its own (the test's own work must not count as the daemon's delay):
// every 20 ms it sends `list`, then one byte to a session running `cat` in raw mode and waits for it to
// come back on its attached stream. Prints "sent list-ms echo-ms" per round; run as a script.
import { HoldfastClient } from '../../src/client/client';

async function probe(socket: string, session: string): Promise<void> {
  const client = await HoldfastClient.connect({ socket, client: 'latency-probe', version: 'test' });
  let seen = '';
  let wake: (() => void) | undefined;
  const attachment = await client.attach(
    { session, role: 'owner' },
    {
      onSnapshot: () => undefined,
      onOutput: (bytes) => {
        seen += bytes.toString('latin1');
        wake?.();
      },
    },
  );
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  for (let round = 0; ; round++) {
    const sent = Date.now();
    await client.request('list', {});
    const listed = Date.now();
    const letter = letters[round % letters.length];
    seen = '';
    const echoed = new Promise<void>((resolve) => (wake = () => seen.includes(letter) && resolve()));
    attachment.write(letter);
    await echoed;
    process.stdout.write(`${sent} ${listed - sent} ${Date.now() - listed}\n`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const [socket, session] = process.argv.slice(2);
void probe(socket, session);
