// Human output (tables, key: value details) and the JSON / error documents.
import * as os from 'node:os';
import type { SessionInfo } from '../protocol/messages';
import { oneLine, printable, printableLines, safeJson } from '../text/printable';
import { commandLine } from '../text/shellQuote';
import type { CliError } from './errors';
import type { CommandResult, Io } from './command';

export function formatState(s: Pick<SessionInfo, 'state' | 'exit'>): string {
  if (s.state !== 'exited') return s.state;
  if (!s.exit) return 'exited';
  if (s.exit.signal) return `exited (${s.exit.signal})`;
  return `exited (${s.exit.code ?? '?'})`;
}

/** A live session by what it needs (running, waiting for you, done, idle); an exited one by its exit. */
export function formatPhase(s: Pick<SessionInfo, 'state' | 'exit' | 'attention'>): string {
  // A daemon older than attention sends none.
  return s.state === 'exited' ? formatState(s) : (s.attention?.state ?? s.state);
}

export function formatClients(c: SessionInfo['clients']): string {
  const parts = [
    `${c.owners} owner${c.owners === 1 ? '' : 's'}`,
    `${c.watchers} watcher${c.watchers === 1 ? '' : 's'}`,
  ];
  return parts.join(', ');
}

/** 5s, 3m, 2h, 4d: how long ago, for tables. */
export function formatAge(at: number, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86400)}d`;
}

/** Local time, YYYY-MM-DD HH:MM:SS. */
export function formatTime(at: number): string {
  const d = new Date(at);
  const pad = (n: number) => String(n).padStart(2, '0');
  const date = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  return `${date} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function tildify(dir: string, home = os.homedir()): string {
  return home && (dir === home || dir.startsWith(home + '/')) ? '~' + dir.slice(home.length) : dir;
}

/** Columns padded to their widest cell; the last column is not padded. */
export function table(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return (
    all
      .map((r) =>
        r
          .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i])))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

export const SESSION_COLUMNS = [
  'ID',
  'NAME',
  'PID',
  'STATE',
  'SIZE',
  'CLIENTS',
  'AGE',
  'CWD',
  'SHELL',
  'TITLE',
  'REASON',
];

export function sessionTable(sessions: SessionInfo[], now = Date.now()): string {
  if (sessions.length === 0) return '';
  return table(
    SESSION_COLUMNS,
    sessions.map((s) => sessionRow(s, now)),
  );
}

/** A session's cells under SESSION_COLUMNS, each printable. */
export function sessionRow(s: SessionInfo, now = Date.now()): string[] {
  return [
    s.id,
    printable(s.name),
    String(s.pid),
    formatPhase(s),
    `${s.cols}x${s.rows}`,
    `${s.clients.owners}+${s.clients.watchers}`,
    formatAge(s.createdAt, now),
    printable(tildify(s.cwd)),
    printable(formatShell(s)),
    printable(s.title),
    printable(reasonOf(s) ?? ''),
  ];
}

/** What a session's shell reports (shell integration): what runs, or its prompt and the last exit code. */
export function formatShell(s: Pick<SessionInfo, 'state' | 'shell'>, long = false): string {
  const shell = s.state === 'exited' ? undefined : s.shell;
  if (!shell) return '';
  const exit = shell.lastExit === undefined ? '' : `last exit ${shell.lastExit ?? '?'}`;
  if (shell.phase === 'running') {
    const what = shell.command === undefined ? 'running' : `running ${shell.command}`;
    return long ? `${what} (since ${formatTime(shell.since)})` : what;
  }
  return long ? `at its prompt${exit ? `, ${exit}` : ''}` : exit ? `prompt (${exit})` : 'prompt';
}

/** Why a running session waits or is done (the daemon's attention reason), if it says. */
function reasonOf(s: Pick<SessionInfo, 'state' | 'attention'>): string | undefined {
  return s.state === 'exited' ? undefined : s.attention?.reason;
}

export function sessionDetails(s: SessionInfo): string {
  const lines: [string, string][] = [
    ['id', s.id],
    ['name', s.name],
    ['pid', String(s.pid)],
    ['state', formatState(s)],
  ];
  if (s.state !== 'exited' && s.attention)
    lines.push(['attention', `${s.attention.state} (${s.attention.source}, since ${formatTime(s.attention.since)})`]);
  const reason = reasonOf(s);
  if (reason) lines.push(['reason', `${reason} (from the ${s.attention.reasonFrom ?? 'screen'})`]);
  if (s.exit)
    lines.push(
      ['exit', s.exit.signal ? `signal ${s.exit.signal}` : `code ${s.exit.code}`],
      ['exited', formatTime(s.exit.at)],
    );
  lines.push(['command', commandLine(s.argv)]);
  if (formatShell(s)) lines.push(['shell', formatShell(s, true)]);
  lines.push(
    ['cwd', s.cwd],
    ['size', `${s.cols}x${s.rows}`],
    ['title', s.title],
    ['clients', formatClients(s.clients)],
    ['created', formatTime(s.createdAt)],
  );
  if (s.lastOutputAt) lines.push(['last output', formatTime(s.lastOutputAt)]);
  if (s.metadata && Object.keys(s.metadata).length > 0) lines.push(['metadata', safeJson(s.metadata)]);
  const width = Math.max(...lines.map(([k]) => k.length)) + 1;
  return lines.map(([k, v]) => `${(k + ':').padEnd(width)} ${printable(v)}`.trimEnd()).join('\n') + '\n';
}

/**
 * Every command's output passes here. Fields are made printable where the text is built (so a
 * newline in a name cannot fake a row); this last pass catches any that were not.
 */
export function writeResult(io: Io, json: boolean, result: CommandResult): void {
  if (json) io.stdout(safeJson(result.data ?? null) + '\n');
  else if (result.text && result.exactText) io.stdout(printableLines(result.text));
  else if (result.text) io.stdout(printableLines(result.text.endsWith('\n') ? result.text : result.text + '\n'));
  if (result.note) io.stderr(`holdfast: ${printable(oneLine(result.note))}\n`);
}

/** Error messages quote names, ids and paths a program or client chose. */
export function writeError(io: Io, json: boolean, err: CliError): void {
  const message = oneLine(err.message);
  io.stderr(`holdfast: ${printable(message)}\n`);
  if (json) io.stdout(safeJson({ error: { code: err.code, message, exitCode: err.exitCode } }) + '\n');
}
