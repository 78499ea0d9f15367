// Waits for an emulator to parse all it was written: one in this thread (its own queue, not xterm's
// write buffer) or a session's proxy of one in a worker.
import type { IDisposable } from '../../src/base/disposable';
import type { Emulator } from '../../src/daemon/emulator/emulator';

/** What both an Emulator and a SessionEmulator say of their parsing. */
interface Parsing {
  readonly backlog: number;
  onParsed(listener: () => void): IDisposable;
}

/** Resolves once everything written to `emulator` is parsed. */
export function allParsed(emulator: Parsing): Promise<void> {
  if (emulator.backlog === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const listener = emulator.onParsed(() => {
      if (emulator.backlog > 0) return;
      listener.dispose();
      resolve();
    });
  });
}

/** Writes `data` to `emulator` and resolves once it is parsed. */
export function parsed(emulator: Emulator, data: string | Uint8Array): Promise<void> {
  emulator.write(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  return allParsed(emulator);
}
