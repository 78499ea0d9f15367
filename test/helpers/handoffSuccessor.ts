// Plays the successor daemon in test/succession.test.ts: receives the handoff on stdin, adopts every
// PTY, then reports to the test what it reads and sees end, and does what the test asks of a PTY.
import { AdoptedPty } from '../../src/daemon/adoptedPty';
import { receiveHandoff } from '../../src/daemon/handoffReceive';
import { connectReport } from './handoffReport';

async function main(): Promise<void> {
  const link = await connectReport('successor');
  const sessions = await receiveHandoff();
  const ptys = new Map<string, AdoptedPty>();
  for (const session of sessions) {
    if (session.kind === 'exited') continue;
    const pty = new AdoptedPty({ ...session.pty, log: (line) => process.stderr.write(`successor: ${line}\n`) });
    ptys.set(session.id, pty);
    pty.onData((chunk) => link.send({ type: 'data', id: session.id, data: chunk.toString('base64') }));
    pty.onExit((exit) => link.send({ type: 'exit', id: session.id, exit, groupAlive: pty.groupAlive }));
  }
  link.send({
    type: 'adopted',
    sessions: sessions.map((s) => ({
      id: s.id,
      kind: s.kind,
      state: s.state,
      exit: s.kind === 'exited' ? s.exit : null,
    })),
  });
  link.onMessage((message) => {
    const pty = ptys.get(message.id as string);
    if (message.type === 'write') pty!.write(message.text as string);
    else if (message.type === 'resize') pty!.resize(message.cols as number, message.rows as number);
    else if (message.type === 'signal')
      link.send({ type: 'signalled', id: message.id, sent: pty!.signalGroup(message.signal as NodeJS.Signals) });
    else if (message.type === 'end') {
      for (const each of ptys.values()) each.dispose();
      void link.end().then(() => process.exit(0));
    }
  });
}

main().catch((err: Error) => {
  process.stderr.write(`successor: ${err.message}\n`);
  process.exit(1);
});
