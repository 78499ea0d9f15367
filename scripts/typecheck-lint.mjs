// npm test's type check and ESLint in one TypeScript program: `tsc -p .` (the tests compiled into out/) and
// `eslint .` (type-checked rules, its own program of the same files) each built the whole project's types, about
// 20 s of CPU apiece. Here the program is built once from tsconfig.json, emitted into out/ as tsc does, and handed
// to ESLint (parserOptions.programs) with eslint.config.mjs otherwise as it is. `npm run lint` stays plain eslint.
// Usage: node scripts/typecheck-lint.mjs   (exit 1 on a type error or a lint error; out/ is written either way)
import { ESLint } from 'eslint';
import * as path from 'node:path';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');
const host = {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
    throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
  },
};
const config = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.json'), {}, host);
const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
const diagnostics = [...config.errors, ...ts.getPreEmitDiagnostics(program), ...program.emit().diagnostics];
if (diagnostics.length > 0) {
  const format = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };
  // As tsc prints them: with colour and the line itself on a terminal, one line each otherwise.
  const formatted = process.stdout.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics;
  process.stdout.write(formatted(diagnostics, format));
}

const eslint = new ESLint({
  cwd: root,
  overrideConfig: {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: false, programs: [program] } },
  },
});
const results = await eslint.lintFiles(['.']);
process.stdout.write(await (await eslint.loadFormatter('stylish')).format(results));
if (diagnostics.length > 0 || results.some((r) => r.errorCount > 0)) process.exitCode = 1;
