// The owned-resource helpers of src/base/disposable.ts: a held resource is disposed exactly
// once, when it is replaced or when its owner is.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DisposableStore, type IDisposable, MutableDisposable } from '../src/base/disposable';

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

/** A disposable whose dispose throws `message` (after counting). */
function failing(message: string): IDisposable & { disposals: number } {
  const item = {
    disposals: 0,
    dispose() {
      item.disposals++;
      throw new Error(message);
    },
  };
  return item;
}

test('DisposableStore: a throwing disposer does not stop the others, and its error is rethrown as it is', () => {
  const store = new DisposableStore();
  const before = store.add(counted());
  const broken = store.add(failing('broken'));
  const after = store.add(counted());
  assert.throws(() => store.dispose(), { message: 'broken' });
  assert.deepEqual([before.disposals, broken.disposals, after.disposals], [1, 1, 1]);
  store.dispose(); // once only: nothing disposed or thrown again
  assert.deepEqual([before.disposals, broken.disposals, after.disposals], [1, 1, 1]);
});

test('DisposableStore: several throwing disposers are rethrown together as an AggregateError', () => {
  const store = new DisposableStore();
  const first = store.add(failing('first'));
  const kept = store.add(counted());
  const second = store.add(failing('second'));
  let thrown: unknown;
  try {
    store.dispose();
  } catch (err) {
    thrown = err;
  }
  assert.ok(thrown instanceof AggregateError, `not an AggregateError: ${String(thrown)}`);
  assert.deepEqual(
    thrown.errors.map((e: Error) => e.message),
    ['first', 'second'],
  );
  assert.deepEqual([first.disposals, kept.disposals, second.disposals], [1, 1, 1]);
});

test('DisposableStore: a throwing store inside a store still lets the outer one dispose the rest', () => {
  const outer = new DisposableStore();
  const inner = outer.add(new DisposableStore());
  const innerKept = inner.add(counted());
  inner.add(failing('inner'));
  const outerKept = outer.add(counted());
  assert.throws(() => outer.dispose(), { message: 'inner' });
  assert.equal(inner.isDisposed, true);
  assert.deepEqual([innerKept.disposals, outerKept.disposals], [1, 1]);
});
