// What shell integration adds to a flood (the `shell` rows): the daemon's CPU (its main thread and its
// emulator worker) per MB of output, at a bash prompt with VS Code's shell integration and without, the
// two interleaved (which goes first alternates by round), medians of the rounds. Three floods: `seq`
// (plain text, much of it skipped unparsed: plainRun.ts), coloured lines (parsed whole) and commands
// (each a prompt, a command line and an exit mark around one line of output, as the script prints them;
// without integration the same text without the marks). CPU per MB of the text, so the marks' own
// bytes count as cost.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Context } from './rows';
import { log, median, now, phase, procCpu } from './util';

export type FloodKind = 'seq' | 'coloured' | 'commands';
export const FLOOD_KINDS: FloodKind[] = ['seq', 'coloured', 'commands'];

export interface FloodCost {
  /** MB of text (without marks). */
  mb: number;
  ms: number;
  /** The daemon's CPU (all threads) and its main thread's, per MB of text. */
  cpuMsPerMb: number;
  mainMsPerMb: number;
}

export interface FloodFiles {
  /** The file `cat` prints with integration on / off, and the text's MB. */
  on: string;
  off: string;
  mb: number;
}

/** A stream of `count` commands as bash with VS Code's script prints them, or the same text without marks. */
export function commandStream(count: number, marks: boolean, nonce: string, from = 0): string {
  const m = (s: string) => (marks ? `\x1b]633;${s}\x07` : '');
  const parts: string[] = [];
  for (let i = from; i < from + count; i++)
    parts.push(
      `${m('A')}user@host:~/project$ ${m('B')}echo line-${i}\r\n${m(`E;echo line-${i};${nonce}`)}${m('C')}`,
      `line-${i}\r\n${m('D;0')}${m('P;Cwd=/home/user/project')}`,
    );
  return parts.join('');
}

function writeChunks(file: string, chunks: number, make: (i: number) => string): void {
  const fd = fs.openSync(file, 'w');
  for (let i = 0; i < chunks; i++) fs.writeSync(fd, make(i));
  fs.closeSync(fd);
}

/** The three floods' files, about `mb` MB of text each (seq: the row-1 file). */
export function floodFiles(ctx: Context, mb: number, nonce: string): Record<FloodKind, FloodFiles> {
  const coloured = path.join(ctx.dir, 'shell-coloured.txt');
  const scroll = fs.readFileSync(ctx.scrollFile, 'latin1');
  const copies = Math.max(1, Math.round((mb * 1e6) / scroll.length));
  writeChunks(coloured, copies, () => scroll);
  const perChunk = 1000;
  const chunk = commandStream(perChunk, false, nonce);
  const chunks = Math.max(1, Math.round((mb * 1e6) / chunk.length));
  const on = path.join(ctx.dir, 'shell-commands-marked.txt');
  const off = path.join(ctx.dir, 'shell-commands.txt');
  writeChunks(on, chunks, (i) => commandStream(perChunk, true, nonce, i * perChunk));
  writeChunks(off, chunks, (i) => commandStream(perChunk, false, nonce, i * perChunk));
  const size = (file: string) => fs.statSync(file).size / 1e6;
  return {
    seq: { on: ctx.floodFile, off: ctx.floodFile, mb: size(ctx.floodFile) },
    coloured: { on: coloured, off: coloured, mb: size(coloured) },
    commands: { on, off, mb: size(off) },
  };
}

/** `cat FILE` typed at the prompt of session `id`, until the line printed after it is on the screen. */
export async function catAtPrompt(ctx: Context, id: string, file: string, mb: number): Promise<FloodCost> {
  const marker = `FLOODEND${Date.now()}`;
  const cpu0 = procCpu(ctx.daemon.pid);
  const t0 = now();
  await ctx.client.request('send', {
    session: id,
    data: `cat '${file}'; echo ${marker.slice(0, 5)}"${marker.slice(5)}"\r`,
  });
  const { met } = await ctx.client.request('wait', {
    session: id,
    condition: { kind: 'text', pattern: `^${marker}$` },
    timeoutMs: 300_000,
  });
  const ms = now() - t0;
  const cpu1 = procCpu(ctx.daemon.pid);
  if (!met) throw new Error('the flood did not end');
  return { mb, ms, cpuMsPerMb: (cpu1.cpuMs - cpu0.cpuMs) / mb, mainMsPerMb: (cpu1.mainCpuMs - cpu0.mainCpuMs) / mb };
}

/** Per flood: the medians on and off, and the median of the rounds' on/off ratios of the daemon's CPU. */
export type FloodCosts = Record<FloodKind, { on: FloodCost; off: FloodCost; cpuRatio: number }>;

/** Each flood with integration on and off, interleaved, `rounds` times: the medians of each figure. */
export async function floodCosts(
  ctx: Context,
  rounds: number,
  files: Record<FloodKind, FloodFiles>,
  bash: (integrated: boolean) => Promise<string>,
): Promise<FloodCosts> {
  const runs = new Map<string, FloodCost[]>();
  for (let round = 0; round < rounds; round++) {
    const sides = round % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const);
    for (const kind of FLOOD_KINDS)
      for (const side of sides) {
        const id = await bash(side === 'on');
        const cost = await phase(`shell ${kind} ${side}`, () =>
          catAtPrompt(ctx, id, files[kind][side], files[kind].mb),
        );
        await ctx.client.request('remove', { session: id });
        const key = `${kind}/${side}`;
        runs.set(key, [...(runs.get(key) ?? []), cost]);
        log(
          `shell flood ${key} round ${round + 1}: ${cost.ms.toFixed(0)} ms, ` +
            `${cost.cpuMsPerMb.toFixed(1)} ms CPU/MB (main ${cost.mainMsPerMb.toFixed(1)})`,
        );
      }
  }
  const med = (key: string): FloodCost => {
    const all = runs.get(key)!;
    return {
      mb: all[0].mb,
      ms: median(all.map((c) => c.ms)),
      cpuMsPerMb: median(all.map((c) => c.cpuMsPerMb)),
      mainMsPerMb: median(all.map((c) => c.mainMsPerMb)),
    };
  };
  const out = {} as FloodCosts;
  for (const kind of FLOOD_KINDS) {
    const [on, off] = [runs.get(`${kind}/on`)!, runs.get(`${kind}/off`)!];
    const cpuRatio = median(on.map((c, i) => c.cpuMsPerMb / off[i].cpuMsPerMb));
    out[kind] = { on: med(`${kind}/on`), off: med(`${kind}/off`), cpuRatio };
  }
  return out;
}
