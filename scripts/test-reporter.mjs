// A node:test reporter for scripts/test.sh: one line per test file with its time (the file's whole run, hooks
// included), then the run's counts, as tab-separated `file PATH SECONDS` and `count NAME N` lines.
export default async function* fileTimes(source) {
  for await (const event of source) {
    const { type, data } = event;
    if (type === 'test:complete' && data.nesting === 0 && data.file && data.name === data.file) {
      yield `file\t${data.file}\t${(data.details.duration_ms / 1000).toFixed(1)}\n`;
    } else if (type === 'test:diagnostic' && data.nesting === 0) {
      const count = /^(tests|pass|fail|cancelled|skipped|todo) (\d+)$/.exec(data.message);
      if (count) yield `count\t${count[1]}\t${count[2]}\n`;
    }
  }
}
