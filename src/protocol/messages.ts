// Control messages (JSON). See docs/protocol.md.
import type { RecoveryMethods } from './recovery';
import type { RunParams, RunResult, ShellIntegrationParams, ShellState } from './shell';

export const PROTOCOL_VERSION = 1;

/** What a daemon can do. A client checks these instead of comparing versions. */
export enum Capability {
  Sessions = 'sessions', // create/list/show/kill/remove/rename/metadata
  Attach = 'attach', // watcher and owner roles, snapshot + stream, claim
  Read = 'read',
  Send = 'send',
  Wait = 'wait',
  Subscribe = 'subscribe', // session events without attaching
  Stop = 'stop',
  Recovery = 'recovery', // checkpoints, recovery.*, config.*, relaunch, resume
  Attention = 'attention', // SessionInfo.attention, 'attention' events, notify
  Search = 'search', // search: every session's history and screen
  Grant = 'grant', // grant: scoped credentials; every request checked against its connection's rights
  Handoff = 'handoff', // handoff: a successor daemon takes over every session, programs and screens
  View = 'view', // view: a hidden channel is sent nothing, an owner that fell behind is redrawn (ChannelView)
  Screens = 'screens', // view 'screens': a watcher is sent the visible screen at most every 250 ms, never the stream
  Shell = 'shell', // create.shellIntegration, SessionInfo.shell, command marks replayed on attach, run
}

export const ALL_CAPABILITIES: Capability[] = Object.values(Capability);

// The hellos, the first frame each way: hello.ts.

export type StartMode = 'on-demand' | 'persistent';

export type Role = 'owner' | 'watcher';
export type SessionState = 'running' | 'exited';

export interface ExitStatus {
  code: number | null;
  signal: string | null;
  at: number;
}

export interface SessionInfo {
  id: string;
  name: string;
  pid: number;
  state: SessionState;
  exit: ExitStatus | null;
  argv: string[];
  cwd: string; // from OSC 7 when the program reports it, else the start directory
  /**
   * The directory the client that created it started it in (or relaunched it in): a program never
   * changes it, so scopes are decided on it (`holdfast mcp --sessions workspace`). An older daemon sends none.
   */
  startCwd?: string;
  cols: number;
  rows: number;
  title: string;
  clients: { owners: number; watchers: number };
  createdAt: number;
  lastOutputAt: number;
  bellAt: number;
  /** Whether it needs you (src/daemon/sessions/attention.ts); exited and archived come from `state` and metadata. */
  attention: SessionAttention;
  metadata: Record<string, unknown>;
  /** Why it has no screen (its emulator worker could not start): its output still reaches clients. */
  screenUnavailable?: string;
  /** What its shell reports through its shell integration (OSC 633), once it has reported anything. */
  shell?: ShellState;
}

export type AttentionState = 'running' | 'waiting' | 'done' | 'idle';
/**
 * hook: the agent said so (`holdfast notify`); prompt: OSC 133 marks; bell: BEL / OSC 9 / OSC 777;
 * screen: a permission prompt of its agent on its screen, or its end.
 */
export type AttentionSource = 'hook' | 'prompt' | 'bell' | 'output' | 'input' | 'screen';
export interface SessionAttention {
  state: AttentionState;
  since: number;
  source: AttentionSource;
  /**
   * Waiting or done: why, in one printable line of at most 200 characters (src/daemon/common/attentionReason.ts):
   * the end of the agent's last message from its transcript, else the last lines of text on its screen.
   */
  reason?: string;
  reasonFrom?: 'transcript' | 'screen';
  /** Its screen shows a permission prompt Holdfast knows the keys of (permissionPrompt.ts): `answer` can answer it. */
  permissionPrompt?: true;
  /**
   * Its agent's own hook (`notify` with `permission`, its session's credential) said it asks, and that prompt
   * is the one on the screen: `answer` sends at once. Without it `answer` needs the prompt's rows as shown.
   */
  hookAgrees?: true;
}

/** `answer`: approve or deny the permission prompt on the session's screen, once it is checked to be one. */
export interface AnswerParams {
  session: string;
  choice: 'approve' | 'deny';
  /** promptAreaDigest() of the prompt's rows as the user was shown them: needed unless its agent's hook agrees. */
  shown?: string;
}

/** The prompt's question and the keys sent. */
export interface AnswerResult {
  question: string;
  sent: string;
}

/** What an agent's hook reports (`holdfast notify`); conversationId: the agent's own id, when it tells it. */
export interface NotifyParams {
  session: string;
  state: AttentionState;
  conversationId?: string;
  /** The session's own HOLDFAST_NOTIFY_TOKEN: only a hook running inside it may report for it. */
  credential?: string;
  /** The agent asks for a permission (Claude Code's PermissionRequest): the prompt it draws is its own. */
  permission?: boolean;
}

/**
 * `grant`: a credential for a hello instead of the token, never wider than the asking connection's
 * rights: read-only, and/or only `sessions` (ids or names). Omitted, either is as the asker's own.
 */
export interface GrantParams {
  sessions?: string[];
  readOnly?: boolean;
}

export interface GrantResult {
  credential: string;
  /** The ids the credential may use (omitted: every session); the sessions it starts join them. */
  sessions?: string[];
  readOnly: boolean;
}

export interface CreateParams {
  name?: string;
  argv?: string[]; // default: the user's login shell
  cwd?: string;
  env?: Record<string, string>;
  cols?: number;
  rows?: number;
  scrollback?: number;
  metadata?: Record<string, unknown>;
  /** Start the shell with VS Code's shell integration (src/protocol/shell.ts). */
  shellIntegration?: ShellIntegrationParams;
}

export interface AttachParams {
  session: string;
  channel: number; // chosen by the client, unique on its connection
  role: Role;
  cols?: number; // owner only: the size of its terminal
  rows?: number;
  /** The visible screen first; when there is scrollback, a 'history' event and a full snapshot follow. */
  screenFirst?: boolean;
  /** With screenFirst: the history only when asked for (`history`), e.g. once a hidden tab is shown. */
  historyLater?: boolean;
  /** Capability `view`: 'hidden' sends nothing, not even a snapshot, until the channel's view is set otherwise. */
  view?: Exclude<ChannelView, 'redraw'>;
}

/**
 * What a channel is sent (`view`, capability `view`). live: every byte (the default). hidden: nothing (its
 * terminal is not on screen); set back to live or redraw, it gets the visible screen, then the scrollback, then
 * the stream, when it missed output; meanwhile the daemon answers the program's queries if it is the owner.
 * redraw: its terminal fell behind: while the session floods, the visible screen every 250 ms, as a watcher
 * (the daemon answers the owner's queries then), and when it ends a full snapshot and the stream; not
 * flooding, a full snapshot now. Either way it is live again after that full snapshot. screens (capability
 * `screens`, watchers only): never the stream; when the screen changed, a resync and the visible screen, at most
 * every 250 ms, so what a remote preview costs is bounded by screens, not by the program's output.
 */
export type ChannelView = 'live' | 'hidden' | 'redraw' | 'screens';

/** text: RE2 syntax (linear time), flags from "ims"; a line of the screen, or of the history too with `history`. */
export type WaitCondition =
  | { kind: 'exit' }
  | { kind: 'idle'; ms: number }
  | { kind: 'text'; pattern: string; flags?: string; history?: boolean }
  | { kind: 'attention'; states: AttentionState[] }; // e.g. waiting: it needs you

/** RE2 pattern (linear time), flags from "ims"; one session or all; `context` lines around each match. */
export interface SearchParams {
  pattern: string;
  flags?: string;
  session?: string;
  context?: number;
  limit?: number;
}

/**
 * `line`: the index in the session's history + screen, as `read` with all the scrollback numbers it;
 * with `source: 'transcript'`, in the lines of its agent's conversation read from the agent's own
 * transcript file (src/agents/transcripts.ts), which a full-screen agent's scrollback lacks.
 */
export interface SearchMatch {
  session: string;
  name: string;
  line: number;
  text: string;
  before: string[];
  after: string[];
  source?: 'transcript';
  /** The line scrolled off a full-screen program's alternate screen (daemon/alternateScroll.ts). */
  alternate?: true;
}

/**
 * truncated: more lines matched than `limit`. linesSearched: the sessions' history + screen lines read
 * (transcripts not counted; when truncated, until the search stopped); an older daemon sends none.
 * skippedTranscripts: agents' transcripts not searched, and why (too costly to read: too big unpacked,
 * or slower than the budget allows; not read again until the file changes).
 */
export interface SearchResult {
  matches: SearchMatch[];
  truncated: boolean;
  linesSearched?: number;
  skippedTranscripts?: { session: string; why: string }[];
}

/** Method → [params, result]. */
export interface Methods extends RecoveryMethods {
  list: [Record<string, never>, { sessions: SessionInfo[] }];
  show: [{ session: string }, { session: SessionInfo }];
  create: [CreateParams, { session: SessionInfo }];
  attach: [AttachParams, { session: SessionInfo }];
  detach: [{ channel: number }, Record<string, never>];
  /** A 'history' event and a full snapshot on the channel (after a historyLater attach). */
  history: [{ channel: number }, Record<string, never>];
  /** What the channel is sent (ChannelView); a 'resync' event and a snapshot follow when it needs one. */
  view: [{ channel: number; view: ChannelView }, Record<string, never>];
  /** A watcher channel becomes the input owner (no new snapshot); the previous owner gets a 'role' event. */
  claim: [{ channel: number; cols?: number; rows?: number }, { session: SessionInfo }];
  resize: [{ session: string; cols: number; rows: number }, { session: SessionInfo }];
  send: [{ session: string; data: string }, Record<string, never>];
  answer: [AnswerParams, AnswerResult];
  read: [{ session: string; scrollback?: number }, { lines: string[]; cursor: { x: number; y: number } }];
  wait: [{ session: string; condition: WaitCondition; timeoutMs?: number }, { met: boolean; session: SessionInfo }];
  kill: [{ session: string; signal?: string; graceMs?: number; remove?: boolean }, { session: SessionInfo }];
  remove: [{ session: string }, Record<string, never>];
  update: [{ session: string; name?: string; metadata?: Record<string, unknown> }, { session: SessionInfo }];
  notify: [NotifyParams, { session: SessionInfo }];
  subscribe: [Record<string, never>, { sessions: SessionInfo[] }];
  status: [Record<string, never>, DaemonStatus];
  stop: [Record<string, never>, Record<string, never>];
  search: [SearchParams, SearchResult];
  grant: [GrantParams, GrantResult];
  /** Types a command at the shell's prompt and answers with its exit code and output (src/protocol/shell.ts). */
  run: [RunParams, RunResult & { session: SessionInfo }];
  /** A successor daemon (this one's command line, or `script`) takes every session; then this one exits. */
  handoff: [{ script?: string }, { pid: number; sessions: number }];
}

export type Method = keyof Methods;
export type Params<M extends Method> = Methods[M][0];
export type Result<M extends Method> = Methods[M][1];

export interface DaemonStatus {
  pid: number;
  version: string;
  protocol: number;
  startMode: StartMode;
  startedAt: number;
  socket: string;
  logFile: string;
  sessions: number;
  clients: number;
  execPath: string;
  nodeVersion: string;
}

export interface RequestMessage {
  id: number;
  method: string;
  params: unknown;
}

export enum ErrorCode {
  BadRequest = 'bad-request',
  NoSession = 'no-session',
  Ambiguous = 'ambiguous',
  Unsupported = 'unsupported',
  NotOwner = 'not-owner',
  Exited = 'exited',
  Limit = 'limit',
  Stopping = 'stopping',
  Busy = 'busy', // a change during a handoff (daemonSuccession.ts): asked again once done, the successor answers
  Auth = 'auth',
  Forbidden = 'forbidden', // outside the rights of this connection (a scoped or read-only credential)
  NoPrompt = 'no-prompt', // `answer`: the screen shows no permission prompt whose keys Holdfast knows
  Unconfirmed = 'unconfirmed', // `answer`: neither the agent's hook nor the prompt shown (`shown`) vouches for it
  NotReady = 'not-ready', // `run`: its shell reports no prompt, or is not at an empty one in its terminal's foreground
  Protocol = 'protocol',
  Internal = 'internal',
}

export interface ErrorBody {
  code: ErrorCode | string;
  message: string;
}

export type ResponseMessage = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: ErrorBody };

/** Pushed by the daemon: to subscribers (all sessions) and to attached channels (their session). */
export type DaemonEvent =
  | { type: 'session'; session: SessionInfo } // created or changed (name, title, cwd, size, clients, metadata, state)
  | { type: 'removed'; id: string }
  | { type: 'activity'; id: string; at: number } // first output after a quiet spell
  | { type: 'idle'; id: string; at: number }
  | { type: 'bell'; id: string; at: number }
  | { type: 'attention'; id: string; attention: SessionAttention }
  | { type: 'exit'; id: string; exit: ExitStatus }
  | { type: 'role'; channel: number; role: Role; reason: string } // this channel's role changed
  | { type: 'resync'; channel: number } // a fresh snapshot follows: the receiver fell behind, or watches a flood
  | { type: 'history'; channel: number } // after a screenFirst attach: the snapshot that follows has the scrollback too
  | { type: 'stopping' };
