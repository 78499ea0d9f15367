// Entry point of `holdfast` (bundled to dist/cli.js; bin/holdfast requires it).
import { runCli } from './run';

runCli(process.argv.slice(2)).then(
  (code) => exit(code),
  (err: unknown) => {
    // runCli turns every command error into a code; reaching here is a bug in the CLI itself.
    process.stderr.write(`holdfast: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    exit(1);
  },
);

/** Exits once stdout has taken everything (a piped reader must get the whole JSON document). */
function exit(code: number): void {
  process.exitCode = code;
  process.stdout.write('', () => process.exit(code));
}
