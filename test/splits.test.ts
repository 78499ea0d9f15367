// Split groups in the layout metadata: the restore plan and keeping the record current (pure code).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionInfo } from '../src/protocol/messages';
import { readLayout } from '../src/protocol/tabLayout';
import { planRestore } from '../src/extension/layout';
import { leaveGroupPatches } from '../src/extension/splitLayout';
import { sessionInfo } from './helpers/sessionInfo';

const W = 'file:///work/project';

function session(id: string, metadata: Record<string, unknown>): SessionInfo {
  return sessionInfo(id, { metadata: { workspace: W, ...metadata } });
}

function plan(sessions: SessionInfo[], shown: string[] = []): [string, string | undefined][] {
  return planRestore(sessions, W, new Set(shown)).items.map((i) => [i.session.id, i.splitBeside]);
}

test('layout: splitOf is read when it is a non-empty string', () => {
  assert.equal(readLayout({ splitOf: 'a' }).splitOf, 'a');
  assert.equal(readLayout({ splitOf: '' }).splitOf, undefined);
  assert.equal(readLayout({ splitOf: 3 }).splitOf, undefined);
});

test('restore plan: a split group comes where its first tab was, members in order, each beside the one before', () => {
  const sessions = [
    session('b2', { order: 5, splitOf: 'b' }),
    session('a', { order: 0 }),
    session('b', { order: 1 }),
    session('c', { order: 2 }),
    session('b1', { order: 3, splitOf: 'b' }),
    session('d', { order: 4, activeAt: 7, splitOf: 'c' }),
  ];
  assert.deepEqual(plan(sessions), [
    ['a', undefined],
    ['b', undefined],
    ['b1', 'b'],
    ['b2', 'b1'],
    ['c', undefined],
    ['d', 'c'],
  ]);
  assert.equal(planRestore(sessions, W, new Set()).activeId, 'd');
});

test('restore plan: a group whose first tab is gone is led by its next member', () => {
  const sessions = [
    session('x', { order: 0 }),
    session('m2', { order: 4, splitOf: 'gone' }),
    session('m1', { order: 2, splitOf: 'gone' }),
    session('m3', { order: 6, splitOf: 'gone' }),
  ];
  assert.deepEqual(plan(sessions), [
    ['x', undefined],
    ['m1', undefined],
    ['m2', 'm1'],
    ['m3', 'm2'],
  ]);
});

test('restore plan: a detached first tab re-parents too; members join a first tab already shown here', () => {
  const detached = [
    session('first', { order: 0, detached: true }),
    session('m1', { order: 1, splitOf: 'first' }),
    session('m2', { order: 2, splitOf: 'first' }),
  ];
  assert.deepEqual(plan(detached), [
    ['m1', undefined],
    ['m2', 'm1'],
  ]);
  const shown = [
    session('first', { order: 0 }),
    session('m1', { order: 1, splitOf: 'first' }),
    session('m2', { order: 2, splitOf: 'first' }),
  ];
  assert.deepEqual(plan(shown, ['first']), [
    ['m1', 'first'],
    ['m2', 'm1'],
  ]);
});

test('restore plan: editor tabs are never split, whatever the record says', () => {
  const sessions = [session('p', { order: 0 }), session('e', { order: 1, splitOf: 'p', location: 'editor' })];
  assert.deepEqual(plan(sessions), [
    ['p', undefined],
    ['e', undefined],
  ]);
});

test('leaving a group: a member drops its record; when the first leaves, the next member leads', () => {
  const sessions = [
    session('first', { order: 0 }),
    session('m2', { order: 2, splitOf: 'first' }),
    session('m1', { order: 1, splitOf: 'first' }),
    session('m3', { order: 3, splitOf: 'first' }),
    session('alone', { order: 4 }),
  ];
  assert.deepEqual(leaveGroupPatches(sessions, 'm2'), [{ id: 'm2', splitOf: undefined }]);
  assert.deepEqual(leaveGroupPatches(sessions, 'first'), [
    { id: 'm1', splitOf: undefined },
    { id: 'm2', splitOf: 'm1' },
    { id: 'm3', splitOf: 'm1' },
  ]);
  assert.deepEqual(leaveGroupPatches(sessions, 'alone'), []);
  assert.deepEqual(leaveGroupPatches(sessions, 'unknown'), []);
});
