// Test helpers: real git in temp repositories.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Runs git in `dir` and returns its stdout; throws on a non-zero exit. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
}

/** Makes `repo` (an existing folder) a repository on branch main with one commit: a README. */
export function initRepoWithCommit(repo: string): void {
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'user.name', 'Holdfast Test');
  git(repo, 'config', 'user.email', 'test@example.invalid');
  fs.writeFileSync(path.join(repo, 'README'), 'hello\n');
  git(repo, 'add', 'README');
  git(repo, 'commit', '-q', '-m', 'first');
}
