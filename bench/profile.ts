// Summarizes a V8 .cpuprofile (from `node --cpu-prof`): self time per function and per source
// file, mapped back through the bundle's source map (which chains into xterm's own sources).
import * as fs from 'node:fs';
import * as path from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number; // 0-based
  columnNumber: number; // 0-based
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

// --- source maps -----------------------------------------------------------------------------

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_INDEX = new Map([...B64].map((c, i) => [c, i]));

interface Mapping {
  column: number;
  source: number;
  line: number;
}

class SourceMap {
  private readonly lines: Mapping[][] = [];
  readonly sources: string[];

  constructor(json: { sources: string[]; mappings: string }) {
    this.sources = json.sources;
    let source = 0;
    let srcLine = 0;
    let srcCol = 0;
    let name = 0;
    for (const lineText of json.mappings.split(';')) {
      const segs: Mapping[] = [];
      let column = 0;
      for (const seg of lineText.split(',')) {
        if (!seg) continue;
        const values = decodeVlq(seg);
        column += values[0];
        if (values.length >= 4) {
          source += values[1];
          srcLine += values[2];
          srcCol += values[3];
          if (values.length >= 5) name += values[4];
          segs.push({ column, source, line: srcLine });
        }
      }
      this.lines.push(segs);
    }
    void srcCol;
    void name;
  }

  /** 0-based generated line and column → source path and 1-based line. */
  lookup(line: number, column: number): { source: string; line: number } | undefined {
    const segs = this.lines[line];
    if (!segs || segs.length === 0) return undefined;
    let lo = 0;
    let hi = segs.length - 1;
    let best = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (segs[mid].column <= column) {
        best = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    const seg = segs[best < 0 ? 0 : best];
    return { source: this.sources[seg.source], line: seg.line + 1 };
  }
}

function decodeVlq(segment: string): number[] {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const char of segment) {
    const digit = B64_INDEX.get(char)!;
    value += (digit & 31) << shift;
    if (digit & 32) shift += 5;
    else {
      values.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return values;
}

const maps = new Map<string, SourceMap | null>();

function mapFor(url: string): SourceMap | null {
  if (!url.startsWith('file://') && !url.startsWith('/')) return null;
  const file = url.startsWith('file://') ? new URL(url).pathname : url;
  if (!maps.has(file)) {
    try {
      maps.set(
        file,
        new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')) as ConstructorParameters<typeof SourceMap>[0]),
      );
    } catch {
      maps.set(file, null);
    }
  }
  return maps.get(file)!;
}

function shortSource(source: string): string {
  return source
    .replace(/^webpack:\/\/@xterm\/xterm\/src\//, 'xterm/')
    .replace(/^webpack:\/\/@xterm\/[^/]+\//, 'xterm-addon/')
    .replace(/^(\.\.\/)+/, '')
    .replace(/^node_modules\//, '');
}

// --- summary ---------------------------------------------------------------------------------

export interface ProfileEntry {
  name: string;
  where: string;
  selfMs: number;
  percent: number;
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  idleMs: number;
  busyMs: number;
  functions: ProfileEntry[];
  files: ProfileEntry[];
}

/**
 * `windows`: only samples inside these stretches count (µs of the monotonic clock, which is the
 * clock of a profile's timestamps); the summary is then named after `label`.
 */
export function summarizeProfile(
  file: string,
  top = 25,
  windows?: { startUs: number; endUs: number }[],
  label?: string,
): ProfileSummary {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (windows && !windows.some((w) => t >= w.startUs && t <= w.endUs)) continue;
    const dt = profile.timeDeltas[i + 1] ?? 0; // the delta after a sample is the time it stood for
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + dt);
  }
  const functions = new Map<string, ProfileEntry>();
  const files = new Map<string, ProfileEntry>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    const frame = node.callFrame;
    total += us;
    if (frame.functionName === '(idle)') {
      idle += us;
      continue;
    }
    let where = frame.url ? path.basename(frame.url) : '';
    const mapped =
      frame.url && frame.lineNumber >= 0 ? mapFor(frame.url)?.lookup(frame.lineNumber, frame.columnNumber) : undefined;
    let fileKey = where || frame.functionName;
    if (mapped) {
      const src = shortSource(mapped.source);
      where = `${src}:${mapped.line}`;
      fileKey = src;
    } else if (frame.url.startsWith('node:')) fileKey = frame.url;
    const name = frame.functionName || '(anonymous)';
    const key = `${name} ${where}`;
    const entry = functions.get(key) ?? { name, where, selfMs: 0, percent: 0 };
    entry.selfMs += us / 1000;
    functions.set(key, entry);
    const fileEntry = files.get(fileKey) ?? { name: fileKey, where: '', selfMs: 0, percent: 0 };
    fileEntry.selfMs += us / 1000;
    files.set(fileKey, fileEntry);
  }
  const busyMs = (total - idle) / 1000;
  const finish = (m: Map<string, ProfileEntry>) =>
    [...m.values()]
      .sort((a, b) => b.selfMs - a.selfMs)
      .slice(0, top)
      .map((e) => ({ ...e, selfMs: Math.round(e.selfMs), percent: Math.round((1000 * e.selfMs) / busyMs) / 10 }));
  return {
    file: label ? `${path.basename(file)} [${label}]` : file,
    totalMs: Math.round(total / 1000),
    idleMs: Math.round(idle / 1000),
    busyMs: Math.round(busyMs),
    functions: finish(functions),
    files: finish(files),
  };
}

/** The stretch of time a profile covers (µs of the monotonic clock). */
export function profileSpan(file: string): { startUs: number; endUs: number } {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  return { startUs: profile.startTime, endUs: profile.endTime };
}

export function formatProfile(summary: ProfileSummary): string {
  const lines = [
    `${summary.file}: ${summary.totalMs} ms sampled, ${summary.busyMs} ms busy (${summary.idleMs} ms idle)`,
    '',
    'top self time (share of busy time):',
  ];
  for (const f of summary.functions)
    lines.push(`  ${String(f.selfMs).padStart(7)} ms ${String(f.percent).padStart(5)}%  ${f.name}  ${f.where}`);
  lines.push('', 'by source file:');
  for (const f of summary.files.slice(0, 15))
    lines.push(`  ${String(f.selfMs).padStart(7)} ms ${String(f.percent).padStart(5)}%  ${f.name}`);
  return lines.join('\n');
}
