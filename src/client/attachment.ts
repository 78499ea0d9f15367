// One attached channel of a client (HoldfastClient.attach): its keys, its size, its role, its end.
import type { IDisposable } from '../base/disposable';
import type { HoldfastClient } from './client';
import { FrameKind } from '../protocol/frame';
import type { Role, SessionInfo } from '../protocol/messages';

export class Attachment implements IDisposable {
  private detached = false;

  constructor(
    private readonly client: HoldfastClient,
    readonly channel: number,
    readonly session: SessionInfo,
    public role: Role,
  ) {}

  write(data: string | Uint8Array): void {
    if (this.detached) return;
    this.client.sendRaw(FrameKind.Input, this.channel, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  }

  /** Owner only: sets the session's size. */
  resize(cols: number, rows: number): Promise<unknown> {
    return this.client.request('resize', { session: this.session.id, cols, rows });
  }

  /** The scrollback, after a historyLater attach: a 'history' snapshot follows. */
  async requestHistory(): Promise<void> {
    await this.client.request('history', { channel: this.channel });
  }

  /** Takes input over: this channel becomes the owner, the previous owner is told. */
  async claim(cols?: number, rows?: number): Promise<SessionInfo> {
    const { session } = await this.client.request('claim', { channel: this.channel, cols, rows });
    this.role = 'owner';
    return session;
  }

  async detach(): Promise<void> {
    if (this.detached) return;
    this.detached = true;
    this.client.forgetChannel(this.channel);
    // The channel is forgotten here already; a connection that closes first has detached it too.
    if (!this.client.isClosed) await this.client.request('detach', { channel: this.channel }).catch(() => undefined);
  }

  dispose(): void {
    void this.detach();
  }
}
