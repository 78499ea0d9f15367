// The owned-resource helpers of src/base/disposable.ts: a held resource is disposed exactly
// once, when it is replaced or when its owner is.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DisposableStore, IDisposable, MutableDisposable } from '../src/base/disposable';

/** A disposable that counts how often it was disposed. */
function counted(): IDisposable & { disposals: number } {
  const item = {
    disposals: 0,
    dispose() {
      item.disposals++;
    },
  };
  return item;
}

test('MutableDisposable: replacing the value disposes the old one, once', () => {
  const holder = new MutableDisposable<IDisposable>();
  const first = counted();
  const second = counted();
  holder.value = first;
  assert.equal(holder.value, first);
  holder.value = first; // the same value again: kept, not disposed
  assert.equal(first.disposals, 0);
  holder.value = second;
  assert.equal(first.disposals, 1);
  assert.equal(second.disposals, 0);
  assert.equal(holder.value, second);
  holder.clear();
  assert.equal(second.disposals, 1);
  assert.equal(holder.value, undefined);
  holder.clear();
  assert.equal(second.disposals, 1);
});

test('MutableDisposable: disposing it disposes the value, and a value set afterwards at once', () => {
  const holder = new MutableDisposable<IDisposable>();
  const held = counted();
  holder.value = held;
  holder.dispose();
  holder.dispose();
  assert.equal(held.disposals, 1);
  assert.equal(holder.value, undefined);
  const late = counted();
  holder.value = late;
  assert.equal(late.disposals, 1);
  assert.equal(holder.value, undefined);
});

test('MutableDisposable in a store: the store holds one entry however often the value is replaced', () => {
  const store = new DisposableStore();
  const holder = store.add(new MutableDisposable<IDisposable>());
  const values = Array.from({ length: 5 }, counted);
  for (const value of values) holder.value = value;
  assert.equal(store.size, 1);
  assert.deepEqual(
    values.map((v) => v.disposals),
    [1, 1, 1, 1, 0],
  );
  store.dispose();
  assert.equal(values[4].disposals, 1);
});
