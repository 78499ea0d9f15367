// Input ownership of a tab (TabInput) against a real daemon: an owner's keys reach the session, a
// watcher's first keys take input over and follow once it has, the window that lost input is told,
// and a tab that starts watching after a reload takes input back when the old window leaves.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import type { Attachment, HoldfastClient } from '../src/client/client';
import { NOTICE } from '../src/extension/notices';
import { HELD_KEYS_MAX_CHARS, type InputTab, TabInput } from '../src/extension/tabInput';
import { startTestDaemon, waitFor } from './helpers/daemon';

interface FakeTab extends InputTab {
  printed: string[];
  calls: string[];
  attached?: Attachment;
}

function inputTab(): FakeTab {
  const tab: FakeTab = {
    printed: [],
    calls: [],
    attachment: () => tab.attached,
    size: () => ({ cols: 80, rows: 24 }),
    print: (text) => tab.printed.push(text),
    watching: () => tab.calls.push('watching'),
    owning: () => tab.calls.push('owning'),
    claimed: () => tab.calls.push('claimed'),
  };
  return tab;
}

/** Attaches `input`'s tab to the session in `role`, wiring the daemon's role events to it. */
async function attach(client: HoldfastClient, id: string, tab: FakeTab, input: TabInput, role: 'owner' | 'watcher') {
  tab.attached = await client.attach(
    { session: id, role },
    {
      onSnapshot: () => undefined,
      onOutput: () => undefined,
      onEvent: (event) => {
        if (event.type === 'role') input.roleChanged(event.role);
        if (event.type === 'session' && event.session.id === id) input.sessionChanged(event.session.clients.owners);
      },
    },
  );
  input.attachedAs(role);
}

test('TabInput: owner keys go through; a watcher typing takes input over, keys follow; the other is told', async () => {
  const daemon = await startTestDaemon();
  const first = await daemon.connect('window-1');
  const second = await daemon.connect('window-2');
  try {
    const { session } = await first.request('create', { name: 'in', argv: ['/bin/sh'], cols: 80, rows: 24 });
    const tabA = inputTab();
    const inputA = new TabInput(tabA);
    await attach(first, session.id, tabA, inputA, 'owner');
    assert.equal(inputA.isOwner, true);
    inputA.type('echo from-a-$((1+1))\r');
    await first.request('wait', {
      session: session.id,
      condition: { kind: 'text', pattern: 'from-a-2' },
      timeoutMs: 20_000,
    });

    const tabB = inputTab();
    const inputB = new TabInput(tabB);
    assert.equal(inputB.firstRole(1), 'watcher', 'another window has input: watch');
    await attach(second, session.id, tabB, inputB, 'watcher');
    assert.equal(inputB.isOwner, false);
    inputB.type('echo from-b-$((2+2))\r'); // queued, then sent once the claim lands
    await second.request('wait', {
      session: session.id,
      condition: { kind: 'text', pattern: 'from-b-4' },
      timeoutMs: 20_000,
    });
    assert.equal(inputB.role, 'owner');
    assert.ok(tabB.calls.includes('claimed'));
    await waitFor(() => inputA.role === 'watcher', 10_000, 'the first tab to hear it lost input');
    assert.deepEqual(tabA.printed, [NOTICE.inputMoved]);
    assert.ok(tabA.calls.includes('watching'));
    // The first tab's keys now take input back.
    await inputA.take();
    assert.equal(inputA.role, 'owner');
    await waitFor(() => inputB.role === 'watcher', 10_000, 'the second tab to hear it lost input');
  } finally {
    first.close();
    second.close();
    await daemon.stop();
    fs.rmSync(daemon.dir, { recursive: true, force: true });
  }
});

test('TabInput: after a reload a watching tab takes input back when the old window leaves', async () => {
  const daemon = await startTestDaemon();
  const old = await daemon.connect('old-window');
  const reloaded = await daemon.connect('reloaded-window');
  try {
    const { session } = await old.request('create', { name: 'reload', argv: ['/bin/sh'], cols: 80, rows: 24 });
    const oldTab = inputTab();
    await attach(old, session.id, oldTab, new TabInput(oldTab), 'owner');
    const tab = inputTab();
    const input = new TabInput(tab);
    input.type('lost\r'); // not attached: nothing to send to, nothing thrown
    assert.equal(input.firstRole(1), 'watcher');
    await attach(reloaded, session.id, tab, input, 'watcher');
    old.close(); // the old window's connection goes away
    await waitFor(() => input.role === 'owner', 10_000, 'the reloaded tab to take input back');
    assert.ok(tab.calls.includes('claimed'));
    assert.deepEqual(tab.printed, []);
  } finally {
    old.close();
    reloaded.close();
    await daemon.stop();
    fs.rmSync(daemon.dir, { recursive: true, force: true });
  }
});

test('TabInput: keys held while the tab is away go once released, up to the bound, past it one notice', () => {
  const tab = inputTab();
  const sent: string[] = [];
  tab.attached = { write: (data: string) => sent.push(data) } as unknown as Attachment;
  const input = new TabInput(tab);
  input.hold('a'.repeat(HELD_KEYS_MAX_CHARS - 1));
  input.hold('b'); // exactly at the bound: kept
  input.hold('c');
  input.hold('d');
  assert.deepEqual(tab.printed, [NOTICE.heldKeysDropped], 'past the bound: said once, not sent');
  input.attachedAs('owner');
  input.release();
  assert.deepEqual(
    sent.map((data) => data.length),
    [HELD_KEYS_MAX_CHARS - 1, 1],
  );
  input.hold('e');
  assert.deepEqual(input.dropHeld(), ['e'], 'a tab that did not come back drops what it held');
  input.release();
  assert.equal(sent.length, 2);
});
