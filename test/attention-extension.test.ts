// The extension's pure parts of answering the sessions that need you: the order Go to Next / Previous
// Agent Needing Attention walks, the coalesced notifications and their text, the reason and the
// Reply… action on a card, Approve / Deny at a permission prompt, and the default keybindings.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { type AttentionCard, needingAttention, stepThrough } from '../src/extension/attentionOrder';
import { NotificationAction, NotificationBatch, notificationText } from '../src/extension/notificationBatch';
import { becameDone, SessionStateTracker, toCard } from '../src/extension/sessionState';
import type { Phase } from '../src/agents/sessionStatus';
import { programText, programTextOr } from '../src/text/programText';
import { ROOT } from './helpers/daemon';
import { sessionInfo } from './helpers/sessionInfo';

/** A card's text as plain strings; the card marks them as the program's, as toCard does. */
type CardText = { name?: string; agentLabel?: string; reason?: string };

function card(
  id: string,
  phase: Phase,
  since: number,
  extra: Omit<Partial<AttentionCard>, keyof CardText> & CardText = {},
): AttentionCard {
  const { name = id, agentLabel = 'Claude Code', reason, ...rest } = extra;
  const text = { name: programText(name), agentLabel: programText(agentLabel), reason: programTextOr(reason) };
  return { id, agent: 'claude', phase, since, ...text, ...rest };
}

test('waiting first, then done, each oldest first; the others need nothing', () => {
  const cards = [
    card('done-new', 'done', 300),
    card('running', 'running', 50),
    card('wait-new', 'waiting', 200),
    card('done-old', 'done', 100),
    card('wait-old', 'waiting', 150),
    card('exited', 'exited', 10),
  ];
  assert.deepEqual(
    needingAttention(cards).map((c) => c.id),
    ['wait-old', 'wait-new', 'done-old', 'done-new'],
  );
});

test('next and previous go round the order, and start at its ends from a session that needs nothing', () => {
  const order = ['a', 'b', 'c'];
  assert.equal(stepThrough(order, undefined, 1), 'a');
  assert.equal(stepThrough(order, 'elsewhere', 1), 'a');
  assert.equal(stepThrough(order, 'elsewhere', -1), 'c');
  assert.equal(stepThrough(order, 'a', 1), 'b');
  assert.equal(stepThrough(order, 'c', 1), 'a');
  assert.equal(stepThrough(order, 'a', -1), 'c');
  assert.equal(stepThrough([], 'a', 1), undefined);
  assert.equal(stepThrough(['a'], 'a', 1), 'a');
});

test('one notification says why the session waits and offers Reply… and Show; names are made printable', () => {
  const one = notificationText([card('a', 'waiting', 1, { name: 'fix\x1b[2Jtests', reason: 'Shall I merge them?' })]);
  assert.equal(one.message, 'Holdfast: Claude Code "fix\\u{1b}[2Jtests" is waiting for you: Shall I merge them?');
  assert.deepEqual(one.actions, [NotificationAction.Reply, NotificationAction.Show]);
  const done = notificationText([card('b', 'done', 1, { agent: 'terminal', agentLabel: 'Terminal', name: 'build' })]);
  assert.equal(done.message, 'Holdfast: "build" is done.');
});

test('at a permission prompt the daemon can answer: Approve and Deny instead of Reply… (its Enter would pick)', () => {
  const one = notificationText([
    card('a', 'waiting', 1, { reason: 'Do you want to proceed?', permissionPrompt: true }),
  ]);
  assert.deepEqual(one.actions, [NotificationAction.Approve, NotificationAction.Deny, NotificationAction.Show]);
  // Several at once: nothing is answered from a notification that names more than one.
  const two = notificationText([card('a', 'waiting', 1, { permissionPrompt: true }), card('b', 'waiting', 2)]);
  assert.deepEqual(two.actions, [NotificationAction.ShowNext]);
  const tracker = new SessionStateTracker();
  const info = sessionInfo('a', { metadata: { agent: { profile: 'claude', sessionId: 'u' } } });
  tracker.reset([info]);
  const waiting = { state: 'waiting', since: 2000, source: 'hook', reason: 'Do you want to proceed?' } as const;
  tracker.apply({ type: 'attention', id: 'a', attention: waiting });
  assert.equal(toCard(info, tracker.status(info, 3000), '/').actions[0], 'replySession', 'not before the mark');
  tracker.apply({ type: 'attention', id: 'a', attention: { ...waiting, permissionPrompt: true } });
  const atPrompt = toCard(info, tracker.status(info, 3000), '/');
  assert.equal(atPrompt.permissionPrompt, true);
  assert.deepEqual(atPrompt.actions.slice(0, 3), ['approve', 'deny', 'focusSession']);
  tracker.apply({ type: 'attention', id: 'a', attention: { state: 'running', since: 4000, source: 'input' } });
  const answered = toCard(info, tracker.status(info, 5000), '/');
  assert.equal(answered.permissionPrompt, undefined);
  assert.ok(!answered.actions.includes('approve') && !answered.actions.includes('deny'));
});

test('several at once: one notification naming them, with Show Next', () => {
  const three = notificationText(['a', 'b', 'c'].map((id) => card(id, 'waiting', 1)));
  assert.equal(three.message, 'Holdfast: 3 agents need you: a, b, c');
  assert.deepEqual(three.actions, [NotificationAction.ShowNext]);
  const mixed = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((id) =>
    card(id, 'waiting', 1, id === 'g' ? { agent: 'terminal' } : {}),
  );
  assert.equal(notificationText(mixed).message, 'Holdfast: 7 sessions need you: a, b, c, d, e and 2 more');
});

test('sessions added within the window are handed over together, once each; a later one starts anew', async () => {
  const batches: string[][] = [];
  let flushed: () => void = () => undefined;
  const batch = new NotificationBatch((ids) => {
    batches.push(ids);
    flushed();
  }, 50);
  try {
    const first = new Promise<void>((resolve) => (flushed = resolve));
    batch.add('a');
    batch.add('b');
    batch.add('a');
    batch.add('c');
    await first;
    assert.deepEqual(batches, [['a', 'b', 'c']]);
    const second = new Promise<void>((resolve) => (flushed = resolve));
    batch.add('d');
    await second;
    assert.deepEqual(batches, [['a', 'b', 'c'], ['d']]);
  } finally {
    batch.dispose();
  }
});

test('disposing a batch drops what it held', async () => {
  const batches: string[][] = [];
  let flushed: () => void = () => undefined;
  const batch = new NotificationBatch((ids) => {
    batches.push(ids);
    flushed();
  }, 10);
  batch.add('a');
  batch.dispose();
  // A later batch's timer fires after the dropped one's would have: the first flush is the later batch.
  const later = new Promise<void>((resolve) => (flushed = resolve));
  batch.add('b');
  await later;
  batch.dispose();
  assert.deepEqual(batches, [['b']]);
});

test("a card that waits or is done shows the daemon's reason and offers Reply…", () => {
  const tracker = new SessionStateTracker();
  const info = sessionInfo('a', { attention: { state: 'idle', since: 1000, source: 'output' } });
  tracker.reset([info]);
  const waiting = { state: 'waiting', since: 2000, source: 'hook' } as const;
  tracker.apply({ type: 'attention', id: 'a', attention: waiting });
  tracker.apply({ type: 'attention', id: 'a', attention: { ...waiting, reason: 'Proceed?', reasonFrom: 'screen' } });
  const shown = toCard(info, tracker.status(info, 3000), '/');
  assert.equal(shown.reason, 'Proceed?');
  assert.equal(shown.actions[0], 'replySession');
  tracker.apply({ type: 'attention', id: 'a', attention: { state: 'running', since: 4000, source: 'input' } });
  const running = toCard(info, tracker.status(info, 5000), '/');
  assert.equal(running.reason, undefined);
  assert.ok(!running.actions.includes('replySession'));
});

test('done notifications: one per transition into done', () => {
  const cards = [card('a', 'done', 1), card('b', 'done', 1), card('c', 'waiting', 1)];
  const before = new Map<string, Phase>([
    ['a', 'running'],
    ['b', 'done'],
    ['c', 'running'],
  ]);
  assert.deepEqual(
    becameDone(before, cards as never).map((c) => c.id),
    ['a'],
  );
});

test('the keybindings are chords under ctrl+k / cmd+k, and their commands are contributed', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const commands = new Set(manifest.contributes.commands.map((c: { command: string }) => c.command));
  const bindings = manifest.contributes.keybindings as { command: string; key: string; mac: string }[];
  assert.deepEqual(
    bindings.map((b) => [b.command, b.key, b.mac]),
    [
      ['holdfast.nextAttention', 'ctrl+k ctrl+g', 'cmd+k cmd+g'],
      ['holdfast.previousAttention', 'ctrl+k ctrl+shift+g', 'cmd+k cmd+shift+g'],
    ],
  );
  for (const binding of bindings) assert.ok(commands.has(binding.command), binding.command);
  for (const command of ['holdfast.replySession', 'holdfast.approve', 'holdfast.deny'])
    assert.ok(commands.has(command), command);
  assert.equal(manifest.contributes.configuration.properties['holdfast.notifications.done'].default, false);
});

test("a card shows the program's text with its control and bidi characters as visible escapes", () => {
  const info = sessionInfo('a', {
    name: 'build\u202e',
    title: 'vim \x1b]52;c;eA==\x07x',
    cwd: '/home/u/\u2066src',
    metadata: {
      agent: { profile: 'claude', name: 'Claude\u200f' },
      worktree: { path: '/home/u/src-wt', branch: 'fix\u2067', repo: '/home/u/src' },
    },
  });
  const card = toCard(info, new SessionStateTracker().status(info, 2000), '/');
  assert.deepEqual(
    [card.name, card.title, card.cwd, card.agentLabel, card.branch],
    ['build\\u{202e}', 'vim \\u{1b}]52;c;eA==\\u{7}x', '/home/u/\\u{2066}src', 'Claude\\u{200f}', 'fix\\u{2067}'],
  );
});
