// Entry point of `holdfast` (bundled to dist/cli.js; bin/holdfast requires it).
import { runCli } from './run';

// `holdfast read ID | head -1`: a reader that goes away is not an error worth a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

runCli(process.argv.slice(2)).then(
  (code) => exit(code),
  (err: unknown) => {
    // runCli turns every command error into a code; reaching here is a bug in the CLI itself.
    process.stderr.write(
      `holdfast: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    exit(1);
  },
);

/** Exits once stdout has taken everything (a piped reader must get the whole JSON document). */
function exit(code: number): void {
  process.exitCode = code;
  process.stdout.write('', () => process.exit(code));
}
