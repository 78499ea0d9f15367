// The one check before a signal to a program's process group, for both kinds of PTY (the daemon's own
// child, PtyProcess, and one adopted from a previous daemon, AdoptedPty): a group whose id may be someone
// else's now (a recycled pid) is never signalled.
//
// The group's id is its leader's pid. The kernel gives a pid out again only when nothing holds it, not
// even as a process group id, so the id stays ours while the leader is unreaped or anything (a zombie
// too) is left in its group. Before the leader's exit is known:
// - a child: node-pty has not reaped it, so its pid is its own; until setsid has run in it (just
//   spawned) its group does not exist yet, and the leader alone is signalled;
// - adopted: this daemon is not its parent, so it asks: the leader runs in its group, or (the leader is
//   gone, the terminal still open) something alive is left in the group.
// After it: signalled only while something alive is left in the group and no other process has the
// leader's pid. Once seen otherwise, the group counts as gone for good. Where zombies cannot be told
// apart (no ps), SIGKILL sent after the exit ends the question: no live process survives it.
// The questions go to processGroup.ts, off the main thread; the cheap one (signal 0 on the leader's
// pid) is asked again just before the signal, so a reuse while the answer came is seen too.
import { pidInUse, type ProcessGroups } from './processGroup';

/** Whose child the leader is: this process's (it reaps it and hears its exit), or a previous daemon's. */
export type LeaderKind = 'child' | 'adopted';

/**
 * The leader when its exit was noted: reaped or seen with no process ('gone'), a zombie nobody has
 * reaped yet, "cannot tell", or its pid run by a process in another group ('reused').
 */
export type LeaderAtExit = 'gone' | 'zombie' | 'unknown' | 'reused';

export class GroupGuard {
  private exited = false;
  /** Its pid holds no process of ours any more: from then on any process with it is someone else. */
  private leaderGone = false;
  /** Nothing alive of the group is left, or its id may be someone else's: never signalled again. */
  private groupGone = false;
  /** SIGKILL reached the group after the leader exited: nothing alive can be left in it. */
  private killedAfterExit = false;

  constructor(
    readonly pid: number,
    readonly pgid: number,
    private readonly leader: LeaderKind,
    private readonly groups: ProcessGroups,
  ) {}

  /** Adopted: 'running' while the leader runs in its group, else what it is at its exit. */
  async leaderNow(): Promise<'running' | LeaderAtExit> {
    const leader = await this.groups.process(this.pid);
    if (leader.kind === 'live') return leader.pgid === this.pgid ? 'running' : 'reused';
    return leader.kind === 'none' ? 'gone' : leader.kind;
  }

  /**
   * The leader exited (a child: reaped). Settles at once whether anything is left of the group, before
   * the pid can be given out again (most programs leave nothing behind).
   */
  leaderExited(leader: LeaderAtExit): Promise<boolean> {
    this.exited = true;
    if (this.leader === 'child' || leader === 'gone') this.leaderGone = true;
    // A process in another group has the pid: it was given out again, so the group had emptied.
    if (leader === 'reused') this.groupGone = true;
    return this.alive();
  }

  /** True while the leader runs or anything in its process group is alive (zombies count as gone). */
  alive(): Promise<boolean> {
    return this.exited ? this.leftAfterExit() : Promise.resolve(true);
  }

  /** Signals the group; false when nothing was signalled (gone, or its id may be someone else's). */
  async signal(signal: NodeJS.Signals): Promise<boolean> {
    if (!this.exited) {
      // A child is signalled in this turn, before any await (dispose relies on it).
      if (this.leader === 'child') return this.send(signal, true);
      const ours = await this.mayBeOurs();
      if (!this.exited) return ours && this.send(signal, false);
    }
    if (!(await this.leftAfterExit()) || this.reusedNow()) return false;
    const sent = this.send(signal, false);
    if (sent && signal === 'SIGKILL') this.killedAfterExit = true;
    return sent;
  }

  private send(signal: NodeJS.Signals, leaderIfNoGroup: boolean): boolean {
    try {
      process.kill(-this.pgid, signal);
      return true;
    } catch {
      // Just spawned: the child may not have called setsid yet, so its group does not exist. It is
      // unreaped, so its pid is still its own (regression: a kill right after create missed).
      if (!leaderIfNoGroup) return false; // gone in the meantime (ESRCH): nothing was signalled
      try {
        process.kill(this.pid, signal);
        return true;
      } catch {
        return false;
      }
    }
  }

  /** Adopted, before the exit: the leader runs in its group, or something alive keeps the group's id. */
  private async mayBeOurs(): Promise<boolean> {
    const leader = await this.groups.process(this.pid);
    if (leader.kind === 'live') return leader.pgid === this.pgid;
    if (leader.kind === 'unknown') return true; // no ps: what signals alone can tell
    const members = await this.groups.members(this.pgid);
    return members === 'live' || members === 'unknown';
  }

  /** After the exit: whether something alive may be left in the group, its id still ours. */
  private async leftAfterExit(): Promise<boolean> {
    if (this.groupGone) return false;
    const members = await this.groups.members(this.pgid);
    const nothingAlive = members === 'none' || members === 'zombies' || (members === 'unknown' && this.killedAfterExit);
    // The leader's pid is asked about after the group, so a reuse between the two is seen.
    if (nothingAlive || (await this.leaderReused())) this.groupGone = true;
    return !this.groupGone;
  }

  /**
   * After the exit: whether a process other than the leader has its pid. Once the leader is gone, any
   * process with it; before that (an adopted leader left a zombie), one that runs: the leader did not.
   */
  private async leaderReused(): Promise<boolean> {
    if (this.leaderGone) return pidInUse(this.pid);
    const leader = await this.groups.process(this.pid);
    if (leader.kind === 'none') this.leaderGone = true;
    return leader.kind === 'live';
  }

  /** Just before a signal after the exit: the cheap check again (a reuse while the answers came). */
  private reusedNow(): boolean {
    if (this.leaderGone && pidInUse(this.pid)) this.groupGone = true;
    return this.groupGone;
  }
}
