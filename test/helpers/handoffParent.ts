// Plays the old daemon in test/succession.test.ts: starts programs on PTYs, reports what it reads, and
// once each is where the test wants it, hands them all to a successor (handoffSuccessor.js) and exits.
import * as path from 'node:path';
import { handOff } from '../../src/daemon/succession/handoff';
import { PtyProcess } from '../../src/daemon/pty/ptyProcess';
import { connectReport, INPUT_BYTES, inputText } from './handoffReport';

/** Each program, as bash: a counter every few ms, two floods, a full-screen reader, one that exits at once. */
export const PROGRAMS: Record<string, string> = {
  counter: `trap 'echo GOT-HUP' HUP; i=0; while :; do i=$((i+1)); echo "c$i"; sleep 0.002; done`,
  // Paused by its owner before the cut: the stream holds a chunk it read, which must be handed over.
  floodPaused: `seq 1 1000000; echo FLOOD-DONE; exec sleep 1000`,
  // Read at full speed at the cut.
  floodFlowing: `seq 1 1000000; echo FLOOD-DONE; exec sleep 1000`,
  screen: [
    `trap 'echo GOT-HUP' HUP`,
    `trap 'echo "WINCH $(stty size)"' WINCH`,
    `printf '\\033[?1049h\\033[2J\\033[HREADY %s\\n' "$(stty size)"`,
    `while :; do if IFS= read -r line; then [ "$line" = quit ] && exit 5; echo "GOT:$line";`,
    `elif [ $? -le 128 ]; then exit 4; fi; done`,
  ].join('\n'),
  done: 'exit 7',
  // Reads no input until SIGUSR1: what is written before stays in node-pty's queue, and is handed over.
  input: [
    `stty raw -echo; trap 'go=1' USR1; echo WAITING`,
    `while [ -z "$go" ]; do sleep 0.05; done; echo "SHA $(head -c $INPUT_BYTES | sha256sum)"`,
  ].join('\n'),
};

/** When each program is where the test wants it at the cut. */
const READY: Record<string, (text: string, bytes: number, exited: boolean) => boolean> = {
  counter: (text) => (text.match(/c\d+/g)?.length ?? 0) >= 20,
  floodPaused: (_, bytes) => bytes > 20_000,
  floodFlowing: (_, bytes) => bytes > 20_000,
  screen: (text) => text.includes('READY'),
  done: (_, __, exited) => exited,
  input: (text) => text.includes('WAITING'),
};

async function main(): Promise<void> {
  const link = await connectReport('parent');
  const ptys = new Map<string, PtyProcess>();
  /** What each program printed so far (a flood: only how many bytes). */
  const text = new Map<string, string>();
  const bytes = new Map<string, number>();
  const until = (what: string, holds: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => (holds() ? resolve() : setTimeout(check, 5));
      check();
    }).then(() => link.send({ type: 'reached', what }));
  // HOLDFAST_TEST_PROGRAMS: the ones to start (all by default).
  const chosen = process.env.HOLDFAST_TEST_PROGRAMS?.split(',') ?? Object.keys(PROGRAMS);
  for (const id of chosen) {
    const script = PROGRAMS[id];
    const env = {
      ...(process.env as Record<string, string>),
      TERM: 'xterm-256color',
      INPUT_BYTES: String(INPUT_BYTES),
    };
    const pty = new PtyProcess({ argv: ['bash', '-c', script], cwd: process.cwd(), env, cols: 80, rows: 24 });
    ptys.set(id, pty);
    text.set(id, '');
    bytes.set(id, 0);
    pty.onData((chunk) => {
      bytes.set(id, bytes.get(id)! + chunk.length);
      if (!id.startsWith('flood')) text.set(id, text.get(id)! + chunk.toString('utf8'));
      link.send({ type: 'data', id, data: chunk.toString('base64') });
    });
    pty.onExit((exit) => link.send({ type: 'exit', id, exit }));
  }
  link.send({ type: 'started', pids: Object.fromEntries([...ptys].map(([id, pty]) => [id, pty.pid])) });
  await until('ready', () =>
    chosen.every((id) => READY[id](text.get(id)!, bytes.get(id)!, ptys.get(id)!.exited !== undefined)),
  );
  const paused = ptys.get('floodPaused');
  paused?.pause();
  if (paused) await until('paused', () => paused.bufferedOutputBytes > 0);
  const input = ptys.get('input');
  const [beforeCut, whileCut] = [inputText().slice(0, 60_000), inputText().slice(60_000)];
  input?.write(beforeCut);
  const startedAt = process.hrtime.bigint();
  const handing = handOff({
    sessions: [...ptys].map(([id, pty]) => ({ id, pty })),
    successor: {
      file: process.execPath,
      args: [path.join(__dirname, 'handoffSuccessor.js')],
      env: process.env,
      stderr: 'inherit',
    },
    stateAtCut: (id) => ({ id, note: `state of ${id}` }),
  });
  if (input?.write(whileCut) !== undefined) throw new Error('input written while cut was refused');
  const result = await handing;
  const ms = Number(process.hrtime.bigint() - startedAt) / 1e6;
  link.send({ type: 'handed', handed: result.handed, sessions: result.sessions, ms });
  for (const pty of ptys.values()) pty.dispose();
  await link.end();
  process.exit(0);
}

main().catch((err: Error) => {
  process.stderr.write(`parent: ${err.stack ?? err.message}\n`);
  process.exit(1);
});
