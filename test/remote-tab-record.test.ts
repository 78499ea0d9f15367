// Which hosts' sessions a window reopens in tabs after a reload (remoteTabRecord.ts): only host keys, each once, the
// newest kept; whatever else workspaceState holds under the key is dropped, never an error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memento as mementoAt } from './helpers/memento';
import { MAX_REMOTE_TABS, readRemoteTabs, REMOTE_TABS_KEY, RemoteTabRecord } from '../src/extension/remoteTabRecord';
import { remoteKey } from '../src/extension/sessionKey';

const memento = (initial?: unknown) => mementoAt(REMOTE_TABS_KEY, initial);

test('only host session keys are read back, each once', () => {
  const far = remoteKey('remote', 'abcd1234');
  const slashed = remoteKey('user@box/jump', '0f0f0f0f');
  assert.deepEqual(
    readRemoteTabs([far, far, 'abcd1234', '@nohost', '@remote/', '@%E0%A4%A/1', 7, null, { key: far }, slashed]),
    [far, slashed],
  );
  for (const hostile of [undefined, null, 'x', 42, { length: 3 }, far])
    assert.deepEqual(readRemoteTabs(hostile), [], JSON.stringify(hostile));
  assert.deepEqual(readRemoteTabs([`@remote/${'x'.repeat(2000)}`]), [], 'an oversized key');
});

test('a record of too many keys keeps the newest', () => {
  const keys = Array.from({ length: MAX_REMOTE_TABS + 20 }, (_, i) => remoteKey('remote', `s${i}`));
  const read = readRemoteTabs(keys);
  assert.equal(read.length, MAX_REMOTE_TABS);
  assert.equal(read.at(-1), keys.at(-1));
  assert.equal(read[0], keys[20]);
});

test('added and removed keys outlive the record (a reload reads them back), per host', () => {
  const state = memento();
  const record = new RemoteTabRecord(state);
  const a = remoteKey('remote', 'aaaa0001');
  const b = remoteKey('other', 'bbbb0002');
  const c = remoteKey('remote', 'cccc0003');
  record.add(a);
  record.add(b);
  record.add(c);
  record.add(a); // opened again: moves to the end, once
  record.add('dddd0004'); // this machine's: never recorded here
  const reloaded = new RemoteTabRecord(state);
  assert.deepEqual(reloaded.of('remote'), [c, a]);
  assert.deepEqual(reloaded.of('other'), [b]);
  assert.deepEqual(reloaded.of('nowhere'), []);
  reloaded.remove(c);
  reloaded.remove(remoteKey('remote', 'not-there'));
  assert.deepEqual(new RemoteTabRecord(state).of('remote'), [a]);
  assert.deepEqual(state.values.get(REMOTE_TABS_KEY), [b, a]);
});

test('a record that cannot be written stays usable in this window', () => {
  const state = { get: () => undefined, update: () => Promise.reject(new Error('storage gone')) };
  const record = new RemoteTabRecord(state);
  record.add(remoteKey('remote', 'aaaa0001'));
  assert.deepEqual(record.of('remote'), [remoteKey('remote', 'aaaa0001')]);
});
