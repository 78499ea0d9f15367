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

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const items = [...this.items];
    this.items.clear();
    for (const item of items) {
      try {
        item.dispose();
      } catch {
        // one failing disposer must not keep the others alive
      }
    }
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
