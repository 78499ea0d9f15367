// Waits for an in-process emulator to parse all it was written (its own queue, not xterm's write buffer).
import type { Emulator } from '../../src/daemon/emulator';

/** Resolves once everything written to `emulator` is parsed. */
export function allParsed(emulator: Emulator): Promise<void> {
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
