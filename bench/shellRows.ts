// What shell integration costs (the `shell` rows): keystroke echo at a bash prompt and a flood a command
// at that prompt prints, with VS Code's shell integration and without it, in the same daemon and run;
// and what a session's command marks take in memory (in-process: the emulator and its history store).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Emulator } from '../src/daemon/emulator/emulator';
import { VSCODE_SCRIPTS_FOLDER } from '../src/host/shellIntegration';
import type { ShellIntegrationParams } from '../src/protocol/shell';
import { feed } from './micro';
import { commandStream, floodCosts, floodFiles, type FloodCosts } from './shellFlood';
import type { Context } from './rows';
import { log, median, now, percentile, sleep } from './util';

const REPO = path.resolve(__dirname, '..');
const NONCE = '0f1e2d3c-4b5a-4697-8877-665544332211';

/** VS Code's scripts from the code-server the e2e installs, else the tests' stand-in (the same sequences). */
export function benchScripts(): { dir: string; which: string } {
  const vscode = path.join(REPO, '.vscode-test', 'code-server', 'node_modules', 'code-server', 'lib', 'vscode');
  const dir = path.join(vscode, VSCODE_SCRIPTS_FOLDER);
  if (fs.existsSync(path.join(dir, 'shellIntegration-bash.sh'))) return { dir, which: "VS Code's bash script" };
  return { dir: path.join(REPO, 'test', 'fixtures', 'shell-integration'), which: 'the stand-in bash script' };
}

/**
 * A bash at its prompt, with VS Code's shell integration or without; the prompt Debian's bashrc gives an
 * xterm (it sets the window title, an OSC sequence too: a stream with none parses faster for V8's sake).
 */
export async function promptBash(ctx: Context, integrated: boolean): Promise<string> {
  const home = fs.mkdtempSync(path.join(ctx.dir, 'home-'));
  fs.writeFileSync(path.join(home, '.bashrc'), "PS1='\\[\\e]0;\\u@\\h: \\w\\a\\]\\u@\\h:\\w\\$ '\n");
  const shellIntegration: ShellIntegrationParams | undefined = integrated
    ? { scripts: benchScripts().dir, nonce: NONCE }
    : undefined;
  const { session } = await ctx.client.request('create', {
    argv: integrated ? ['bash'] : ['bash', '--rcfile', path.join(home, '.bashrc')],
    cwd: home,
    cols: 120,
    rows: 40,
    env: { HOME: home, HISTFILE: '/dev/null' },
    ...(shellIntegration ? { shellIntegration } : {}),
  });
  const { met } = await ctx.client.request('wait', {
    session: session.id,
    condition: { kind: 'text', pattern: '[$#] *$' },
    timeoutMs: 30_000,
  });
  if (!met) throw new Error('the bash session did not show its prompt');
  return session.id;
}

/** Keystroke echo at the prompt: "x" typed and echoed, then erased (backspace) so the line stays short. */
export async function promptEcho(
  ctx: Context,
  integrated: boolean,
  count: number,
): Promise<{ median: number; p99: number }> {
  const id = await promptBash(ctx, integrated);
  let waiting: ((t: number) => void) | undefined;
  let want = 0;
  const attachment = await ctx.client.attach(
    { session: id, role: 'owner', cols: 120, rows: 40 },
    {
      onSnapshot: () => undefined,
      onOutput: (chunk) => {
        if (waiting && chunk.includes(want)) {
          const done = waiting;
          waiting = undefined;
          done(now());
        }
      },
    },
  );
  await sleep(200);
  const roundTrip = (key: string, echo: number) =>
    new Promise<number>((resolve) => {
      want = echo;
      const t0 = now();
      waiting = (t) => resolve(t - t0);
      attachment.write(key);
    });
  const samples: number[] = [];
  for (let i = 0; i < 500 + count; i++) {
    const ms = await roundTrip('x', 0x78);
    await roundTrip('\x7f', 0x08);
    if (i >= 500) samples.push(ms);
  }
  await attachment.detach();
  await ctx.client.request('remove', { session: id });
  return { median: median(samples), p99: percentile(samples, 99) };
}

export interface MarksMemory {
  commands: number;
  /** The history store of `commands` commands' lines, without marks and with them (compressed as when quiet). */
  storeBytes: number;
  storeBytesWithMarks: number;
  /** Marks on xterm's rows once the session is quiet. */
  liveMarks: number;
  /** A hostile flood: every line a whole command (its 4 KiB command line too), 20,000 lines. */
  hostile: { lines: number; liveMarks: number; storeBytesPerLine: number; plainStoreBytesPerLine: number };
}

/** Every line a whole command, its command line 4 KiB of random letters (nothing to compress). */
function hostileStream(lines: number, marks: boolean): Buffer {
  const parts: string[] = [];
  for (let i = 0; i < lines; i++) {
    const random = Array.from({ length: 4000 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26)));
    const m = (s: string) => (marks ? `\x1b]633;${s}\x07` : '');
    parts.push(`${m('A')}$ ${m('B')}${m(`E;${random.join('')}`)}${m('C')}x${i}${m('D;1')}${m('P;Cwd=/tmp')}\r\n`);
  }
  return Buffer.from(parts.join(''));
}

async function stored(data: Buffer, nonce?: string): Promise<{ bytes: number; live: number }> {
  const emulator = new Emulator({ cols: 120, rows: 40, scrollback: 10_000, shellNonce: nonce });
  await feed(emulator, data);
  emulator.compactHistory();
  const result = { bytes: emulator.historyBytes, live: emulator.shell.liveMarks };
  emulator.dispose();
  return result;
}

/** What a session's marks take in memory: a scrollback of commands, and a hostile flood of marks. */
export async function marksMemory(commands: number): Promise<MarksMemory> {
  const plain = await stored(Buffer.from(commandStream(commands, false, NONCE)));
  const marked = await stored(Buffer.from(commandStream(commands, true, NONCE)), NONCE);
  const lines = 20_000;
  const hostile = await stored(hostileStream(lines, true), NONCE);
  const hostilePlain = await stored(hostileStream(lines, false));
  // The store keeps 10,000 lines (the scrollback less what xterm holds).
  const kept = 10_000;
  return {
    commands,
    storeBytes: plain.bytes,
    storeBytesWithMarks: marked.bytes,
    liveMarks: marked.live,
    hostile: {
      lines,
      liveMarks: hostile.live,
      storeBytesPerLine: hostile.bytes / kept,
      plainStoreBytesPerLine: hostilePlain.bytes / kept,
    },
  };
}

export interface ShellRows {
  rounds: number;
  on: { median: number; p99: number };
  off: { median: number; p99: number };
  flood: FloodCosts;
  memory: MarksMemory;
}

/** Each figure with integration on and off, the two taking turns, `rounds` times: the medians. */
export async function shellRows(ctx: Context, rounds: number, floodMb: number): Promise<ShellRows> {
  const echo: Record<'on' | 'off', { median: number; p99: number }[]> = { on: [], off: [] };
  log(`shell: echo at a bash prompt and a flood it prints, with ${benchScripts().which} and without, ${rounds} rounds`);
  for (let round = 0; round < rounds; round++)
    for (const side of ['on', 'off'] as const) echo[side].push(await promptEcho(ctx, side === 'on', 1000));
  const latency = (all: { median: number; p99: number }[]) => ({
    median: median(all.map((l) => l.median)),
    p99: median(all.map((l) => l.p99)),
  });
  return {
    rounds,
    on: latency(echo.on),
    off: latency(echo.off),
    flood: await floodCosts(ctx, rounds, floodFiles(ctx, floodMb, NONCE), (on) => promptBash(ctx, on)),
    memory: await marksMemory(1000),
  };
}
