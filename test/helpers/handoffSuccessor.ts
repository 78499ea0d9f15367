// Plays the successor daemon in test/succession.test.ts: receives the handoff on stdin, adopts every
// PTY, then reports to the test what it reads and sees end, and does what the test asks of a PTY; asked
// to, it hands them on to the next successor (after one that fails), as a successor daemon would.
import * as fs from 'node:fs';
import { AdoptedPty } from '../../src/daemon/pty/adoptedPty';
import { handOff } from '../../src/daemon/succession/handoff';
import { receiveHandoff } from '../../src/daemon/succession/handoffReceive';
import type { ProgramProcess } from '../../src/daemon/sessions/session';
import { isAlive, waitFor } from './daemon';
import { connectReport, type Message } from './handoffReport';

/** How many PTY masters this process holds (Linux: the links in /proc/self/fd). */
function openMasters(): number {
  const links = fs.readdirSync('/proc/self/fd').map((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return ''; // the directory's own fd, closed once read
    }
  });
  return links.filter((link) => link === '/dev/ptmx' || link === '/dev/pts/ptmx').length;
}

/** The first successor is 'successor', the one it hands on to 'successor2', and so on. */
const generation = Number(process.env.HOLDFAST_TEST_GENERATION ?? '1');

async function handOn(ptys: Map<string, AdoptedPty>): Promise<Message> {
  const sessions = [...ptys].map(([id, pty]) => ({ id, pty }));
  const failing = { file: process.execPath, args: ['-e', 'process.exit(3)'] };
  const error = await handOff({ sessions, successor: failing }).then(
    () => 'it took them',
    (err: Error) => err.message,
  );
  const env = { ...process.env, HOLDFAST_TEST_GENERATION: String(generation + 1) };
  const next = { file: process.execPath, args: [__filename], env, stderr: 'inherit' as const };
  const result = await handOff({ sessions, successor: next, stateAtCut: (id) => ({ id, generation }) });
  return { type: 'handed', failedFirst: error, handed: result.handed };
}

async function main(): Promise<void> {
  const link = await connectReport(generation === 1 ? 'successor' : `successor${generation}`);
  const { sessions } = await receiveHandoff();
  const ptys = new Map<string, AdoptedPty>();
  for (const session of sessions) {
    if (session.kind === 'exited') continue;
    const pty = new AdoptedPty({ ...session.pty, log: (line) => process.stderr.write(`successor: ${line}\n`) });
    ptys.set(session.id, pty);
    const _sessionCanTakeIt: ProgramProcess = pty;
    pty.onData((chunk) => link.send({ type: 'data', id: session.id, data: chunk.toString('base64') }));
    pty.onExit(
      (exit) =>
        void pty.groupAlive().then((groupAlive) => link.send({ type: 'exit', id: session.id, exit, groupAlive })),
    );
  }
  link.send({
    type: 'adopted',
    masters: openMasters(),
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
      void pty!
        .signalGroup(message.signal as NodeJS.Signals)
        .then((sent) => link.send({ type: 'signalled', id: message.id, sent }));
    else if (message.type === 'handoff')
      void handOn(ptys).then(async (handed) => {
        link.send(handed);
        for (const each of ptys.values()) each.dispose();
        await link.end();
        process.exit(0);
      });
    else if (message.type === 'end') {
      for (const each of ptys.values()) each.dispose();
      // An adopted PTY's dispose signals once its guard has asked about the group: wait for the programs.
      const programs = [...ptys.values()].map((each) => each.pid);
      void waitFor(() => !programs.some(isAlive), 10_000, 'the programs to end')
        .catch(() => undefined)
        .then(() => link.end())
        .then(() => process.exit(0));
    }
  });
}

main().catch((err: Error) => {
  process.stderr.write(`successor: ${err.message}\n`);
  process.exit(1);
});
