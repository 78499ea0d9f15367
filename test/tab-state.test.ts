// A tab's life (src/extension/tabState.ts): every legal transition, the illegal ones refused, and
// a restored tab of an ended session landing in its real state. No VS Code needed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as life from '../src/extension/tabState';
import type { AttachedSession, TabState } from '../src/extension/tabState';

const running: AttachedSession = { state: 'running', exit: null };
const exitedWith1: AttachedSession = { state: 'exited', exit: { code: 1, signal: null, at: 1 } };
const archived: AttachedSession = { state: 'exited', exit: null, archived: 'relaunch' };

const opening: TabState = life.initialTabState;
const attachingStart: TabState = { kind: 'attaching', why: 'start' };
const live: TabState = { kind: 'live' };
const exited: TabState = { kind: 'exited', exit: { code: 1, signal: null, at: 1 } };
const archivedState: TabState = { kind: 'archived', action: 'relaunch' };
const reconnectingLive: TabState = { kind: 'reconnecting', was: { kind: 'live' } };
const failed: TabState = { kind: 'failed' };
const gone: TabState = { kind: 'gone', why: 'daemonStopped' };
const replacing: TabState = { kind: 'replacing', from: archivedState };
const closed: TabState = { kind: 'closed', ended: false };

const every: TabState[] = [
  opening,
  attachingStart,
  live,
  exited,
  archivedState,
  reconnectingLive,
  failed,
  gone,
  replacing,
  closed,
];

/** Asserts `transition` moves exactly the states in `from` (by kind), and refuses every other. */
function legalFrom(name: string, transition: (s: TabState) => TabState | undefined, from: TabState['kind'][]): void {
  for (const state of every) {
    const next = transition(state);
    if (from.includes(state.kind)) assert.ok(next, `${name} from ${state.kind} is legal`);
    else assert.equal(next, undefined, `${name} from ${state.kind} is refused`);
  }
}

test('a new tab starts opening, and start() moves it to attaching once', () => {
  assert.deepEqual(life.start(opening), { kind: 'attaching', why: 'start' });
  legalFrom('start', life.start, ['opening']);
});

test('attached lands in the state the daemon reports', () => {
  assert.deepEqual(life.attached(attachingStart, running), { kind: 'live' });
  assert.deepEqual(life.attached(attachingStart, exitedWith1), {
    kind: 'exited',
    exit: { code: 1, signal: null, at: 1 },
  });
  assert.deepEqual(life.attached(attachingStart, archived), { kind: 'archived', action: 'relaunch' });
  legalFrom('attached', (s) => life.attached(s, running), ['attaching']);
});

test('a restored tab of a session that exited with code 1 comes back exited, with its code (not live)', () => {
  // After a reload the tab is new: it knows nothing but what the daemon says when it attaches.
  const attaching = life.start(life.initialTabState)!;
  const landed = life.attached(attaching, exitedWith1);
  assert.deepEqual(landed, { kind: 'exited', exit: { code: 1, signal: null, at: 1 } });
  assert.equal(life.processEnded(landed!), true, 'closing it asks nothing: nothing runs');
  // The exit is not announced a second time by a late exit event.
  assert.equal(life.processExited(landed!, { code: 1, signal: null, at: 1 }), undefined);
  // An archived session comes back archived, a running one live.
  assert.equal(life.attached(life.start(life.initialTabState)!, archived)!.kind, 'archived');
  assert.equal(life.attached(life.start(life.initialTabState)!, running)!.kind, 'live');
});

test('an exit is announced once: live → exited; during an attach it is kept for when the attach lands', () => {
  const exit = { code: 1, signal: null, at: 1 };
  assert.deepEqual(life.processExited(live, exit), { kind: 'exited', exit });
  const attachingExited = life.processExited(attachingStart, exit)!;
  assert.deepEqual(attachingExited, { kind: 'attaching', why: 'start', exit });
  assert.equal(life.processExited(attachingExited, exit), undefined, 'a second exit is refused');
  // The attach's session info may predate the exit: the exit wins.
  assert.deepEqual(life.attached(attachingExited, running), { kind: 'exited', exit });
  legalFrom('processExited', (s) => life.processExited(s, exit), ['live', 'attaching']);
});

test('connection lost and back: attached states reconnect, then land as the daemon says', () => {
  for (const state of [live, exited, archivedState]) {
    const lost = life.connectionLost(state)!;
    assert.deepEqual(lost, { kind: 'reconnecting', was: state });
    assert.equal(life.processEnded(lost), life.processEnded(state), 'reconnecting keeps whether the process ended');
    assert.deepEqual(life.reconnect(lost), { kind: 'attaching', why: 'reconnect' });
  }
  legalFrom('connectionLost', life.connectionLost, ['live', 'exited', 'archived', 'replacing']);
  // Lost while replacing: a failed replacement falls back to reconnecting (and attaches again).
  const lostReplacing = life.connectionLost(replacing)!;
  assert.deepEqual(lostReplacing, { kind: 'replacing', from: { kind: 'reconnecting', was: archivedState } });
  assert.equal(life.replacementFailed(lostReplacing)!.kind, 'reconnecting');
  assert.equal(life.connectionLost({ kind: 'replacing', from: opening }), undefined);
  legalFrom('reconnect', life.reconnect, ['reconnecting']);
  // An exited tab reattached after a reconnect is exited again (its notice comes back with it).
  assert.equal(life.attached(life.reconnect(life.connectionLost(exited)!)!, exitedWith1)!.kind, 'exited');
});

test('attachFailed: only from attaching', () => {
  assert.deepEqual(life.attachFailed(attachingStart), { kind: 'failed' });
  legalFrom('attachFailed', life.attachFailed, ['attaching']);
});

test('gone: a daemon going away ends every tab but closed and gone ones; a removed session only when attaching', () => {
  assert.deepEqual(life.sessionGone(live, 'daemonRestarted'), { kind: 'gone', why: 'daemonRestarted' });
  legalFrom('sessionGone(daemonStopped)', (s) => life.sessionGone(s, 'daemonStopped'), [
    'opening',
    'attaching',
    'live',
    'exited',
    'archived',
    'reconnecting',
    'failed',
    'replacing',
  ]);
  legalFrom('sessionGone(sessionRemoved)', (s) => life.sessionGone(s, 'sessionRemoved'), ['attaching']);
  assert.equal(life.processEnded(gone), true);
});

test('replacing: begins from any open state, fails back to where it was, or attaches to the new run', () => {
  const begun = life.beginReplacement(archivedState)!;
  assert.deepEqual(begun, { kind: 'replacing', from: archivedState });
  assert.deepEqual(life.replacementFailed(begun), archivedState);
  assert.deepEqual(life.replaced(begun), { kind: 'attaching', why: 'replace' });
  assert.equal(life.attached(life.replaced(begun)!, running)!.kind, 'live', 'the new run is live');
  legalFrom('beginReplacement', life.beginReplacement, [
    'opening',
    'attaching',
    'live',
    'exited',
    'archived',
    'reconnecting',
    'failed',
    'gone',
  ]);
  legalFrom('replacementFailed', life.replacementFailed, ['replacing']);
  legalFrom('replaced', life.replaced, ['replacing']);
});

test('close: from every state but closed, keeping whether the process had ended', () => {
  legalFrom('close', life.close, [
    'opening',
    'attaching',
    'live',
    'exited',
    'archived',
    'reconnecting',
    'failed',
    'gone',
    'replacing',
  ]);
  assert.equal(life.processEnded(life.close(exited)!), true);
  assert.equal(life.processEnded(life.close(live)!), false);
  assert.equal(life.processEnded(life.close(opening)!), undefined, 'not known before the tab attached');
  // A closed tab hears nothing more.
  for (const t of [life.start, life.connectionLost, life.reconnect, life.attachFailed, life.replaced])
    assert.equal(t(closed), undefined);
  assert.equal(life.attached(closed, running), undefined);
  assert.equal(life.processExited(closed, null), undefined);
});

test('isAttached: exactly live, exited and archived', () => {
  assert.deepEqual(
    every.filter(life.isAttached).map((s) => s.kind),
    ['live', 'exited', 'archived'],
  );
});
