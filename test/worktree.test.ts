// Worktrees per agent (src/agents/worktree.ts) with real git in temp repositories, and
// `holdfast new --worktree` against a real on-demand daemon.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { SessionInfo } from '../src/protocol/messages';
import {
  createWorktree,
  describeLoss,
  removeWorktree,
  repositoryRoot,
  suggestBranch,
  worktreeLoss,
  worktreeOf,
  worktreePath,
} from '../src/agents/worktree';
import { cliSandbox, type CliSandbox, isOneErrorLine } from './helpers/cli';
import { tempDir } from './helpers/daemon';
import { git, initRepoWithCommit } from './helpers/git';
import { record } from './helpers/reliability';

/** A repository with one commit, in its own temp folder (so its .worktrees sibling is private too). */
function newRepo(): string {
  const repo = path.join(tempDir('hf-wt-'), 'project');
  fs.mkdirSync(repo);
  initRepoWithCommit(repo);
  return fs.realpathSync(repo);
}

describe('worktree module', () => {
  test('creates the worktree beside the repository on a new branch', async () => {
    const repo = newRepo();
    const wt = await createWorktree(repo, 'agent/claude-1');
    assert.equal(wt.repo, repo);
    assert.equal(wt.branch, 'agent/claude-1');
    assert.equal(wt.path, path.join(path.dirname(repo), 'project.worktrees', 'agent-claude-1'));
    assert.equal(git(wt.path, 'rev-parse', '--abbrev-ref', 'HEAD').trim(), 'agent/claude-1');
    assert.ok(fs.existsSync(path.join(wt.path, 'README')));
    // From inside the worktree, the repository is still the main one.
    assert.equal(await repositoryRoot(wt.path), repo);
    assert.deepEqual(worktreeOf({ worktree: wt }), wt);
  });

  test('a configured folder, relative to the repository parent', () => {
    assert.equal(worktreePath('/src/app', 'a/b', 'trees'), '/src/trees/a-b');
    assert.equal(worktreePath('/src/app', 'x', '/abs'), '/abs/x');
    assert.match(suggestBranch('claude', new Date(2026, 11, 3, 7, 5)), /^agent\/claude-1203-0705$/);
  });

  test('refuses an existing branch, a bad name, an existing folder and a non-repository', async () => {
    const repo = newRepo();
    git(repo, 'branch', 'taken');
    await assert.rejects(createWorktree(repo, 'taken'), /branch "taken" already exists/);
    await assert.rejects(createWorktree(repo, 'bad..name'), /not a valid branch name/);
    await assert.rejects(createWorktree(repo, '-x'), /not a valid branch name/);
    fs.mkdirSync(worktreePath(repo, 'busy'), { recursive: true });
    await assert.rejects(createWorktree(repo, 'busy'), /worktree folder already exists/);
    assert.equal(git(repo, 'branch', '--list', 'busy'), '', 'no branch left behind');
    const plain = tempDir('hf-wt-plain-');
    await assert.rejects(createWorktree(plain, 'x'), /^Error: not a git repository: /);
  });

  test("refuses a planted base folder: a symlink, another user's, or writable by others", async () => {
    const repo = newRepo();
    const base = path.join(path.dirname(repo), 'project.worktrees');
    const theirs = tempDir('hf-wt-planted-');
    fs.chmodSync(theirs, 0o777);
    fs.symlinkSync(theirs, base);
    await assert.rejects(createWorktree(repo, 'feat'), /project\.worktrees is a symlink; refusing/);
    assert.deepEqual(fs.readdirSync(theirs), []);
    fs.unlinkSync(base);

    fs.mkdirSync(base);
    fs.chmodSync(base, 0o777);
    await assert.rejects(createWorktree(repo, 'feat'), /project\.worktrees is writable by others \(fix: chmod go-w/);
    fs.chmodSync(base, 0o755);
    if (process.getuid?.() === 0) {
      fs.chownSync(base, 65534, 65534);
      await assert.rejects(createWorktree(repo, 'feat'), /belongs to another user \(uid 65534\)/);
      fs.chownSync(base, 0, 0);
    }
    assert.equal(git(repo, 'branch', '--list', 'feat'), '');

    // A configured folder under a directory every user can write to (not sticky, unlike /tmp).
    const open = path.join(path.dirname(repo), 'open');
    fs.mkdirSync(open);
    fs.chmodSync(open, 0o777);
    await assert.rejects(createWorktree(repo, 'feat', 'open/trees'), /open is writable by every user/);
    assert.equal(fs.existsSync(path.join(open, 'trees')), false);

    const made = await createWorktree(repo, 'feat', 'mine/deeper');
    assert.equal((fs.statSync(path.dirname(made.path)).mode & 0o777).toString(8), '755');
    record({
      item: 'hostile',
      name:
        "REPO.worktrees planted as a symlink to a 0777 folder, as another user's folder, or mode 0777; " +
        'a base under a 0777 folder',
      value: 'refused with the fix named; nothing created in the planted folder, no branch made',
    });
  });

  test('detects uncommitted changes and unpushed commits; refuses to remove without force', async () => {
    const repo = newRepo();
    const wt = await createWorktree(repo, 'work');
    assert.deepEqual(await worktreeLoss(wt), { uncommitted: [], unpushed: 0 });

    fs.writeFileSync(path.join(wt.path, 'new.txt'), 'x\n');
    const dirty = await worktreeLoss(wt);
    assert.deepEqual(dirty.uncommitted, ['?? new.txt']);
    assert.equal(describeLoss(dirty, 'work'), '1 uncommitted change');
    await assert.rejects(removeWorktree(wt), /has 1 uncommitted change; not removed/);
    assert.ok(fs.existsSync(wt.path));

    git(wt.path, 'add', 'new.txt');
    git(wt.path, 'commit', '-q', '-m', 'work');
    const unpushed = await worktreeLoss(wt);
    assert.deepEqual(unpushed, { uncommitted: [], unpushed: 1 });
    await assert.rejects(removeWorktree(wt), /1 commit on "work" that no upstream or other branch has; not removed/);

    // Once another branch holds the commit, nothing is lost.
    git(repo, 'branch', 'keep', 'work');
    assert.deepEqual(await worktreeLoss(wt), { uncommitted: [], unpushed: 0 });
    // With an upstream, the count is against it.
    git(wt.path, 'branch', '--set-upstream-to', 'keep');
    fs.writeFileSync(path.join(wt.path, 'more.txt'), 'y\n');
    git(wt.path, 'add', 'more.txt');
    git(wt.path, 'commit', '-q', '-m', 'more');
    assert.equal((await worktreeLoss(wt)).unpushed, 1);

    await removeWorktree(wt, { force: true });
    assert.ok(!fs.existsSync(wt.path));
    assert.equal(git(repo, 'branch', '--list', 'work'), '');
  });

  test('regression: looking at a worktree before removal ran the program its fsmonitor config named', async () => {
    const repo = newRepo();
    const wt = await createWorktree(repo, 'agent');
    const marker = path.join(path.dirname(repo), 'ran');
    const hook = path.join(path.dirname(repo), 'fsmonitor-hook');
    fs.writeFileSync(hook, `#!/bin/sh\necho "$@" >> ${marker}\nexit 1\n`, { mode: 0o755 });
    const ran = () => fs.existsSync(marker);
    // 1. Metadata naming a repository of the agent's own making (not a worktree of REPO), whose config
    // names the program; as the worktree's repository too.
    const planted = path.join(path.dirname(repo), 'planted');
    fs.mkdirSync(planted);
    initRepoWithCommit(planted);
    git(planted, 'config', 'core.fsmonitor', hook);
    for (const forged of [
      { ...wt, path: planted },
      { ...wt, path: planted, repo: planted },
    ]) {
      await assert.rejects(worktreeLoss(forged), /is not a worktree of .*\(git worktree list\); not touched/);
      await assert.rejects(removeWorktree(forged, { force: true }), /is not a worktree of/);
      assert.ok(fs.existsSync(path.join(planted, 'README')), 'nothing removed');
    }
    assert.ok(!ran(), "the planted repository's fsmonitor program ran");
    // 2. The worktree's own .git swapped for a repository with the same config: git reads the
    // worktree through its admin folder in REPO, never what is in the folder.
    fs.rmSync(path.join(wt.path, '.git'));
    fs.writeFileSync(path.join(wt.path, 'edited.txt'), 'x\n');
    git(wt.path, 'init', '-q');
    git(wt.path, 'add', 'edited.txt');
    git(wt.path, 'config', 'core.fsmonitor', hook);
    // 3. And REPO's own config naming it (a hook in a cloned repository's config cannot, but a program can).
    git(repo, 'config', 'core.fsmonitor', hook);
    const loss = await worktreeLoss(wt);
    assert.ok(!ran(), 'an fsmonitor program ran');
    assert.ok(loss.uncommitted.includes('?? edited.txt'), loss.uncommitted.join(', '));
    // git itself will not remove a worktree whose .git was swapped; still nothing runs.
    await assert.rejects(removeWorktree(wt, { force: true }), /is not a \.git file/);
    assert.ok(!ran(), 'an fsmonitor program ran');
    record({
      item: 'hostile',
      name:
        "worktree removal's look at metadata.worktree.path: a planted repository whose core.fsmonitor names a " +
        "program, the worktree's .git swapped for one, REPO's config naming it",
      value:
        'the planted path refused (not in git worktree list), nothing run; the worktree read through its admin ' +
        'folder with core.fsmonitor=false and no hooks (was: git status ran the program)',
    });
  });

  test('removes a clean worktree and its branch', async () => {
    const repo = newRepo();
    const wt = await createWorktree(repo, 'clean/one');
    await removeWorktree(wt);
    assert.ok(!fs.existsSync(wt.path));
    assert.equal(git(repo, 'branch', '--list', 'clean/one'), '');
    assert.doesNotMatch(git(repo, 'worktree', 'list'), /clean-one/);
  });
});

describe('holdfast new --worktree', () => {
  let box: CliSandbox;
  before(() => {
    box = cliSandbox();
  });
  after(() => box.cleanup());

  test('starts the session in a new worktree and records it', async () => {
    const repo = newRepo();
    const { code, stdout, stderr } = await box.run(['new', '--worktree', 'agent/cli', '--cwd', repo, '--', 'cat']);
    assert.equal(code, 0, stderr);
    const session = JSON.parse(await box.ok(['show', stdout.trim(), '--json'])) as SessionInfo;
    const expected = path.join(path.dirname(repo), 'project.worktrees', 'agent-cli');
    assert.equal(session.cwd, expected);
    assert.equal(session.name, 'agent/cli');
    assert.deepEqual(session.metadata?.worktree, { path: expected, branch: 'agent/cli', repo });
    assert.equal(git(expected, 'rev-parse', '--abbrev-ref', 'HEAD').trim(), 'agent/cli');
    await box.ok(['rm', session.id]);
  });

  test('--worktree-folder puts the worktree there, relative to where the command runs', async () => {
    const repo = newRepo();
    const where = tempDir('hf-wt-folder-');
    const { code, stdout, stderr } = await box.run(
      ['new', '--worktree', 'agent/here', '--worktree-folder', 'trees', '--cwd', repo, '--', 'cat'],
      { cwd: where },
    );
    assert.equal(code, 0, stderr);
    const session = JSON.parse(await box.ok(['show', stdout.trim(), '--json'])) as SessionInfo;
    assert.equal(session.cwd, path.join(where, 'trees', 'agent-here'));
    assert.equal(git(session.cwd, 'rev-parse', '--abbrev-ref', 'HEAD').trim(), 'agent/here');
    await box.ok(['rm', session.id]);

    const alone = await box.run(['new', '--worktree-folder', 'trees', '--cwd', repo, '--', 'cat']);
    assert.equal(alone.code, 2);
    assert.ok(isOneErrorLine(alone.stderr), alone.stderr);
    assert.match(alone.stderr, /--worktree-folder needs --worktree BRANCH/);
  });

  test('errors are one line and leave nothing behind', async () => {
    const repo = newRepo();
    git(repo, 'branch', 'taken');
    const taken = await box.run(['new', '--worktree', 'taken', '--cwd', repo, '--', 'cat']);
    assert.equal(taken.code, 1);
    assert.ok(isOneErrorLine(taken.stderr), taken.stderr);
    assert.match(taken.stderr, /branch "taken" already exists/);

    const plain = tempDir('hf-wt-plain-');
    const notRepo = await box.run(['new', '--worktree', 'x', '--cwd', plain, '--', 'cat']);
    assert.equal(notRepo.code, 1);
    assert.ok(isOneErrorLine(notRepo.stderr), notRepo.stderr);
    assert.match(notRepo.stderr, /not a git repository/);

    // No git on PATH (node runs by its full path, so the CLI itself still starts).
    const noGit = await box.run(['new', '--worktree', 'x', '--cwd', repo, '--', 'cat'], {
      env: { ...box.env, PATH: tempDir('hf-wt-nopath-') },
    });
    assert.equal(noGit.code, 1);
    assert.ok(isOneErrorLine(noGit.stderr), noGit.stderr);
    assert.match(noGit.stderr, /git is not installed/);

    // The session cannot start (no such command): the worktree and its branch go again.
    const failed = await box.run(['new', '--worktree', 'agent/broken', '--cwd', repo, '--', 'no-such-command-hf']);
    assert.notEqual(failed.code, 0);
    assert.ok(isOneErrorLine(failed.stderr), failed.stderr);
    assert.ok(!fs.existsSync(worktreePath(repo, 'agent/broken')));
    assert.equal(git(repo, 'branch', '--list', 'agent/broken'), '');
  });
});
