// A tab's life (src/extension/tabState.ts): every legal transition, the illegal ones refused, a
// restored tab of an ended session landing in its real state, and a walk over every state and
// event showing that no state but closed is a dead end. No VS Code needed.
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

/** Every kind of state but the `excluded` ones, in the order of `every`. */
function kindsBut(...excluded: TabState['kind'][]): TabState['kind'][] {
  return every.map((s) => s.kind).filter((kind) => !excluded.includes(kind));
}

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
  assert.equal(life.processEnded(landed), true, 'closing it asks nothing: nothing runs');
  // The exit is not announced a second time by a late exit event.
  assert.equal(life.processExited(landed, { code: 1, signal: null, at: 1 }), undefined);
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
  legalFrom('connectionLost', life.connectionLost, ['attaching', 'live', 'exited', 'archived', 'replacing']);
  // An attach lost with its connection is tried again on the next one.
  const lostAttach = life.connectionLost(attachingStart)!;
  assert.deepEqual(lostAttach, { kind: 'reconnecting' });
  assert.equal(life.processEnded(lostAttach), undefined, 'not known: the attach never landed');
  assert.equal(life.attached(life.reconnect(lostAttach)!, running)!.kind, 'live');
  // Lost while replacing: a failed replacement falls back to reconnecting (and attaches again).
  const lostReplacing = life.connectionLost(replacing)!;
  assert.deepEqual(lostReplacing, { kind: 'replacing', from: { kind: 'reconnecting', was: archivedState } });
  assert.equal(life.replacementFailed(lostReplacing)!.kind, 'reconnecting');
  assert.equal(life.connectionLost({ kind: 'replacing', from: opening }), undefined);
  legalFrom('reconnect', life.reconnect, ['reconnecting', 'failed']);
  // An exited tab reattached after a reconnect is exited again (its notice comes back with it).
  assert.equal(life.attached(life.reconnect(life.connectionLost(exited)!)!, exitedWith1)!.kind, 'exited');
});

test('attachFailed: only from attaching; a failed tab attaches again on the next connection', () => {
  assert.deepEqual(life.attachFailed(attachingStart), { kind: 'failed' });
  legalFrom('attachFailed', life.attachFailed, ['attaching']);
  assert.deepEqual(life.reconnect(failed), { kind: 'attaching', why: 'reconnect' });
});

test('gone: a daemon going away ends every tab but closed and gone ones; a removed session only when attaching', () => {
  assert.deepEqual(life.sessionGone(live, 'daemonRestarted'), { kind: 'gone', why: 'daemonRestarted' });
  legalFrom('sessionGone(daemonStopped)', (s) => life.sessionGone(s, 'daemonStopped'), kindsBut('gone', 'closed'));
  legalFrom('sessionGone(sessionRemoved)', (s) => life.sessionGone(s, 'sessionRemoved'), ['attaching']);
  assert.equal(life.processEnded(gone), true);
});

test('replacing: begins from any open state, fails back to where it was, or attaches to the new run', () => {
  const begun = life.beginReplacement(archivedState)!;
  assert.deepEqual(begun, { kind: 'replacing', from: archivedState });
  assert.deepEqual(life.replacementFailed(begun), archivedState);
  assert.deepEqual(life.replaced(begun), { kind: 'attaching', why: 'replace' });
  assert.equal(life.attached(life.replaced(begun)!, running)!.kind, 'live', 'the new run is live');
  legalFrom('beginReplacement', life.beginReplacement, kindsBut('replacing', 'closed'));
  legalFrom('replacementFailed', life.replacementFailed, ['replacing']);
  legalFrom('replaced', life.replaced, ['replacing']);
});

test('close: from every state but closed, keeping whether the process had ended', () => {
  legalFrom('close', life.close, kindsBut('closed'));
  assert.equal(life.processEnded(life.close(exited)!), true);
  assert.equal(life.processEnded(life.close(live)!), false);
  assert.equal(life.processEnded(life.close(opening)!), undefined, 'not known before the tab attached');
  // A closed tab hears nothing more.
  for (const t of [life.start, life.connectionLost, life.reconnect, life.attachFailed, life.replaced, life.close])
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

type Step = [name: string, transition: (s: TabState) => TabState | undefined];

const exit = { code: 1, signal: null, at: 1 };
/** What can happen to a tab while its session lives: the connection and the attach, not the session's end. */
const whileAlive: Step[] = [
  ['start', life.start],
  ['attached(running)', (s) => life.attached(s, running)],
  ['connectionLost', life.connectionLost],
  ['reconnect', life.reconnect],
  ['attachFailed', life.attachFailed],
  ['replaced', life.replaced],
  ['replacementFailed', life.replacementFailed],
];
/** Every event there is, with each kind of argument. */
const everyEvent: Step[] = [
  ...whileAlive,
  ['attached(exited)', (s) => life.attached(s, exitedWith1)],
  ['attached(archived)', (s) => life.attached(s, archived)],
  ['processExited', (s) => life.processExited(s, exit)],
  ['sessionGone(daemonStopped)', (s) => life.sessionGone(s, 'daemonStopped')],
  ['sessionGone(daemonRestarted)', (s) => life.sessionGone(s, 'daemonRestarted')],
  ['sessionGone(sessionRemoved)', (s) => life.sessionGone(s, 'sessionRemoved')],
  ['beginReplacement', life.beginReplacement],
  ['close', life.close],
];

const key = (s: TabState): string => JSON.stringify(s);

/** Every state reachable from `from` by `steps` (the starting ones included), by key. */
function reachable(from: TabState[], steps: Step[]): Map<string, TabState> {
  const seen = new Map(from.map((s) => [key(s), s]));
  const queue = [...from];
  for (let state = queue.shift(); state; state = queue.shift()) {
    for (const [, step] of steps) {
      const next = step(state);
      if (next && !seen.has(key(next))) {
        seen.set(key(next), next);
        queue.push(next);
      }
    }
  }
  return seen;
}

test('no dead end: from every state a tab can be in, but closed, some path leads back to live', () => {
  // Every state a tab can reach by any sequence of events, from the states above.
  const all = reachable(every, everyEvent);
  assert.ok(all.size > every.length, `the walk found ${all.size} states`);
  const stuck: string[] = [];
  for (const [k, state] of all) {
    if (state.kind === 'closed') continue;
    // A session that lives comes back by the connection and attach alone; a gone one only by a new run.
    const steps = state.kind === 'gone' ? everyEvent : whileAlive;
    if (![...reachable([state], steps).values()].some((s) => s.kind === 'live')) stuck.push(k);
  }
  assert.deepEqual(stuck, [], 'states with no way back to live');
});

test('while the session lives, every state the connection and attach events reach returns to live', () => {
  // From a tab that opened, whatever the connection does (drops while opening, attaching, live,
  // reconnecting or replacing; attaches that fail), live stays reachable.
  const starts: TabState[] = [opening, live, replacing, { kind: 'replacing', from: live }];
  for (const [k, state] of reachable(starts, whileAlive)) {
    const back = [...reachable([state], whileAlive).values()].some((s) => s.kind === 'live');
    assert.ok(back, `from ${k} live is reachable`);
  }
});
