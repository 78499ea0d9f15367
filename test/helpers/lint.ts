// Lints source snippets, each at a path of src/, with the repository's layer and UI sink rules alone
// (helpers/lintSnippets.mjs): the messages each case gets, in order.
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { ROOT } from './daemon';

export interface Case {
  file: string;
  code: string;
}

export function lint(cases: Case[]): Promise<string[][]> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [path.join(ROOT, 'test', 'helpers', 'lintSnippets.mjs')],
      { cwd: ROOT },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout))),
    );
    child.stdin!.end(JSON.stringify(cases));
  });
}
