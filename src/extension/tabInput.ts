// Whether a tab has input for its session (owner) or only watches it (another window has input),
// and how it takes input over: by typing, when the user focuses it, or just after a reload, when
// the previous window's input leaves. Pure Node (no vscode import).
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).
import type { Attachment } from '../client/client';
import type { Role, SessionInfo } from '../protocol/messages';
import { failureNotice, NOTICE } from './notices';

/**
 * After a reload the previous window's connection may linger briefly: a tab that had to start as a
 * watcher takes input back if the owner leaves this soon.
 */
const RECLAIM_WINDOW_MS = 5000;

/** Keys typed while a tab attaches or reconnects, kept at most (UTF-16 units): a paste's worth. */
export const HELD_KEYS_MAX_CHARS = 64 * 1024;

/** What input ownership needs from its tab. */
export interface InputTab {
  attachment(): Attachment | undefined;
  size(): { cols: number; rows: number } | undefined;
  print(text: string): void;
  /** Input is elsewhere: show the session at the owner's size. */
  watching(): void;
  /** Input is here: the tab's own size applies. */
  owning(): void;
  /** This tab took input over; `session` is the daemon's answer. */
  claimed(session: SessionInfo): void;
}

export class TabInput {
  private current: Role = 'owner';
  private claiming: Promise<void> | undefined;
  private queued: string[] = [];
  private reclaimUntil = 0;
  private held: string[] = [];
  private heldChars = 0;

  constructor(private readonly tab: InputTab) {}

  get role(): Role {
    return this.current;
  }

  get isOwner(): boolean {
    return this.tab.attachment() !== undefined && this.current === 'owner';
  }

  /** The role a tab showing an existing session starts in: it watches while another window has input. */
  firstRole(owners: number): Role {
    if (owners === 0) return 'owner';
    this.reclaimUntil = Date.now() + RECLAIM_WINDOW_MS;
    return 'watcher';
  }

  /** An attach landed in this role. */
  attachedAs(role: Role): void {
    this.current = role;
  }

  /** Keys typed in the tab: an owner sends them; a watcher takes input over (and its keys follow once it has). */
  type(data: string): void {
    const attachment = this.tab.attachment();
    if (!attachment) return; // attaching or reconnecting: keys have nowhere to go yet
    if (this.current === 'owner') {
      attachment.write(data);
      return;
    }
    this.queued.push(data);
    void this.take();
  }

  /**
   * Keys typed while the tab attaches or reconnects: kept until it is live (as VS Code keeps keys typed
   * before a terminal's process starts), so a handoff or a dropped connection loses none.
   */
  hold(data: string): void {
    if (this.heldChars + data.length > HELD_KEYS_MAX_CHARS) {
      if (this.heldChars <= HELD_KEYS_MAX_CHARS) this.tab.print(NOTICE.heldKeysDropped);
      this.heldChars = HELD_KEYS_MAX_CHARS + 1; // said once
      return;
    }
    this.held.push(data);
    this.heldChars += data.length;
  }

  /** The tab is live: the keys held meanwhile go as if typed now. */
  release(): void {
    for (const data of this.dropHeld()) this.type(data);
  }

  /** The tab did not come back live (ended, failed, gone): what was held is not sent. */
  dropHeld(): string[] {
    const held = this.held;
    this.held = [];
    this.heldChars = 0;
    return held;
  }

  /** Takes input for this session (resolves once done; a failure is printed in the tab). */
  take(): Promise<void> {
    if (this.current === 'owner' || !this.tab.attachment()) return Promise.resolve();
    this.claiming ??= this.claim().finally(() => (this.claiming = undefined));
    return this.claiming;
  }

  /** The daemon moved input (a `role` event). */
  roleChanged(role: Role): void {
    this.current = role;
    if (role === 'watcher') {
      this.queued = [];
      this.tab.print(NOTICE.inputMoved);
      this.tab.watching();
    } else this.tab.owning();
  }

  /** The session changed (a `session` event) and has this many input owners. */
  sessionChanged(owners: number): void {
    if (this.current !== 'watcher') return;
    // The previous window's input left just after we arrived (a reload): take input back.
    if (this.tab.attachment() && owners === 0 && Date.now() < this.reclaimUntil) void this.take();
    else this.tab.watching();
  }

  private async claim(): Promise<void> {
    const attachment = this.tab.attachment();
    if (!attachment) return;
    try {
      const size = this.tab.size();
      const session = await attachment.claim(size?.cols, size?.rows);
      if (attachment !== this.tab.attachment()) return;
      this.current = 'owner';
      this.reclaimUntil = 0;
      this.tab.claimed(session);
      for (const data of this.queued.splice(0)) attachment.write(data);
    } catch (err) {
      this.queued = [];
      this.tab.print(failureNotice('taking input', err));
    }
  }
}
