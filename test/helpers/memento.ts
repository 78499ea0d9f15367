// A VS Code Memento (workspaceState, globalState) as the extension uses it: a map that outlives the objects that
// read and write it, with `initial` stored under `key` at the start.
export function memento(key: string, initial?: unknown) {
  const values = new Map<string, unknown>(initial === undefined ? [] : [[key, initial]]);
  return {
    values,
    get: (k: string) => values.get(k),
    update: (k: string, value: unknown) => {
      values.set(k, value);
      return Promise.resolve();
    },
  };
}
