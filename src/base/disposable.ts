// The Disposable pattern (as in VS Code), without importing vscode.

export interface IDisposable {
  dispose(): void;
}

export function toDisposable(fn: () => void): IDisposable {
  let done = false;
  return {
    dispose() {
      if (done) return;
      done = true;
      fn();
    },
  };
}

/** Owns a set of disposables and disposes them together, once. */
export class DisposableStore implements IDisposable {
  private readonly items = new Set<IDisposable>();
  private disposed = false;

  add<T extends IDisposable>(item: T): T {
    if (this.disposed) item.dispose();
    else this.items.add(item);
    return item;
  }

  delete(item: IDisposable): void {
    if (this.items.delete(item)) item.dispose();
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  /** How many disposables it holds (a test sees a store that only grows). */
  get size(): number {
    return this.items.size;
  }

  /** Disposes every item even when some throw, then rethrows (see disposeAll). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const items = [...this.items];
    this.items.clear();
    disposeAll(items);
  }
}

/**
 * Disposes every item even when some throw (one failing disposer must not keep the others alive),
 * then rethrows: one error as it is, several as an AggregateError.
 */
export function disposeAll(items: Iterable<IDisposable>): void {
  const errors: unknown[] = [];
  for (const item of items) {
    try {
      item.dispose();
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${errors.length} disposers failed`);
}

/** A disposer's error for a log line: its stack, or each one's of an AggregateError. */
export function disposeErrorText(err: unknown): string {
  const each = err instanceof AggregateError ? (err.errors as unknown[]) : [err];
  return each.map((e) => (e instanceof Error ? (e.stack ?? e.message) : String(e))).join('\n');
}

/**
 * Holds at most one disposable: setting a new value disposes the one it replaces; disposing it
 * disposes the value, and any value set afterwards at once (as xterm.js's MutableDisposable).
 */
export class MutableDisposable<T extends IDisposable> implements IDisposable {
  private current: T | undefined;
  private disposed = false;

  get value(): T | undefined {
    return this.current;
  }

  set value(value: T | undefined) {
    if (value === this.current) return;
    if (this.disposed) {
      value?.dispose();
      return;
    }
    const old = this.current;
    this.current = value;
    old?.dispose();
  }

  /** Disposes the value and holds none. */
  clear(): void {
    this.value = undefined;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const old = this.current;
    this.current = undefined;
    old?.dispose();
  }
}

/** A typed event: `event(listener)` subscribes and returns its disposable. */
export class Emitter<T> implements IDisposable {
  private listeners = new Set<(value: T) => void>();

  readonly event = (listener: (value: T) => void): IDisposable => {
    this.listeners.add(listener);
    return toDisposable(() => this.listeners.delete(listener));
  };

  fire(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }

  get hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  dispose(): void {
    this.listeners.clear();
  }
}

export function timeout(ms: number, fn: () => void): IDisposable {
  const handle = setTimeout(fn, ms);
  return toDisposable(() => clearTimeout(handle));
}
