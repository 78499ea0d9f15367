// *Holdfast: Open Session History*: a session's whole history and screen as a read-only document
// (scheme holdfast-history:, content from `read` with all the scrollback), so the editor's search,
// selection and copy work on it. Session search opens its matches here too. An agent's conversation
// from its own transcript file follows (full-screen agents leave no history): transcripts.ts. A host's session
// ("@HOST/ID", sessionKey.ts) is read over the window's connection to the host, its answers checked as a host's.
import * as vscode from 'vscode';
import { z } from 'zod';
import { remoteSessionInfo } from '../link/remoteSessions';
import { parseKey } from '../link/sessionKey';
import { printable, printableLines } from '../text/printable';
import { agentOf } from '../protocol/recovery';
import { readTranscript, TranscriptTooCostly } from '../agents/transcripts';
import { type CommandContext, sessionArg } from './commandContext';
import { showInformation, showQuickPick } from './ui';
import { ui, uiText } from '../text/uiText';

export const HISTORY_SCHEME = 'holdfast-history';

/** How long the extension host spends unpacking a compressed transcript at most. */
const TRANSCRIPT_READ_MS = 5000;

/** Registers a command with the one failure report every Holdfast command has (commands.ts's `run`). */
export type RegisterCommand = (
  id: string,
  title: string,
  fn: (...args: unknown[]) => Promise<unknown>,
) => vscode.Disposable;

/** Where `holdfast.openSessionHistory` puts the cursor: a `search` match (line 0-based; a transcript's with source). */
export interface HistoryLine {
  line: number;
  text: string;
  source?: 'transcript';
}

/** The line that starts the transcript's section; its lines follow it. */
const CONVERSATION_HEADER = '── conversation (from ';

/** holdfast-history:/ID/NAME (a host's: /@HOST/ID/NAME): the tab shows the name; the rest says which session. */
export function historyUri(session: { id: string; name: string }): vscode.Uri {
  const name = printable(session.name).replace(/[/\\]/g, '_') || session.id;
  return vscode.Uri.from({ scheme: HISTORY_SCHEME, path: `/${session.id}/${name}` });
}

/** The session's id or host key: the path between its first "/" and its last (the name has none). */
function sessionIdOf(uri: vscode.Uri): string {
  return uri.path.slice(1, Math.max(1, uri.path.lastIndexOf('/')));
}

/** A host's lines, checked: a host may send anything. */
const remoteLines = z.array(z.string());

/** The window's connection to a host's session ("@HOST/ID"), and the session's id there. */
async function remoteOf(ctx: CommandContext, key: string) {
  const { host, id } = parseKey(key);
  const there = host === undefined ? undefined : ctx.remotes?.get(host);
  if (!there || !id) throw new Error(`no host ${JSON.stringify(host ?? '')} in holdfast.hosts`);
  return { name: there.name, client: await there.connection.get(), id };
}

/** A host's session, checked, named by its key. */
async function remoteSession(ctx: CommandContext, key: string): Promise<{ id: string; name: string }> {
  const { name, client, id } = await remoteOf(ctx, key);
  const session = remoteSessionInfo((await client.request('show', { session: id })).session);
  if (!session) throw new Error(`${name} answered with a session that is not one`);
  return { id: key, name: session.name };
}

/** A host's session's lines, checked; its agent's transcript is on the host, so its terminal history alone. */
async function remoteHistory(ctx: CommandContext, key: string): Promise<string[]> {
  const { name, client, id } = await remoteOf(ctx, key);
  const lines = remoteLines.safeParse(
    (await client.request('read', { session: id, scrollback: Number.MAX_SAFE_INTEGER })).lines,
  );
  if (!lines.success) throw new Error(`${name} answered with a history that is not one`);
  return lines.data;
}

/**
 * The lines `search` numbers: the history above the screen, then the screen; then, for an agent
 * with a transcript, its conversation under a header (the extension host runs as the same user, on
 * the daemon's machine, so it reads the file with the daemon's rule).
 */
async function readHistory(ctx: CommandContext, sessionId: string): Promise<string[]> {
  if (parseKey(sessionId).host !== undefined) return remoteHistory(ctx, sessionId);
  const client = await ctx.tabs.connection.get();
  const [{ lines }, { session }] = await Promise.all([
    client.request('read', { session: sessionId, scrollback: Number.MAX_SAFE_INTEGER }),
    client.request('show', { session: sessionId }),
  ]);
  let transcript: Awaited<ReturnType<typeof readTranscript>>;
  try {
    // Where the agent was started (Claude Code names its folder so), not where a program says it is now.
    transcript = await readTranscript(agentOf(session.metadata), session.startCwd ?? session.cwd, undefined, {
      readForMs: TRANSCRIPT_READ_MS,
      costly: [],
    });
  } catch (err) {
    if (!(err instanceof TranscriptTooCostly)) throw err;
    return [...lines, '', `${CONVERSATION_HEADER}not shown: ${err.message}) ──`];
  }
  if (!transcript) return lines;
  const tail = transcript.partial ? ', its latest part' : '';
  const header = `${CONVERSATION_HEADER}${transcript.agentName}'s transcript ${transcript.file}${tail}) ──`;
  return [...lines, '', header, ...transcript.lines];
}

class HistoryContent implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly ctx: CommandContext) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    let lines: string[];
    try {
      lines = await readHistory(this.ctx, sessionIdOf(uri));
    } catch (err) {
      // E.g. a document VS Code brings back after a reload, of a session removed since: say so in it.
      return `Holdfast: this session's history cannot be read: ${printable((err as Error).message)}\n`;
    }
    // Program output: control and bidi characters shown as escapes, the lines kept.
    return printableLines(lines.join('\n'));
  }

  /** An open document is read again the next time it is shown. */
  refresh(uri: vscode.Uri): void {
    this.changed.fire(uri);
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/**
 * Opens the session's history with `line` (0-based, as `search` numbers it) selected. When the
 * history moved since (wrapped rows joined as they left the screen), the nearest line with `text`.
 */
async function openHistory(
  content: HistoryContent,
  session: { id: string; name: string },
  at: HistoryLine | undefined,
): Promise<void> {
  const uri = historyUri(session);
  content.refresh(uri);
  const document = await vscode.workspace.openTextDocument(uri);
  const editor = await vscode.window.showTextDocument(document, { preview: false });
  if (at) {
    const line = nearestLine(document, documentLine(document, at), printable(at.text));
    const range = new vscode.Range(line, 0, line, document.lineAt(line).text.length);
    editor.selection = new vscode.Selection(range.start, range.end);
    editor.revealRange(range, vscode.TextEditorRevealType.InCenter);
  }
}

function historyLineArg(value: unknown): HistoryLine | undefined {
  const at = value as HistoryLine | undefined;
  if (typeof at?.line !== 'number' || typeof at.text !== 'string') return undefined;
  return { line: at.line, text: at.text, source: at.source === 'transcript' ? 'transcript' : undefined };
}

/** A transcript's line counts from the line after its header. */
function documentLine(document: vscode.TextDocument, at: HistoryLine): number {
  if (at.source !== 'transcript') return at.line;
  for (let line = document.lineCount - 1; line >= 0; line--)
    if (document.lineAt(line).text.startsWith(CONVERSATION_HEADER)) return line + 1 + at.line;
  return at.line;
}

function nearestLine(document: vscode.TextDocument, line: number, text: string): number {
  const last = document.lineCount - 1;
  for (let d = 0; d <= last; d++) {
    for (const candidate of [line - d, line + d])
      if (candidate >= 0 && candidate <= last && document.lineAt(candidate).text === text) return candidate;
    if (line - d < 0 && line + d > last) break;
  }
  return Math.min(Math.max(0, line), last);
}

/** The session of the sidebar card or tab it was invoked from, else the active tab's, else one picked. */
async function chooseSession(ctx: CommandContext, arg: unknown): Promise<{ id: string; name: string } | undefined> {
  if (typeof arg === 'string' && parseKey(arg).host !== undefined) return remoteSession(ctx, arg);
  const client = await ctx.tabs.connection.get();
  const id = sessionArg(arg) ?? ctx.tabs.activeTab()?.sessionId;
  if (id) return (await client.request('show', { session: id })).session;
  const sessions = await ctx.sessions.refresh(client);
  if (sessions.length === 0) {
    void showInformation(ui`Holdfast: there are no sessions.`);
    return undefined;
  }
  const pick = await showQuickPick(
    sessions.map((session) => ({ label: uiText(session.name), description: uiText(session.id), session })),
    { placeHolder: ui`Open which Holdfast session's history?`, matchOnDescription: true },
  );
  return pick?.session;
}

/** The document provider and `holdfast.openSessionHistory [sessionId] [{line, text}]` (session search passes both). */
export function registerHistoryDocuments(ctx: CommandContext, register: RegisterCommand): vscode.Disposable[] {
  const content = new HistoryContent(ctx);
  return [
    content,
    vscode.workspace.registerTextDocumentContentProvider(HISTORY_SCHEME, content),
    register('holdfast.openSessionHistory', 'Open Session History', async (arg, at) => {
      const session = await chooseSession(ctx, arg);
      if (session) await openHistory(content, session, historyLineArg(at));
    }),
  ];
}
