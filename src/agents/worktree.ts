// Git worktrees for agents: one branch and folder per session, made beside the repository and
// removed with it. The one home of the git rules, shared by the extension and the CLI (no vscode).
// Git runs through execFile with argument lists (never a shell), always as `git -C DIR ...`.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** What a session's metadata records as `worktree`. */
export interface WorktreeInfo {
  /** The worktree's folder, where the session runs. */
  path: string;
  branch: string;
  /** The main repository's top folder. */
  repo: string;
}

/** What removing a worktree and its branch would lose. */
export interface WorktreeLoss {
  /** `git status --porcelain` lines: changed, staged and untracked files. */
  uncommitted: string[];
  /** Commits on the branch that are on no upstream (or, without one, on no other branch). */
  unpushed: number;
}

/** A refusal or failure worth one line to the user (no stack). */
export class WorktreeError extends Error {}

interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

const GIT_TIMEOUT_MS = 30_000;

/**
 * Config that would have git run a program, turned off where Holdfast looks at or removes a worktree
 * (an agent in it may have planted a repository or config there): the fsmonitor hook, hooks; `status`
 * runs with --ignore-submodules=dirty, so it starts no git in a submodule's own repository.
 */
const NO_PROGRAMS = ['-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null'];

/**
 * Where git runs: `git -C DIR`; a repository whose worktree Holdfast looks at or removes (NO_PROGRAMS);
 * or a linked worktree through its admin folder in the repository (NO_PROGRAMS too).
 */
type GitPlace = string | { repo: string } | { gitDir: string; workTree: string };

/** Runs git; resolves with its exit code (non-zero is no error here), rejects only when git cannot run. */
function git(place: GitPlace, args: string[]): Promise<GitResult> {
  const where =
    typeof place === 'string'
      ? ['-C', place]
      : 'repo' in place
        ? ['-C', place.repo, ...NO_PROGRAMS]
        : ['-C', place.workTree, `--git-dir=${place.gitDir}`, `--work-tree=${place.workTree}`, ...NO_PROGRAMS];
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [...where, ...args],
      { encoding: 'utf8', timeout: GIT_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, env: gitEnv() },
      (err, stdout, stderr) => {
        const errno = (err as NodeJS.ErrnoException | null)?.code;
        if (errno === 'ENOENT') return reject(new WorktreeError('git is not installed (no `git` on PATH)'));
        if (err && typeof errno !== 'number') return reject(new WorktreeError(`git ${args[0]} failed: ${err.message}`));
        resolve({ code: typeof errno === 'number' ? errno : 0, stdout, stderr });
      },
    );
  });
}

/** No prompts and no pager: git runs without a terminal of its own. */
function gitEnv(): NodeJS.ProcessEnv {
  return { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', LC_ALL: 'C' };
}

/** git's own message, on one line. */
function firstLine(result: GitResult): string {
  return (result.stderr.trim() || result.stdout.trim()).split('\n')[0].replace(/^fatal: /, '');
}

async function gitOk(place: GitPlace, args: string[]): Promise<string> {
  const result = await git(place, args);
  if (result.code !== 0) throw new WorktreeError(`git ${args[0]} failed: ${firstLine(result)}`);
  return result.stdout;
}

/** The top folder of the repository `dir` is in (for a worktree, the main repository's). */
export async function repositoryRoot(dir: string): Promise<string> {
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new WorktreeError(`no such folder: ${dir}`);
  const common = await git(dir, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
  if (common.code !== 0) throw new WorktreeError(`not a git repository: ${dir}`);
  const gitDir = common.stdout.trim();
  // A worktree's common dir is the main repository's .git; a bare repository has no worktree of its own.
  if (path.basename(gitDir) === '.git') return path.dirname(gitDir);
  const top = await git(dir, ['rev-parse', '--show-toplevel']);
  if (top.code !== 0) throw new WorktreeError(`not a git repository with a working tree: ${dir}`);
  return top.stdout.trim();
}

/** Refuses a name git would not take as a new branch (`git check-ref-format --branch`). */
export async function checkBranchName(repo: string, branch: string): Promise<void> {
  const result = await git(repo, ['check-ref-format', '--branch', branch]);
  if (result.code !== 0 || branch.startsWith('-')) throw new WorktreeError(`not a valid branch name: "${branch}"`);
}

export async function branchExists(repo: GitPlace, branch: string): Promise<boolean> {
  return (await git(repo, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`])).code === 0;
}

/**
 * Where the worktree of `branch` goes: `FOLDER/<branch with / as ->`, FOLDER being `folder` (relative
 * to the repository's parent) or, by default, `<repo parent>/<repo name>.worktrees`.
 */
export function worktreePath(repo: string, branch: string, folder?: string): string {
  const parent = path.dirname(repo);
  const base = folder?.trim()
    ? path.resolve(parent, folder.trim())
    : path.join(parent, `${path.basename(repo)}.worktrees`);
  return path.join(base, branch.replace(/\//g, '-'));
}

/** A branch name to suggest: `agent/<profile>-<month><day>-<hour><minute>`. */
export function suggestBranch(profileId: string, now = new Date()): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const slug = profileId.toLowerCase().replace(/[^a-z0-9._-]+/g, '-') || 'agent';
  const stamp = `${two(now.getMonth() + 1)}${two(now.getDate())}-${two(now.getHours())}${two(now.getMinutes())}`;
  return `agent/${slug}-${stamp}`;
}

/** `git worktree add -b BRANCH PATH` from the repository `dir` is in; leaves nothing behind on failure. */
export async function createWorktree(dir: string, branch: string, folder?: string): Promise<WorktreeInfo> {
  const repo = await repositoryRoot(dir);
  await checkBranchName(repo, branch);
  if (await branchExists(repo, branch)) throw new WorktreeError(`branch "${branch}" already exists in ${repo}`);
  const target = worktreePath(repo, branch, folder);
  if (fs.existsSync(target)) throw new WorktreeError(`the worktree folder already exists: ${target}`);
  ensureOwnFolder(path.dirname(target));
  const result = await git(repo, ['worktree', 'add', '-b', branch, target]);
  if (result.code !== 0) {
    // git undoes its own half-made worktree; the branch may be left (e.g. the checkout failed).
    await dropBranch(repo, branch);
    throw new WorktreeError(`git worktree add failed: ${firstLine(result)}`);
  }
  return { path: target, branch, repo };
}

/**
 * Makes `base`, the folder worktrees go into, and checks that no one else can change what is in it:
 * another user who plants `REPO.worktrees` (a symlink, or a folder of their own) beside a repository
 * in a shared directory would otherwise choose the files an agent later runs with. Each folder from
 * `base` up that already exists must be writable by no one else unless it is sticky (like /tmp); `base`
 * and each folder made for it must be a real folder (not a symlink), this user's, writable by no one
 * else. Missing folders are made one at a time and checked after, so one planted meanwhile is found.
 */
export function ensureOwnFolder(base: string): void {
  const target = path.resolve(base);
  const missing: string[] = [];
  for (let dir = target; !fs.lstatSync(dir, { throwIfNoEntry: false }); dir = path.dirname(dir)) missing.unshift(dir);
  if (missing.length === 0) checkOwnFolder(target);
  for (let dir = path.dirname(missing[0] ?? target); ; dir = path.dirname(dir)) {
    const info = fs.statSync(dir);
    if (info.mode & 0o002 && !(info.mode & 0o1000)) {
      throw new WorktreeError(
        `${dir} is writable by every user; choose another worktree folder (fix: chmod o-w ${dir})`,
      );
    }
    if (dir === path.dirname(dir)) break;
  }
  for (const dir of missing) {
    fs.mkdirSync(dir, { mode: 0o755 });
    checkOwnFolder(dir);
  }
}

function checkOwnFolder(dir: string): void {
  const info = fs.lstatSync(dir);
  if (info.isSymbolicLink()) throw new WorktreeError(`the worktree folder ${dir} is a symlink; refusing to use it`);
  if (!info.isDirectory()) throw new WorktreeError(`the worktree folder ${dir} is not a folder`);
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) {
    throw new WorktreeError(`the worktree folder ${dir} belongs to another user (uid ${info.uid}); refusing to use it`);
  }
  if (info.mode & 0o022) {
    throw new WorktreeError(`the worktree folder ${dir} is writable by others (fix: chmod go-w ${dir})`);
  }
}

/**
 * The worktree as git reaches it without reading anything in its folder: its admin folder in the
 * repository (`<common dir>/worktrees/NAME`, whose `gitdir` names the folder), once `git worktree list`
 * of the repository lists the folder as a linked worktree. Refused otherwise: metadata names the folder,
 * and an agent in it may have put a repository of its own there, whose config git would obey.
 */
async function linkedWorktree(worktree: WorktreeInfo): Promise<{ gitDir: string; workTree: string }> {
  const repo = { repo: worktree.repo };
  const notOne = `${worktree.path} is not a worktree of ${worktree.repo} (git worktree list); not touched`;
  const listed = await git(repo, ['worktree', 'list', '--porcelain', '-z']);
  if (listed.code !== 0) throw new WorktreeError(`git worktree list failed: ${firstLine(listed)}`);
  const real = realpathOr(worktree.path);
  const linked = listed.stdout
    .split('\0')
    .filter((field) => field.startsWith('worktree '))
    .slice(1)
    .map((field) => realpathOr(field.slice('worktree '.length)));
  if (!linked.includes(real)) throw new WorktreeError(notOne);
  const common = await gitOk(repo, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
  const admin = path.join(common.trim(), 'worktrees');
  for (const name of fs.readdirSync(admin)) {
    const gitdir = fs.readFileSync(path.join(admin, name, 'gitdir'), 'utf8').trim();
    if (realpathOr(path.dirname(gitdir)) === real) return { gitDir: path.join(admin, name), workTree: real };
  }
  throw new WorktreeError(notOne);
}

function realpathOr(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file); // gone: compared as written
  }
}

/** What removing `worktree` and its branch would lose; nothing when its folder is gone. */
export async function worktreeLoss(worktree: WorktreeInfo): Promise<WorktreeLoss> {
  if (!fs.existsSync(worktree.path)) return { uncommitted: [], unpushed: 0 };
  const place = await linkedWorktree(worktree);
  const status = await gitOk(place, ['status', '--porcelain', '--ignore-submodules=dirty']);
  const uncommitted = status.split('\n').filter((line) => line.trim() !== '');
  const upstream = await git(place, ['rev-parse', '--verify', '--quiet', '@{u}']);
  const counted =
    upstream.code === 0
      ? await gitOk(place, ['rev-list', '--count', '@{u}..HEAD'])
      : // Without an upstream: commits that no other branch (local or remote-tracking) holds.
        await gitOk(place, [
          'rev-list',
          '--count',
          'HEAD',
          '--not',
          `--exclude=${worktree.branch}`,
          '--branches',
          '--remotes',
        ]);
  return { uncommitted, unpushed: Number(counted.trim()) || 0 };
}

/** "2 uncommitted changes and 1 commit on "B" that no upstream or other branch has"; undefined: nothing lost. */
export function describeLoss(loss: WorktreeLoss, branch: string): string | undefined {
  const parts: string[] = [];
  const n = loss.uncommitted.length;
  if (n > 0) parts.push(`${n} uncommitted change${n === 1 ? '' : 's'}`);
  if (loss.unpushed > 0)
    parts.push(
      `${loss.unpushed} commit${loss.unpushed === 1 ? '' : 's'} on "${branch}" that no upstream or other branch has`,
    );
  return parts.length > 0 ? parts.join(' and ') : undefined;
}

/**
 * Removes the worktree's folder and its branch. Refuses when that would lose work, unless `force`
 * (the user was told what would be lost).
 */
export async function removeWorktree(worktree: WorktreeInfo, options: { force?: boolean } = {}): Promise<void> {
  const repo = { repo: worktree.repo };
  if (fs.existsSync(worktree.path)) {
    const place = await linkedWorktree(worktree);
    if (!options.force) {
      const lost = describeLoss(await worktreeLoss(worktree), worktree.branch);
      if (lost) throw new WorktreeError(`the worktree ${worktree.path} has ${lost}; not removed`);
    }
    await gitOk(repo, ['worktree', 'remove', '--force', place.workTree]);
  } else {
    await gitOk(repo, ['worktree', 'prune']);
  }
  await dropBranch(repo, worktree.branch);
}

async function dropBranch(repo: GitPlace, branch: string): Promise<void> {
  if (await branchExists(repo, branch)) await gitOk(repo, ['branch', '-D', branch]);
}

/** The `worktree` a session's metadata records, if it is well formed. */
export function worktreeOf(metadata: Record<string, unknown> | undefined): WorktreeInfo | undefined {
  const raw = metadata && Object.prototype.hasOwnProperty.call(metadata, 'worktree') ? metadata.worktree : undefined;
  if (!raw || typeof raw !== 'object') return undefined;
  const { path: dir, branch, repo } = raw as Record<string, unknown>;
  if (typeof dir !== 'string' || typeof branch !== 'string' || typeof repo !== 'string') return undefined;
  if (!path.isAbsolute(dir) || !path.isAbsolute(repo)) return undefined;
  return { path: dir, branch, repo };
}
