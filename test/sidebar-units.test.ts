// Unit tests of the sidebar's pure parts: session states from daemon events, the card model
// (grouping, order, actions, agent kinds), and, against a real daemon, that its pushed events
// alone drive a session through running → idle → waiting → running → exited.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SessionInfo } from '../src/protocol/messages';
import { agentKind, buildModel, displayPath, SessionStateTracker, toCard } from '../src/extension/sessionState';
import { formatElapsed } from '../src/extension/webview/elapsed';
import { startTestDaemon, waitFor } from './helpers/daemon';
import { sessionInfo } from './helpers/sessionInfo';

const T0 = 1_000_000;

function session(id: string, extra: Partial<SessionInfo> = {}): SessionInfo {
  return sessionInfo(id, { cwd: '/home/u/project', createdAt: T0, lastOutputAt: T0, ...extra });
}

test('activity is running, idle is idle, with the time each began', () => {
  const tracker = new SessionStateTracker();
  const s = session('a');
  tracker.reset([s], T0 + 10_000);
  assert.deepEqual(tracker.status(s, T0 + 10_000), { phase: 'idle', since: T0 });
  assert.equal(tracker.apply({ type: 'activity', id: 'a', at: T0 + 11_000 }, T0 + 11_000), true);
  assert.deepEqual(tracker.status(s, T0 + 11_500), { phase: 'running', since: T0 + 11_000 });
  tracker.apply({ type: 'idle', id: 'a', at: T0 + 13_000 }, T0 + 13_000);
  assert.deepEqual(tracker.status(s, T0 + 14_000), { phase: 'idle', since: T0 + 13_000 });
});

test('a bell is waiting for input until the next burst of output after it', () => {
  const tracker = new SessionStateTracker();
  const s = session('a');
  tracker.reset([s], T0);
  tracker.apply({ type: 'activity', id: 'a', at: T0 + 100 }, T0 + 100);
  tracker.apply({ type: 'bell', id: 'a', at: T0 + 105 }, T0 + 105);
  assert.deepEqual(tracker.status(s, T0 + 200), { phase: 'waiting', since: T0 + 105 });
  // Going quiet does not end the wait, nor does a second bell move its start.
  tracker.apply({ type: 'idle', id: 'a', at: T0 + 2_200 }, T0 + 2_200);
  tracker.apply({ type: 'bell', id: 'a', at: T0 + 3_000 }, T0 + 3_000);
  assert.deepEqual(tracker.status(s, T0 + 4_000), { phase: 'waiting', since: T0 + 105 });
  // The user answers: the echo is new output.
  tracker.apply({ type: 'activity', id: 'a', at: T0 + 9_000 }, T0 + 9_000);
  assert.deepEqual(tracker.status(s, T0 + 9_100), { phase: 'running', since: T0 + 9_000 });
});

test('output going on well past the bell (an answer within the same burst) ends the wait at the next idle', () => {
  const tracker = new SessionStateTracker();
  const s = session('a');
  tracker.reset([s], T0);
  tracker.apply({ type: 'activity', id: 'a', at: T0 }, T0);
  tracker.apply({ type: 'bell', id: 'a', at: T0 + 100 }, T0 + 100);
  // A prompt that redraws for half a second after its bell is still waiting once quiet.
  tracker.apply({ type: 'idle', id: 'a', at: T0 + 2_600 }, T0 + 2_600);
  assert.equal(tracker.status(s, T0 + 2_700).phase, 'waiting');
  // Answered at once (no quiet spell, so no new activity), the program worked for 5 s.
  tracker.apply({ type: 'bell', id: 'b', at: T0 + 100 }, T0 + 100);
  tracker.apply({ type: 'idle', id: 'b', at: T0 + 7_100 }, T0 + 7_100);
  assert.deepEqual(tracker.status(session('b'), T0 + 7_200), { phase: 'idle', since: T0 + 7_100 });
});

test('exited shows the exit; archived is an exited session restored from a checkpoint', () => {
  const tracker = new SessionStateTracker();
  const exit = { code: 3, signal: null, at: T0 + 500 };
  const exited = session('a', { state: 'exited', exit });
  assert.equal(tracker.apply({ type: 'exit', id: 'a', exit }, T0 + 500), true);
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
  tracker.apply({ type: 'bell', id: 'a', at: T0 + 400 }, T0 + 400);
  assert.equal(tracker.status(exited, T0 + 600).phase, 'exited');
});

test('what the session info alone says: recent output is running, a bell in the last burst is waiting', () => {
  const tracker = new SessionStateTracker();
  const now = T0 + 60_000;
  const busy = session('busy', { lastOutputAt: now - 500 });
  const quiet = session('quiet', { lastOutputAt: now - 30_000 });
  const asked = session('asked', { lastOutputAt: now - 30_000, bellAt: now - 30_010 });
  const answered = session('answered', { lastOutputAt: now - 5_000, bellAt: now - 30_000 });
  tracker.reset([busy, quiet, asked, answered], now);
  assert.equal(tracker.status(busy, now).phase, 'running');
  assert.deepEqual(tracker.status(quiet, now), { phase: 'idle', since: now - 30_000 });
  assert.deepEqual(tracker.status(asked, now), { phase: 'waiting', since: now - 30_010 });
  assert.equal(tracker.status(answered, now).phase, 'idle');
  // A session first seen in an event (created after the reset) starts from its info too.
  const fresh = session('fresh', { createdAt: now, lastOutputAt: now });
  assert.equal(tracker.apply({ type: 'session', session: fresh }, now), true);
  assert.equal(tracker.status(fresh, now + 100).phase, 'running');
  assert.equal(tracker.apply({ type: 'removed', id: 'fresh' }, now), true);
  assert.equal(tracker.apply({ type: 'removed', id: 'never' }, now), false);
  assert.equal(tracker.apply({ type: 'stopping' }, now), false);
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

test('elapsed times', () => {
  assert.equal(formatElapsed(-5), '0s');
  assert.equal(formatElapsed(59_999), '59s');
  assert.equal(formatElapsed(61_000), '1m 1s');
  assert.equal(formatElapsed(2 * 3600_000 + 5 * 60_000), '2h 5m');
  assert.equal(formatElapsed(3 * 86400_000 + 4 * 3600_000), '3d 4h');
});

test(
  'a real daemon pushes running → idle → (output, bell) waiting → (answer) running → exited',
  { timeout: 60_000 },
  async () => {
    const daemon = await startTestDaemon();
    try {
      const client = await daemon.connect('sidebar-test');
      const tracker = new SessionStateTracker();
      const infos = new Map<string, SessionInfo>();
      const kinds: string[] = [];
      // The phase after each pushed event: nothing else moves it.
      const phases: string[] = [];
      let watched: string | undefined;
      client.onEvent((event) => {
        if (event.type === 'session') infos.set(event.session.id, event.session);
        if (event.type === 'exit') infos.set(event.id, { ...infos.get(event.id)!, state: 'exited', exit: event.exit });
        tracker.apply(event, Date.now());
        if (
          !watched ||
          !('id' in event ? event.id === watched : event.type === 'session' && event.session.id === watched)
        )
          return;
        kinds.push(event.type);
        const phase = tracker.status(infos.get(watched)!, Date.now()).phase;
        if (phases[phases.length - 1] !== phase) phases.push(phase);
      });
      const { sessions } = await client.request('subscribe', {});
      tracker.reset(sessions, Date.now());
      // Prints for a moment, goes quiet, rings the bell and waits for a line, prints it, exits 7.
      const script =
        'sleep 0.3; for i in 1 2 3; do echo tick $i; sleep 0.2; done; sleep 3; printf "answer? \\a"; read line; echo "got $line"; sleep 0.5; exit 7';
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
        ['running', 'idle', 'running', 'waiting', 'running', 'exited'],
        `phases after events ${kinds.join(', ')}`,
      );
      assert.equal(tracker.status(infos.get(created.id)!, Date.now()).exit?.code, 7);
    } finally {
      await daemon.stop();
    }
  },
);
