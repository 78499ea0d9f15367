// Gives each session that waits or is done its reason (attentionReason.ts), told as another
// 'attention' event with the same state: the last lines of its screen when it starts to wait, again at
// its next quiet spell (a hook may report before the prompt is drawn), and for Claude Code, Codex and
// Gemini the end of the agent's last message from its transcript. Reading a transcript costs up to a
// few megabytes of JSON, so it runs in a text worker (textWorkers.ts), under the search budget; one too
// costly to read gives no reason, is logged once (textWorkers.ts) and not read again until it changes. Each
// screen read gives a permission prompt's reason when one is on it (promptAnswer.ts); whether it is marked
// is its watch's word (promptWatch.ts).
import { DisposableStore, type IDisposable } from '../../base/disposable';
import type { DaemonEvent } from '../../protocol/messages';
import { agentOf } from '../../protocol/recovery';
import { promptReason, screenReason } from '../common/attentionReason';
import { promptOn } from './promptAnswer';
import type { Session } from './session';
import type { TextWorkers } from '../textWorkers';

/** The profiles whose transcripts Holdfast reads (src/agents/transcripts.ts). */
const TRANSCRIPT_PROFILES: ReadonlySet<unknown> = new Set(['claude', 'codex', 'gemini']);

export class AttentionExplainer implements IDisposable {
  private readonly store = new DisposableStore();
  /** Sessions whose transcript is being read (one read at a time each), and the attention a next read is for. */
  private readonly reading = new Set<string>();
  private readonly wanted = new Map<string, number>();

  constructor(
    onEvent: (listener: (event: DaemonEvent) => void) => IDisposable,
    private readonly session: (id: string) => Session | undefined,
    private readonly workers: TextWorkers,
    private readonly log: (line: string) => void,
  ) {
    this.store.add(onEvent((event) => this.onEvent(event)));
  }

  private onEvent(event: DaemonEvent): void {
    if (event.type !== 'attention' && event.type !== 'idle') return;
    const session = this.session(event.id);
    if (!session) return;
    const told = session.activity.attentionNow;
    if (told.state !== 'waiting' && told.state !== 'done') return;
    // Told already with a reason: only a quiet spell may find a better one (or a prompt) on the screen.
    if (event.type === 'attention' && told.reason !== undefined) return;
    // The screen is read in the emulator's worker; explain() drops a reason that comes too late.
    session.screen().then(
      ({ lines }) => {
        if (session.isDisposed) return;
        const prompt = promptOn(session, lines);
        const reason = prompt ? promptReason(lines, prompt) : screenReason(lines);
        session.activity.explain(told.since, reason, 'screen');
      },
      (err: Error) => this.log(`session ${session.id}: no reason from its screen: ${err.message}`),
    );
    if (event.type === 'attention') this.readTranscript(session, told.since);
  }

  private readTranscript(session: Session, since: number): void {
    const agent = agentOf(session.metadata);
    if (!agent || !TRANSCRIPT_PROFILES.has(agent.profile)) return;
    if (this.reading.has(session.id)) return void this.wanted.set(session.id, since);
    this.reading.add(session.id);
    const job = {
      kind: 'reason' as const,
      agent: { profile: agent.profile, sessionId: agent.sessionId },
      // Where the agent was started (Claude Code names its folder so), not where a program says it is now.
      cwd: session.info().startCwd!,
    };
    const tooCostly = (ms: number) => `transcript too costly: not read within ${ms} ms (search.budgetMs)`;
    this.workers
      .run(job, "reading the agent's transcript", () => session.isDisposed, tooCostly)
      .then(
        (reason) => {
          if (reason !== null) session.activity.explain(since, reason, 'transcript');
        },
        (err: Error) => this.log(`session ${session.id}: no reason from its transcript: ${err.message}`),
      )
      .finally(() => {
        this.reading.delete(session.id);
        const next = this.wanted.get(session.id);
        this.wanted.delete(session.id);
        if (next !== undefined && next !== since && !session.isDisposed) this.readTranscript(session, next);
      });
  }

  dispose(): void {
    this.store.dispose();
  }
}
